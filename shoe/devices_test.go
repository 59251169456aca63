package shoe_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// machineWith returns a machine of game with the procedure edited and the count by hand.
func machineWith(t *testing.T, game string, edit func(shoe.Procedure) (shoe.Procedure, error)) *shoe.Machine {
	t.Helper()
	ent, _ := catalog.Lookup(game)
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, err := shoe.ProcedureFor(fam, 0)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		if proc, err = edit(proc); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := catalog.New(games.Config{Game: game})
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", HandCount: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func read(c card.Card) shoe.Read { return shoe.Read{Kind: shoe.ReadCard, Card: c, Time: t0} }

// TestAttestedShoe: without a shuffler's link the dealer attests the decks, shuffled by hand;
// no device verifies them at the load, the count does: the dealer passes the cards left
// through the reading shoe, and a card missing from the pack is found there (RULES.md §1).
func TestAttestedShoe(t *testing.T) {
	for _, tc := range []struct {
		name  string
		skip  int // cards left the dealer does not pass (lost)
		extra string
		want  string
	}{
		{name: "complete", want: "ok"},
		{name: "a card missing", skip: 1, want: "1 card missing"},
		{name: "a foreign card", extra: "Ah", want: "1 card extra"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := machineWith(t, "three-card-poker", nil)
			refusedWith(t, m, shoe.NewCards{Counts: card.Decks(1), Attested: true, Time: t0}, "the dealer's id is required")
			ev := mustStep(t, m, shoe.NewCards{Counts: card.Decks(1), Attested: true, By: "supervisor.S1", Time: t0}, tablebus.ShoeLoaded, tablebus.Guide)
			if !ev[0].Attested || ev[0].By != "supervisor.S1" {
				t.Fatalf("loaded: %+v", ev[0])
			}
			ev = mustStep(t, m, shoe.ShuffleDone{Cards: 52, By: "hand", Time: t0}, tablebus.Shuffled, tablebus.Guide)
			if ev[0].By != "hand" || m.Phase() != shoe.Between {
				t.Fatalf("shuffled: %+v, phase %s", ev[0], m.Phase())
			}
			mustStep(t, m, shoe.OpenRound{Bets: []games.Bet{{Seat: 1, Spot: "ante", Amount: 1000}}, Time: t0}, tablebus.RoundOpened, tablebus.Guide)
			deck := card.Deck()
			for _, c := range deck[:6] { // box 1, then the dealer, three each
				if _, err := m.Step(read(c)); err != nil {
					t.Fatal(err)
				}
			}
			mustStep(t, m, shoe.PlayerDecision{Seat: 1, Choice: "fold", Time: t0}, tablebus.Decision, tablebus.Revealed, tablebus.Revealed, tablebus.Revealed,
				tablebus.RoundResult, tablebus.RoundSettled, tablebus.Guide) // the dealer's cards turn up
			if m.Phase() != shoe.Counting {
				t.Fatalf("phase %s after the round", m.Phase())
			}
			left := deck[6 : 52-tc.skip]
			if tc.extra != "" {
				left = append(left, card.MustParse(tc.extra))
			}
			for i, c := range left {
				ev := mustStep(t, m, read(c), tablebus.CardCounted, tablebus.Guide)
				if *ev[0].Card != c || ev[0].Count != i+1 || ev[0].Public().Card != nil {
					t.Fatalf("counted %d: %+v (public %+v)", i, ev[0], ev[0].Public())
				}
			}
			ev = mustStep(t, m, shoe.Read{Kind: shoe.ReadUnreadable, Time: t0}, tablebus.Fault, tablebus.Guide)
			if ev[0].Hold || !strings.Contains(ev[0].Problem, "pass it through the shoe again") {
				t.Errorf("an unread card at the count: %+v", ev[0])
			}
			if got := games.Text(games.English, ev[1].Msgs[0].Game()); got != fmt.Sprintf("the shoe is over: pass the cards left through the shoe (%d so far), then count them", len(left)) {
				t.Errorf("the count's guidance: %q", got)
			}
			evs, err := m.Step(shoe.LeftCounted{Counts: m.Counted(), By: "dealer.D7", Time: t0})
			if err != nil {
				t.Fatal(err)
			}
			end := evs[0]
			if end.Type != tablebus.ShoeEnded || end.By != "dealer.D7" {
				t.Fatalf("ended: %+v", end)
			}
			got := "ok"
			if !*end.OK {
				got = end.Problem
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("the count: %q, want %q", got, tc.want)
			}
		})
	}
}

