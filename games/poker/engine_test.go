package poker_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/poker"
	"github.com/sabot-tables/sabot/shoe/card"
)

func house(t *testing.T, game string, opts map[string]string, bets ...games.Bet) *poker.House {
	t.Helper()
	h, err := poker.NewHouse(games.Config{Game: game, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Begin(bets); err != nil {
		t.Fatal(err)
	}
	return h
}

func deal(t *testing.T, e games.Engine, s string) games.Step {
	t.Helper()
	cs, err := card.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	var last games.Step
	for _, c := range cs {
		st, err := e.Card(c)
		if err != nil {
			t.Fatalf("card %s: %v", c, err)
		}
		last = st
	}
	return last
}

func ante(seat int, amount int64) games.Bet {
	return games.Bet{Seat: seat, Spot: poker.SpotAnte, Amount: amount}
}

// TestCaribbeanDealOrder checks RULES.md §5's deal: one card at a time, seats in order, the
// dealer last; the players' cards and four of the dealer's face down, the dealer's fifth face
// up; then the decisions; then the showdown turns up every live closed card.
func TestCaribbeanDealOrder(t *testing.T) {
	h := house(t, poker.CaribbeanStud, nil, ante(2, 100), ante(5, 100))
	var got []string
	for n := h.Need(); n.Kind == games.NeedCard; n = h.Need() {
		got = append(got, n.String())
		if _, err := h.Card(card.FromIndex(len(got) - 1)); err != nil {
			t.Fatal(err)
		}
	}
	round := "card to box 2 face down|card to box 5 face down|card to dealer face down"
	want := strings.Repeat(round+"|", 4) + "card to box 2 face down|card to box 5 face down|card to dealer"
	if strings.Join(got, "|") != want {
		t.Errorf("deal:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if n := h.Need(); n.String() != "decision from seat 2: bet fold" {
		t.Fatalf("need %v", n)
	}
	if _, err := h.Card(card.MustParse("Qs")); err == nil || !strings.Contains(err.Error(), "card out of turn: the round is waiting for decision from seat 2") {
		t.Errorf("card during the decisions: %v", err)
	}
	if _, err := h.Decide(5, "bet"); err == nil || err.Error() != "caribbean-stud: seat 5: bet: not this seat's decision: the round is waiting for decision from seat 2: bet fold" {
		t.Errorf("seat 5 out of turn: %v", err)
	}
	if _, err := h.Decide(2, "fold"); err != nil {
		t.Fatal(err)
	}
	st, err := h.Decide(5, "BET")
	if err != nil {
		t.Fatal(err)
	}
	// Seat 2 folded: its cards stay down. Seat 5's cards are 1, 4, 7, 10, 13; the dealer's
	// closed ones 2, 5, 8, 11 (14 was dealt face up).
	if fmt.Sprint(st.Reveal) != "[1 2 4 5 7 8 10 11 13]" {
		t.Errorf("reveal %v", st.Reveal)
	}
	if h.Need().Kind != games.NeedDone {
		t.Errorf("need %v", h.Need())
	}
	if _, err := h.Burn(card.None); err == nil {
		t.Error("a burn was accepted in Caribbean stud")
	}
}

func TestHouseRefusesACardTwice(t *testing.T) {
	h := house(t, poker.ThreeCardPoker, nil, ante(1, 100))
	deal(t, h, "As Kd")
	_, err := h.Card(card.MustParse("As"))
	var re *games.RuleError
	if !errors.As(err, &re) || err.Error() != "three-card-poker: As: already dealt this round (one deck, shuffled before every round: RULES.md §1)" {
		t.Fatalf("got %v", err)
	}
	if _, err := h.Card(card.Card(77)); err == nil || err.Error() != "three-card-poker: card 77: not one of the 52 cards" {
		t.Fatalf("got %v", err)
	}
	if _, err := h.Card(card.MustParse("2c")); err != nil { // the engine is unchanged by the refusals
		t.Fatal(err)
	}
}

// TestHouseVoid declares void hands through House.Void while the round runs (seed 002).
func TestHouseVoid(t *testing.T) {
	h := house(t, poker.CaribbeanStud, nil, ante(1, 100), ante(2, 300))
	deal(t, h, "2c 3c 4c 5c 6c 7c") // two rounds of the table
	if _, err := h.Void(2); err != nil {
		t.Fatal(err)
	}
	// Seat 2 takes no more cards: the rest of the deal is seat 1 and the dealer.
	deal(t, h, "8c 9c Tc Jc Qc Kc")
	if n := h.Need(); n.String() != "decision from seat 1: bet fold" {
		t.Fatalf("need %v", n)
	}
	if _, err := h.Decide(1, "bet"); err != nil {
		t.Fatal(err)
	}
	o, err := h.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range o.Settlements {
		got = append(got, fmt.Sprintf("%d %s %d", s.Seat, s.Spot, s.Net))
	}
	// Seat 1's Q-high club flush (2c 4c 8c Tc Qc) loses to the dealer's K-high one (5c 7c 9c Jc
	// Kc); seat 2's bet is returned.
	if strings.Join(got, ", ") != "1 ante -100, 1 bet -200, 2 ante 0" {
		t.Errorf("settlements %v", got)
	}
	h = house(t, poker.CaribbeanStud, nil, ante(1, 100))
	deal(t, h, "2c 3c")
	if _, err := h.Void(0); err != nil {
		t.Fatal(err)
	}
	o, err = h.Outcome()
	if err != nil || o.Result != "void" || o.Settlements[0].Net != 0 {
		t.Fatalf("dealer void: %+v, %v", o, err)
	}
	if _, err := h.Void(1); err == nil {
		t.Error("a void after the round was accepted")
	}
}

func TestHouseOptions(t *testing.T) {
	tests := []struct {
		game string
		opts map[string]string
		want string
	}{
		{poker.CaribbeanStud, map[string]string{"pair-plus-pays": "pair=1"}, `poker: caribbean-stud: unknown option "pair-plus-pays" (known: bet-pays, progressive, progressive-pool, progressive-prizes, seats, void)`},
		{poker.CaribbeanStud, map[string]string{"bet-pays": "pair=one"}, `poker: caribbean-stud: option bet-pays: pay table: pair pays "one", not a whole number from 0 to 1000000`},
		{poker.ThreeCardPoker, map[string]string{"void": "x"}, `poker: three-card-poker: option void: "x" is not a seat number`},
		{poker.GoPoker, map[string]string{"void": "dealer"}, `poker: go-poker: option void: "dealer" is not a seat number`},
		{poker.GoPoker, map[string]string{"min-pair": "1"}, `poker: go-poker: option min-pair: "1" is not a rank (2 … A)`},
	}
	for _, tt := range tests {
		_, err := poker.NewHouse(games.Config{Game: tt.game, Options: tt.opts})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s %v: got %v, want %q", tt.game, tt.opts, err, tt.want)
		}
	}
	// A custom pay table replaces only what it names.
	h := house(t, poker.CaribbeanStud, map[string]string{"bet-pays": "two-pair=3"}, ante(1, 100))
	deal(t, h, "Kd Qh Kc Qs 4s 8c 4h 5d 9d Ah")
	if _, err := h.Decide(1, "bet"); err != nil {
		t.Fatal(err)
	}
	o, err := h.Outcome()
	if err != nil || o.Settlements[1].Net != 600 {
		t.Fatalf("two pair at 3 to 1: %+v, %v", o, err)
	}
}

func circle(t *testing.T, game string, opts map[string]string, bets ...games.Bet) *poker.Circle {
	t.Helper()
	c, err := poker.NewCircle(games.Config{Game: game, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Begin(bets); err != nil {
		t.Fatal(err)
	}
	return c
}

func stack(seat int, amount int64) games.Bet {
	return games.Bet{Seat: seat, Spot: poker.SpotStack, Amount: amount}
}

// TestHoldemStreets follows a hold'em round's needs: the hole cards, the betting, a burn before
// each community street, the reveal at the showdown.
func TestHoldemStreets(t *testing.T) {
	c := circle(t, poker.Holdem, map[string]string{"button": "1"}, stack(1, 1000), stack(4, 1000))
	// Heads-up, button seat 1: seat 4 (left of the button) is dealt first.
	var needs []string
	cards, _ := card.ParseList("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc")
	next := 0
	for n := c.Need(); n.Kind != games.NeedDone; n = c.Need() {
		needs = append(needs, n.String())
		var st games.Step
		var err error
		switch n.Kind {
		case games.NeedCard:
			st, err = c.Card(cards[next])
			next++
		case games.NeedBurn:
			st, err = c.Burn(card.None)
		case games.NeedDecision:
			d := "check"
			if slices.Contains(n.Options, "call") {
				d = "call"
			}
			st, err = c.Decide(n.Seat, d)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Reveal) > 0 {
			// Hole cards: indexes 0–3; burns 4, 8, 10 count too; the board is 5–7, 9, 11.
			if fmt.Sprint(st.Reveal) != "[0 1 2 3]" {
				t.Errorf("reveal %v", st.Reveal)
			}
		}
	}
	want := []string{
		"card to box 4 face down", "card to box 1 face down", "card to box 4 face down", "card to box 1 face down",
		"decision from seat 4: check fold bet:1-1000 allin", "decision from seat 1: check fold bet:1-1000 allin",
		"burn a card", "card to board", "card to board", "card to board",
		"decision from seat 4: check fold bet:1-1000 allin", "decision from seat 1: check fold bet:1-1000 allin",
		"burn a card", "card to board",
		"decision from seat 4: check fold bet:1-1000 allin", "decision from seat 1: check fold bet:1-1000 allin",
		"burn a card", "card to board",
		"decision from seat 4: check fold bet:1-1000 allin", "decision from seat 1: check fold bet:1-1000 allin",
	}
	if strings.Join(needs, "\n") != strings.Join(want, "\n") {
		t.Errorf("needs:\n%s", strings.Join(needs, "\n"))
	}
}

// TestIncompleteRaiseDoesNotReopen: an all-in for less than a full raise lets the seats that
// already acted only call or fold.
func TestIncompleteRaiseDoesNotReopen(t *testing.T) {
	c := circle(t, poker.Holdem, map[string]string{"small-blind": "50", "big-blind": "100"},
		stack(1, 10000), stack(2, 450), stack(3, 10000))
	deal(t, c, "2c 3c 4c 5c 6c 7c")
	steps := []struct {
		seat     int
		decision string
		next     string
	}{
		{3, "raise:300", "decision from seat 1: fold call raise:500-10000 allin"},
		{1, "call", "decision from seat 2: fold call raise:450-450 allin"},
		{2, "allin", "decision from seat 3: fold call"}, // 450 is a raise of 150, less than 200
		{3, "call", "decision from seat 1: fold call"},
	}
	for _, s := range steps {
		if _, err := c.Decide(s.seat, s.decision); err != nil {
			t.Fatalf("seat %d %s: %v", s.seat, s.decision, err)
		}
		if got := c.Need().String(); got != s.next {
			t.Fatalf("after seat %d %s: %q, want %q", s.seat, s.decision, got, s.next)
		}
	}
	if _, err := c.Decide(1, "raise:2000"); err == nil || !strings.Contains(err.Error(), "the seat may not raise now") {
		t.Fatalf("re-raise after an incomplete raise: %v", err)
	}
}

// TestCircleRandomRounds plays random legal rounds of every circle game and checks that money is
// conserved: the nets add up to minus the rake, nobody loses more than the stack.
func TestCircleRandomRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for i := range 3000 {
		game := poker.CircleGames[i%len(poker.CircleGames)]
		opts := map[string]string{"rake": "5%", "rake-cap": "300"}
		if game == poker.Holdem || game == poker.Omaha23 {
			opts["small-blind"], opts["big-blind"] = "50", "100"
		}
		maxPlayers := 6
		if game == poker.SevenCardStud {
			maxPlayers = 7
		}
		n := 2 + rng.IntN(maxPlayers-1)
		var bets []games.Bet
		stacks := map[int]int64{}
		for s := 1; s <= n; s++ {
			st := int64(100 + rng.IntN(3000))
			stacks[s] = st
			bets = append(bets, stack(s, st))
			if rng.IntN(3) == 0 {
				bets = append(bets, ante(s, min(st, 10)))
			}
		}
		c := circle(t, game, opts, bets...)
		deck := card.Deck()
		rng.Shuffle(len(deck), func(a, b int) { deck[a], deck[b] = deck[b], deck[a] })
		for steps := 0; c.Need().Kind != games.NeedDone; steps++ {
			if steps > 1000 {
				t.Fatalf("round %d did not end", i)
			}
			n := c.Need()
			var err error
			switch n.Kind {
			case games.NeedCard:
				_, err = c.Card(deck[0])
				deck = deck[1:]
			case games.NeedBurn:
				_, err = c.Burn(deck[0])
				deck = deck[1:]
			case games.NeedDecision:
				_, err = c.Decide(n.Seat, randomDecision(rng, n.Options))
			}
			if err != nil {
				t.Fatalf("round %d (%s): %v", i, game, err)
			}
		}
		o, err := c.Outcome()
		if err != nil {
			t.Fatal(err)
		}
		rake := o.Detail.(*poker.CircleDetail).Rake
		if o.Net() != -rake {
			t.Fatalf("round %d (%s): nets add up to %d, rake %d", i, game, o.Net(), rake)
		}
		for _, s := range o.Settlements {
			if s.Net < -stacks[s.Seat] || s.Amount > stacks[s.Seat] {
				t.Fatalf("round %d: seat %d put in %d, net %d, stack %d", i, s.Seat, s.Amount, s.Net, stacks[s.Seat])
			}
		}
	}
}

func randomDecision(rng *rand.Rand, options []string) string {
	o := options[rng.IntN(len(options))]
	verb, rng2, ok := strings.Cut(o, ":")
	if !ok {
		return o
	}
	var lo, hi int64
	fmt.Sscanf(rng2, "%d-%d", &lo, &hi)
	if hi <= lo {
		return fmt.Sprintf("%s:%d", verb, hi)
	}
	return fmt.Sprintf("%s:%d", verb, lo+rng.Int64N(min(hi-lo, 500)+1))
}

func TestCircleRefuses(t *testing.T) {
	tests := []struct {
		game string
		opts map[string]string
		bets []games.Bet
		want string
	}{
		{poker.SevenCardStud, map[string]string{"big-blind": "100"}, nil,
			`poker: seven-card-stud: unknown option "big-blind" (known: button, min-bet, rake, rake-cap, seats)`},
		{poker.Holdem, map[string]string{"rake": "5"}, nil,
			`poker: holdem: option rake: "5" is not a percentage from 0% to 100% such as "5%" or "2.5%"`},
		{poker.Holdem, map[string]string{"small-blind": "200", "big-blind": "100"}, nil,
			"poker: holdem: the small blind (200) is above the big blind (100)"},
		{poker.SevenCardStud, nil, []games.Bet{stack(1, 100), stack(2, 100), stack(3, 100), stack(4, 100), stack(5, 100), stack(6, 100), stack(7, 100), stack(8, 100)},
			"seven-card-stud: 8 players: seven-card-stud is played by 2 to 7 seats"},
		{poker.Holdem, nil, []games.Bet{stack(1, 100)}, "holdem: 1 player: holdem is played by 2 to 10 seats"},
		{poker.Holdem, nil, []games.Bet{stack(1, 100), ante(2, 10)}, `holdem: seat 2: ante 10: a seat in a circle game needs its stack (spot "stack")`},
		{poker.Holdem, nil, []games.Bet{stack(1, 100), stack(2, 100), ante(2, 101)}, "holdem: seat 2: ante 101: above the seat's stack of 100"},
		{poker.Omaha23, nil, []games.Bet{stack(1, 100), {Seat: 2, Spot: "bet", Amount: 5}}, "omaha-2-3: seat 2: bet 5: unknown spot for omaha-2-3 (spots: stack, ante; bets are decisions)"},
	}
	for _, tt := range tests {
		c, err := poker.NewCircle(games.Config{Game: tt.game, Options: tt.opts})
		if err == nil {
			err = c.Begin(tt.bets)
		}
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s %v: got %v, want %q", tt.game, tt.opts, err, tt.want)
		}
	}
}
