package games

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/sabot-tables/sabot/shoe/card"
)

// RoundInput is the input of `sabot games round` (RULES.md §8).
type RoundInput struct {
	Game      string              `json:"game"`
	Rules     string              `json:"rules,omitempty"`
	Decks     int                 `json:"decks,omitempty"`
	Cards     []string            `json:"cards"`
	Bets      []Bet               `json:"bets"`
	Decisions map[string][]string `json:"decisions,omitempty"`
	Limits    []Limit             `json:"limits,omitempty"`
	Options   map[string]string   `json:"options,omitempty"`
}

// maxSteps bounds a round so that an engine defect cannot loop for ever.
const maxSteps = 10000

// PlayRound plays one round of e from in: the cards in the order they leave the shoe (burns
// removed), the bets, and each seat's decisions in the order the engine asks for them
// (RULES.md §8). decks is the shoe's deck count, used to refuse a card that appears more often
// than the shoe holds. Every error names the problem: the card, the seat, the decision.
func PlayRound(e Engine, decks int, in RoundInput) (*Outcome, error) {
	game := e.Game()
	cards := make([]card.Card, len(in.Cards))
	var seen card.Counts
	for i, s := range in.Cards {
		c, err := card.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("%s: card %d: %w", game, i+1, err)
		}
		seen.Add(c)
		if decks > 0 && seen.Of(c) > decks {
			return nil, fmt.Errorf("%s: card %d: %s appears %d times, more than a %d-deck shoe holds", game, i+1, c, seen.Of(c), decks)
		}
		cards[i] = c
	}
	decisions := map[int][]string{}
	keys := map[int]string{}
	for k, ds := range in.Decisions {
		seat, err := strconv.Atoi(k)
		if err != nil || seat <= 0 {
			return nil, fmt.Errorf("%s: decisions: %q is not a seat number", game, k)
		}
		if other, dup := keys[seat]; dup {
			a, b := min(k, other), max(k, other)
			return nil, fmt.Errorf("%s: decisions: %q and %q are the same seat %d", game, a, b, seat)
		}
		keys[seat] = k
		decisions[seat] = ds
	}
	if err := e.Begin(in.Bets); err != nil {
		return nil, err
	}
	next := 0
	for range maxSteps {
		n := e.Need()
		var err error
		switch n.Kind {
		case NeedDone:
			for _, seat := range slices.Sorted(maps.Keys(decisions)) {
				if left := decisions[seat]; len(left) > 0 {
					why := ""
					if x, ok := e.(Explainer); ok {
						if r := x.Unasked(seat, left[0]); r != "" {
							why = ": " + r
						}
					}
					return nil, fmt.Errorf("%s: seat %d: decision %q was never asked for (the round ended first)%s", game, seat, left[0], why)
				}
			}
			o, err := e.Outcome()
			if err != nil {
				return nil, err
			}
			o.CardsUsed = next
			return o, nil
		case NeedCard:
			if next >= len(cards) {
				return nil, fmt.Errorf("%s: too few cards: %d given, the round needs another (%s)", game, len(cards), n)
			}
			_, err = e.Card(cards[next])
			next++
		case NeedBurn:
			_, err = e.Burn(card.None)
		case NeedDecision:
			left := decisions[n.Seat]
			if len(left) == 0 {
				return nil, fmt.Errorf("%s: seat %d: asked for a decision (%s) but none was given", game, n.Seat, n)
			}
			decisions[n.Seat] = left[1:]
			_, err = e.Decide(n.Seat, left[0])
		default:
			return nil, fmt.Errorf("%s: engine asked for %v", game, n.Kind)
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s: the round did not end within %d steps", game, maxSteps)
}
