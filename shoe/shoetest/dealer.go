// Package shoetest simulates the people and the cards around a shoe: a Dealer that does what the
// table's guidance asks (cut, place the stop card, draw, take bets, resolve faults), bettors, and
// an in-memory Table that runs whole shoes through a shoe.Machine without devices. The daemon's
// simulation mode uses the same Dealer to drive its simulated devices over pseudo-terminals.
package shoetest

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
)

// ActionKind is what the dealer does next.
type ActionKind uint8

// The dealer's actions.
const (
	Wait     ActionKind = iota // nothing to do
	NewShoe                    // put the cards in the shuffler and start a shoe (verify, shuffle)
	Cut                        // the player cuts at Action.At
	PlaceCut                   // place the stop card with Action.Behind cards behind it
	Draw                       // draw the next card from the shoe
	Bets                       // close the bets: Action.Bets
	Decide                     // enter a player's decision: Action.Seat, Action.Choice
	Manual                     // enter the held card by hand (the dealer looks at it)
	Void                       // void the held round
	Count                      // put the cards left in the shuffler and count them
)

var actionNames = [...]string{"wait", "new-shoe", "cut", "place-cut", "draw", "bets", "decide", "manual", "void", "count"}

func (k ActionKind) String() string {
	if int(k) < len(actionNames) {
		return actionNames[k]
	}
	return "ActionKind(" + strconv.Itoa(int(k)) + ")"
}

// Action is one thing the dealer does.
type Action struct {
	Kind   ActionKind
	At     int
	Behind int
	Bets   []games.Bet
	Seat   int
	Choice string
}

// Dealer decides the next action from the table's latest guidance. It is deterministic for its
// random source.
type Dealer struct {
	ID   string
	Proc shoe.Procedure
	Rng  *rand.Rand
	// Bettors places each round's bets; nil means no bets.
	Bettors func(r *rand.Rand) []games.Bet
	// Choose picks a decision among the options; nil picks the first option.
	Choose func(r *rand.Rand, n games.Need) string
}

// Next returns the action the guidance g (a tablebus.Guide event) asks for.
func (d *Dealer) Next(g tablebus.Event) (Action, error) {
	if g.Type != tablebus.Guide {
		return Action{}, fmt.Errorf("shoetest: dealer given a %s event, not guidance", g.Type)
	}
	switch g.State {
	case "held":
		if g.Code == shoe.FaultMisread {
			return Action{Kind: Manual}, nil
		}
		return Action{Kind: Void}, nil
	case shoe.Idle.String():
		return Action{Kind: NewShoe}, nil
	case shoe.Verified.String():
		return Action{Kind: Wait}, nil // the daemon shuffles by itself
	case shoe.Shuffled.String():
		p := d.Proc
		// The player cuts anywhere the rule allows (RULES.md §1).
		at := p.CutMinEnd + d.Rng.IntN(p.Total()-2*p.CutMinEnd+1)
		return Action{Kind: Cut, At: at}, nil
	case shoe.CutDown.String():
		p := d.Proc
		return Action{Kind: PlaceCut, Behind: p.BehindMin + d.Rng.IntN(p.BehindMax-p.BehindMin+1)}, nil
	case shoe.Burning.String():
		return Action{Kind: Draw}, nil
	case shoe.Between.String():
		var bets []games.Bet
		if d.Bettors != nil {
			bets = d.Bettors(d.Rng)
		}
		return Action{Kind: Bets, Bets: bets}, nil
	case shoe.InRound.String():
		if g.Need == nil {
			return Action{}, fmt.Errorf("shoetest: guidance in round without a need")
		}
		switch g.Need.Kind {
		case games.NeedCard, games.NeedBurn:
			return Action{Kind: Draw}, nil
		case games.NeedDecision:
			c := ""
			if d.Choose != nil {
				c = d.Choose(d.Rng, *g.Need)
			} else if len(g.Need.Options) > 0 {
				c = g.Need.Options[0]
			}
			return Action{Kind: Decide, Seat: g.Need.Seat, Choice: c}, nil
		}
		return Action{Kind: Wait}, nil
	case shoe.Counting.String():
		return Action{Kind: Count}, nil
	}
	return Action{}, fmt.Errorf("shoetest: guidance in unknown state %q", g.State)
}

// BaccaratBettors returns a bettor for the baccarat family: each of seats 1…7 bets with
// probability 0.7, on player or banker (and now and then tie or a pair), whole units of unit
// cents from 1 to 10.
func BaccaratBettors(unit int64, tie bool) func(r *rand.Rand) []games.Bet {
	return func(r *rand.Rand) []games.Bet {
		var bets []games.Bet
		for seat := 1; seat <= 7; seat++ {
			if r.IntN(10) >= 7 {
				continue
			}
			spot := "player"
			if r.IntN(2) == 0 {
				spot = "banker"
			}
			bets = append(bets, games.Bet{Seat: seat, Spot: spot, Amount: unit * int64(1+r.IntN(10))})
			if tie && r.IntN(8) == 0 {
				bets = append(bets, games.Bet{Seat: seat, Spot: "tie", Amount: unit})
			}
			if r.IntN(10) == 0 {
				side := "player-pair"
				if r.IntN(2) == 0 {
					side = "banker-pair"
				}
				bets = append(bets, games.Bet{Seat: seat, Spot: side, Amount: unit})
			}
		}
		return bets
	}
}

// BettorsFor returns a bettor that places plausible bets on game's spots (RULES.md §8), in
// whole units of unit cents, or nil for games whose bets the simulator does not place.
func BettorsFor(game string, unit int64) func(r *rand.Rand) []games.Bet {
	each := func(spots ...string) func(r *rand.Rand) []games.Bet {
		return func(r *rand.Rand) []games.Bet {
			var bets []games.Bet
			for seat := 1; seat <= 5; seat++ {
				if r.IntN(10) >= 7 {
					continue
				}
				bets = append(bets, games.Bet{Seat: seat, Spot: spots[r.IntN(len(spots))], Amount: unit * int64(1+r.IntN(10))})
			}
			return bets
		}
	}
	switch game {
	case "punto-banco":
		return BaccaratBettors(unit, true)
	case "baccarat":
		return BaccaratBettors(unit, false)
	case "trente-et-quarante":
		return each("rouge", "noir", "couleur", "inverse")
	case "blackjack":
		return each("main")
	case "caribbean-stud", "draw-poker", "three-card-poker", "go-poker":
		return each("ante")
	}
	return nil
}

// RandomChoice picks one of the options the game allows, at random.
func RandomChoice(r *rand.Rand, n games.Need) string {
	if len(n.Options) == 0 {
		return ""
	}
	return n.Options[r.IntN(len(n.Options))]
}
