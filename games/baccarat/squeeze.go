package baccarat

import (
	"fmt"

	"github.com/sabot-tables/sabot/games"
)

// OptSqueeze is squeeze baccarat, "on" or "off" (the default), for punto banco and baccarat
// (RULES.md §2 "Squeeze"): the cards of the player hand are dealt face down to the seat with the
// largest player bet, the banker's to the largest banker bet, and each is turned up by the
// decision "reveal" of that seat, player's cards first, before the next card and before the
// result.
const OptSqueeze = "squeeze"

// Reveal is the decision that turns a squeezed card face up (RULES.md §8).
const Reveal = "reveal"

// squeezers returns the seats that squeeze each hand's cards: the largest bet on the hand, equal
// bets going to the lowest seat (RULES.md §2 "Squeeze", our choice); 0 where nobody bets on it,
// and its cards are then dealt face up.
func squeezers(bets []games.Bet) (player, banker int) {
	var best [2]int64
	for _, b := range bets {
		i := 0
		switch b.Spot {
		case SpotPlayer:
		case SpotBanker:
			i = 1
		default:
			continue
		}
		seat := &player
		if i == 1 {
			seat = &banker
		}
		if b.Amount > best[i] || b.Amount == best[i] && b.Seat < *seat {
			best[i], *seat = b.Amount, b.Seat
		}
	}
	return player, banker
}

// squeezer returns the seat that squeezes a hand's cards, 0 for none.
func (e *Engine) squeezer(hand string) int {
	if hand == SpotPlayer {
		return e.squeeze[0]
	}
	return e.squeeze[1]
}

// cardFace is how the next card of a hand is dealt: face down to its squeezer, else as the
// game deals it (face).
func (e *Engine) cardFace(hand string, third bool) games.Face {
	if e.squeezing && e.squeezer(hand) != 0 {
		return games.FaceDown
	}
	if third {
		return games.FaceUp
	}
	return e.face()
}

// pendingReveal returns the deal index of the next squeezed card to turn up, -1 for none: the
// player's cards first, then the banker's, each hand in its deal order. The first four cards
// are all dealt before any is turned up.
func (e *Engine) pendingReveal() int {
	if !e.squeezing || len(e.order) < 4 {
		return -1
	}
	for _, hand := range []string{SpotPlayer, SpotBanker} {
		for i, h := range e.order {
			if h == hand && e.down[i] && !e.shown[i] {
				return i
			}
		}
	}
	return -1
}

// revealNeed is the decision a squeezed card waits for, and the dealer error a card out of the
// shoe before it is.
func (e *Engine) revealNeed(i int) (games.Need, string) {
	seat := e.squeezer(e.order[i])
	return games.Need{Kind: games.NeedDecision, Seat: seat, Options: []string{Reveal}},
		fmt.Sprintf("dealer error: waiting for seat %d to reveal the %s's card", seat, e.order[i])
}

// reveal applies the decision "reveal" for card i.
func (e *Engine) reveal(seat, i int, d string) (games.Step, error) {
	if d != Reveal {
		return games.Step{}, &games.RuleError{Game: e.Game(), Seat: seat, What: d,
			Rule: fmt.Sprintf("the %s's card is squeezed: the decision is %q (RULES.md §2 \"Squeeze\")", e.order[i], Reveal)}
	}
	e.shown[i] = true
	st := e.step()
	st.Reveal = append([]int{i}, st.Reveal...)
	return st, nil
}

// revealSay is the dealer's guidance while a squeezed card waits: which seat squeezes which
// hand's card, and nothing of the totals the shoe has read (they are the squeeze's suspense,
// and the dealer's screen must not tell them before the table sees them).
func (e *Engine) revealSay(i int) []games.Msg {
	return []games.Msg{games.M("bac.squeeze", games.N("seat", e.squeezer(e.order[i])), games.T("side", games.M("place."+e.order[i])))}
}
