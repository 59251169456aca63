// Package shoetest simulates the people and the cards around a shoe: a Dealer that does what the
// table's guidance asks (cut, place the stop card, draw, take bets, resolve faults), bettors, and
// an in-memory Table that runs whole shoes through a shoe.Machine without devices. The daemon's
// simulation mode uses the same Dealer to drive its simulated devices over pseudo-terminals.
package shoetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

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
	Manage                     // a between-rounds action on the game's state: Action.Manage
)

var actionNames = [...]string{"wait", "new-shoe", "cut", "place-cut", "draw", "bets", "decide", "manual", "void", "count", "manage"}

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
	Manage games.Action
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
	// Between, when set, may replace the bets between rounds with an action on the game's
	// state (the chemin de fer bank); it sees the state the table last published.
	Between func(r *rand.Rand, state map[string]any) *Action
	// Limits are the table's limits (seed 003): every bet the dealer places is brought within
	// its spot's, since a refused bet is no round at all.
	Limits []games.Limit

	state       map[string]any // the game's state from the last round result or table action
	progressive bool           // the table takes progressive bets (its last progressive.link)
}

// Observe shows the dealer an event of the table (the state a game keeps across rounds).
func (d *Dealer) Observe(e tablebus.Event) {
	var detail any
	switch e.Type {
	case tablebus.ProgressiveLink:
		d.progressive = e.State == tablebus.LinkOpen
		return
	case tablebus.RoundResult:
		detail = e.Detail
	case tablebus.TableAction:
		detail = e.Detail
	default:
		return
	}
	if detail == nil {
		return
	}
	b, err := json.Marshal(detail)
	if err != nil {
		return
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return
	}
	if after, ok := m["after"].(map[string]any); ok { // chemin de fer: the bank after the coup
		m = after
	}
	d.state = m
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
		// The dealer places the stop card where the house sets it (RULES.md §1: baccarat exactly
		// 6 behind; blackjack 1.5 decks by default), give or take a few cards where the rule
		// allows a range.
		p := d.Proc
		b := p.BehindDefault
		if p.BehindMax > p.BehindMin {
			b = min(p.BehindMax, max(p.BehindMin, b-5+d.Rng.IntN(11)))
		}
		return Action{Kind: PlaceCut, Behind: b}, nil
	case shoe.Burning.String():
		return Action{Kind: Draw}, nil
	case shoe.Between.String():
		if d.Between != nil {
			if a := d.Between(d.Rng, d.state); a != nil {
				a.Bets = d.withinLimits(a.Bets)
				return *a, nil
			}
		}
		var bets []games.Bet
		if d.Bettors != nil {
			bets = d.Bettors(d.Rng)
		}
		if d.progressive {
			// Half the boxes with an ante add the progressive, one $5 chip (seed 002: "fichas
			// de $ 500" into the chip acceptor), while the table takes it (RULES.md §7).
			for _, b := range bets {
				if b.Spot == "ante" && d.Rng.IntN(2) == 0 {
					bets = append(bets, games.Bet{Seat: b.Seat, Spot: "progressive", Amount: 500})
				}
			}
		}
		return Action{Kind: Bets, Bets: d.withinLimits(bets)}, nil
	case shoe.InRound.String():
		if g.Need == nil {
			return Action{}, fmt.Errorf("shoetest: guidance in round without a need")
		}
		n := g.Need.Game()
		switch n.Kind {
		case games.NeedCard, games.NeedBurn:
			return Action{Kind: Draw}, nil
		case games.NeedDecision:
			c := ""
			if d.Choose != nil {
				c = d.Choose(d.Rng, n)
			} else if len(n.Options) > 0 {
				c = n.Options[0]
			}
			return Action{Kind: Decide, Seat: n.Seat, Choice: c}, nil
		}
		return Action{Kind: Wait}, nil
	case shoe.Counting.String():
		return Action{Kind: Count}, nil
	}
	return Action{}, fmt.Errorf("shoetest: guidance in unknown state %q", g.State)
}

// withinLimits brings each bet within its spot's limit: a bet below the minimum is raised to
// it, one above the maximum lowered to it (a player tops up or takes chips back).
func (d *Dealer) withinLimits(bets []games.Bet) []games.Bet {
	for i, b := range bets {
		for _, l := range d.Limits {
			if l.Spot == b.Spot {
				bets[i].Amount = min(max(b.Amount, l.Min), l.Max)
			}
		}
	}
	return bets
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
	case "challenge21":
		// RULES.md §4: a box places 2 or 3 equal bets.
		return func(r *rand.Rand) []games.Bet {
			var bets []games.Bet
			for seat := 1; seat <= 5; seat++ {
				if r.IntN(10) >= 7 {
					continue
				}
				amt := unit * int64(1+r.IntN(5))
				for k := 1; k <= 2+r.IntN(2); k++ {
					bets = append(bets, games.Bet{Seat: seat, Spot: fmt.Sprintf("round%d", k), Amount: amt})
				}
			}
			return bets
		}
	case "holdem", "omaha-2-3", "five-card-stud", "seven-card-stud":
		// RULES.md §6: each seat brings its stack; the antes are posted.
		return func(r *rand.Rand) []games.Bet {
			var bets []games.Bet
			n := 2 + r.IntN(4)
			for seat := 1; seat <= n; seat++ {
				bets = append(bets, games.Bet{Seat: seat, Spot: "stack", Amount: unit * int64(20+r.IntN(80))},
					games.Bet{Seat: seat, Spot: "ante", Amount: unit / 5})
			}
			return bets
		}
	}
	return nil
}