// TestContinuousShuffler: a continuous shuffler's blackjack shoe has no cut, no stop card and
// no burn; every round's cards go back into the machine, said on the feed, so a card dealt in
// every round is never foreign; the dealer ends the shoe to count it, and the accounting
// counts what went back (RULES.md §1).
func TestContinuousShuffler(t *testing.T) {
	if _, err := machineWith(t, "blackjack", nil).Step(shoe.EndShoe{By: "d", Time: t0}); err == nil || !strings.Contains(err.Error(), "ends when its stop card comes out") {
		t.Fatalf("ending a shoe with a stop card: %v", err)
	}
	ent, _ := catalog.Lookup("punto-banco")
	fam, _ := shoe.ParseFamily(ent.Family)
	if p, _ := shoe.ProcedureFor(fam, 0); true {
		if _, err := p.WithContinuous(); err == nil {
			t.Fatal("a continuous shuffler for baccarat")
		}
	}
	m := machineWith(t, "blackjack", shoe.Procedure.WithContinuous)
	mustStep(t, m, shoe.NewCards{Counts: card.Decks(6), Attested: true, By: "supervisor.S1", Time: t0}, tablebus.ShoeLoaded, tablebus.Guide)
	mustStep(t, m, shoe.ShuffleDone{Cards: 312, By: "csm", Time: t0}, tablebus.Shuffled, tablebus.Guide)
	if m.Phase() != shoe.Between {
		t.Fatalf("phase %s: a continuous shuffler's shoe is cut and burned by nobody", m.Phase())
	}
	as, ts, sevens := card.MustParse("As"), card.MustParse("Ts"), card.MustParse("7h")
	dealt := 0
	for round := range 8 { // the A♠ dealt eight times from six decks: each went back
		mustStep(t, m, shoe.OpenRound{Bets: []games.Bet{{Seat: 1, Spot: "main", Amount: 1000}}, Time: t0}, tablebus.RoundOpened, tablebus.Guide)
		for _, c := range []card.Card{ts, sevens, as, ts} { // box T, dealer 7, box A: a blackjack; the dealer's 10
			evs, err := m.Step(read(c))
			if err != nil {
				t.Fatal(err)
			}
			dealt++
			last := evs[len(evs)-2]
			if evs[0].Type == tablebus.Fault {
				t.Fatalf("round %d: %+v", round+1, evs[0])
			}
			if last.Type == tablebus.CardsReturned {
				if last.Count != 4 {
					t.Fatalf("round %d: %d cards returned", round+1, last.Count)
				}
				g := evs[len(evs)-1]
				if !strings.Contains(games.Words([]games.Msg{g.Msgs[len(g.Msgs)-2].Game()})[0], "4 cards go back into the continuous shuffler") {
					t.Errorf("round %d: the guidance %q", round+1, g.Say)
				}
			}
		}
		if m.Phase() != shoe.Between || m.Left() != 312 {
			t.Fatalf("round %d: phase %s, %d left", round+1, m.Phase(), m.Left())
		}
		if rem := m.Remaining(); rem.Total() != 312 {
			t.Fatalf("round %d: %d remaining", round+1, rem.Total())
		}
	}
	ev := mustStep(t, m, shoe.EndShoe{By: "dealer.D7", Time: t0}, tablebus.CutCardReached, tablebus.Guide)
	if ev[0].By != "dealer.D7" || m.Phase() != shoe.Counting {
		t.Fatalf("the shoe ended: %+v, %s", ev[0], m.Phase())
	}
	for _, c := range card.Deck() {
		for range 6 {
			if _, err := m.Step(read(c)); err != nil {
				t.Fatal(err)
			}
		}
	}
	evs, err := m.Step(shoe.LeftCounted{Counts: m.Counted(), Time: t0})
	if err != nil {
		t.Fatal(err)
	}
	a := evs[0].Account
	if evs[0].Type != tablebus.ShoeEnded || !*evs[0].OK || a.Dealt != dealt || a.Left != 312 || a.Returned != dealt || a.Total != 312 {
		t.Fatalf("the accounting: %+v %+v %s", evs[0], a, evs[0].Problem)
	}
	if got := tablebus.Describe(evs[0]); !strings.Contains(got, "dealt 32 + burned 0 + left 312 − returned 32 = 312 of 312 — accounting OK") {
		t.Errorf("described: %s", got)
	}
}