// ChooserFor returns a decision chooser for game: random among the options the engine lists,
// with the amounts of "bet:LO-HI"/"raise:LO-HI" options chosen within their range, folding
// seldom.
func ChooserFor(game string) func(r *rand.Rand, n games.Need) string {
	return func(r *rand.Rand, n games.Need) string {
		if len(n.Options) == 0 {
			return ""
		}
		opts := n.Options
		if len(opts) > 1 && r.IntN(5) != 0 { // fold one time in five at most
			var keep []string
			for _, o := range opts {
				if o != "fold" {
					keep = append(keep, o)
				}
			}
			opts = keep
		}
		o := opts[r.IntN(len(opts))]
		if verb, rng, ok := strings.Cut(o, ":"); ok {
			if lo, hi, ok := strings.Cut(rng, "-"); ok {
				a, err1 := strconv.ParseInt(lo, 10, 64)
				b, err2 := strconv.ParseInt(hi, 10, 64)
				if err1 == nil && err2 == nil && b >= a {
					return fmt.Sprintf("%s:%d", verb, a+r.Int64N(min(b-a, 4*a+1)+1))
				}
			}
		}
		return o
	}
}

// CheminBank is the chemin de fer dealer between coups (seed 000): the seat offered the bank
// takes it, an auction gets a bid and closes; while a banker holds the bank, punters bet
// against it on "player", never more than the bank.
func CheminBank(unit int64) func(r *rand.Rand, st map[string]any) *Action {
	num := func(v any) int64 {
		f, _ := v.(float64)
		return int64(f)
	}
	return func(r *rand.Rand, st map[string]any) *Action {
		phase, _ := st["phase"].(string)
		switch phase {
		case "offered":
			amt := max(num(st["offer_min"]), num(st["min"]), unit)
			return &Action{Kind: Manage, Manage: games.Action{Action: "accept", Seat: int(num(st["offer"])), Amount: amt}}
		case "auction":
			if num(st["bidder"]) != 0 {
				return &Action{Kind: Manage, Manage: games.Action{Action: "close"}}
			}
			excluded := map[int]bool{}
			if xs, ok := st["excluded"].([]any); ok {
				for _, x := range xs {
					excluded[int(num(x))] = true
				}
			}
			seat := 1
			for excluded[seat] {
				seat++
			}
			return &Action{Kind: Manage, Manage: games.Action{Action: "bid", Seat: seat, Amount: max(num(st["min"]), unit)}}
		}
		bank, banker := num(st["amount"]), int(num(st["banker"]))
		if bank == 0 {
			bank, banker = max(num(st["min"]), 100), 1
		}
		if banker == 0 {
			banker = 1
		}
		var bets []games.Bet
		left := bank
		for seat := 1; seat <= 9 && left > 0; seat++ {
			if seat == banker || r.IntN(3) == 0 {
				continue
			}
			amt := min(left, max(1, bank/int64(1+r.IntN(4))))
			bets = append(bets, games.Bet{Seat: seat, Spot: "player", Amount: amt})
			left -= amt
		}
		if len(bets) == 0 {
			s := banker%9 + 1
			bets = []games.Bet{{Seat: s, Spot: "player", Amount: bank}}
		}
		return &Action{Kind: Bets, Bets: bets}
	}
}

// RandomChoice picks one of the options the game allows, at random.
func RandomChoice(r *rand.Rand, n games.Need) string {
	if len(n.Options) == 0 {
		return ""
	}
	return n.Options[r.IntN(len(n.Options))]
}

// NewDealer returns the simulated dealer for a game, with its bettors and choices.
func NewDealer(game string, proc shoe.Procedure, seed uint64) *Dealer {
	d := &Dealer{ID: "sim-dealer", Proc: proc, Rng: Seeded(seed), Bettors: BettorsFor(game, 500), Choose: ChooserFor(game)}
	if game == "chemin-de-fer" {
		d.Between = CheminBank(500)
	}
	return d
}

// SideBettors adds side bets to base's: now and then a seat that bets also puts a small unit on
// one of sides, as recreational players do, and one coup in forty one seat bets a side spot
// heavily, as a counter would (as much as its main bet, or five units alone), for the
// surveillance view's live odds to judge.
func SideBettors(base func(r *rand.Rand) []games.Bet, sides []string, unit int64) func(r *rand.Rand) []games.Bet {
	if len(sides) == 0 {
		return base
	}
	return func(r *rand.Rand) []games.Bet {
		var bets []games.Bet
		if base != nil {
			bets = base(r)
		}
		main := map[int]int64{}
		taken := map[[2]any]bool{}
		for _, b := range bets {
			main[b.Seat] += b.Amount
			taken[[2]any{b.Seat, b.Spot}] = true
		}
		add := func(seat int, spot string, amount int64) {
			if !taken[[2]any{seat, spot}] {
				taken[[2]any{seat, spot}] = true
				bets = append(bets, games.Bet{Seat: seat, Spot: spot, Amount: amount})
			}
		}
		for seat := 1; seat <= 7; seat++ {
			if main[seat] > 0 && r.IntN(4) == 0 {
				add(seat, sides[r.IntN(len(sides))], unit)
			}
		}
		if r.IntN(40) == 0 {
			seat := 1 + r.IntN(7)
			add(seat, sides[r.IntN(len(sides))], max(5*unit, main[seat]))
		}
		return bets
	}
}
