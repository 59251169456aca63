package shoe_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
)

var t0 = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

func newTable(t testing.TB, game string, seed uint64) (*shoetest.Table, *[]tablebus.Event) {
	t.Helper()
	ent, err := catalog.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	fam, err := shoe.ParseFamily(ent.Family)
	if err != nil {
		t.Fatal(err)
	}
	proc, err := shoe.ProcedureFor(fam, 0)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := catalog.New(games.Config{Game: game})
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1"})
	if err != nil {
		t.Fatal(err)
	}
	d := &shoetest.Dealer{ID: "dealer-7", Proc: proc, Rng: shoetest.Seeded(seed), Bettors: shoetest.BaccaratBettors(500, true)}
	tb := shoetest.NewTable(m, d, t0)
	var evs []tablebus.Event
	tb.Emit = func(e tablebus.Event) error { evs = append(evs, e); return nil }
	return tb, &evs
}

// checkShoe asserts the RULES.md §1 invariants over one shoe's events.
func checkShoe(t *testing.T, evs []tablebus.Event) {
	t.Helper()
	var burnPos = map[int]bool{}
	dealt, burned, cutSeen := 0, 0, false
	var first *card.Card
	burnWant := -1
	for _, e := range evs {
		switch e.Type {
		case tablebus.Burn:
			burned++
			burnPos[e.Pos] = true
			if first == nil {
				first = e.Card
				burnWant = e.Count
				if *e.Face != tablebus.FaceUp {
					t.Errorf("the first burn card is face down")
				}
				// RULES.md §1: as many burned as the first card's value, ten and court = 10.
				if e.Count != first.PipValue() {
					t.Errorf("first card %s: %d to burn, want %d", first, e.Count, first.PipValue())
				}
			} else if *e.Face != tablebus.FaceDown {
				t.Errorf("burn at %d face up", e.Pos)
			}
		case tablebus.CardDealt:
			dealt++
			if burnPos[e.Pos] {
				t.Errorf("position %d burned and dealt", e.Pos)
			}
		case tablebus.CutCardReached:
			cutSeen = true
			if e.Behind != 6 {
				t.Errorf("stop card with %d cards behind it, want 6", e.Behind)
			}
		case tablebus.RoundOpened:
			if cutSeen {
				t.Errorf("round %d opened after the stop card", e.Round)
			}
		case tablebus.Fault:
			t.Errorf("fault: %s: %s", e.Code, e.Problem)
		case tablebus.ShoeEnded:
			a := e.Account
			if !*e.OK || a.Dealt+a.Burned+a.Left != 416 || a.Dealt != dealt || a.Burned != burned {
				t.Errorf("accounting %+v ok=%v, counted dealt %d burned %d", *a, *e.OK, dealt, burned)
			}
		}
	}
	if burned != burnWant+1 {
		t.Errorf("burned %d, want %d", burned, burnWant+1)
	}
	if !cutSeen {
		t.Errorf("the stop card never came out")
	}
}

func TestPuntoBancoShoes(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			tb, evs := newTable(t, "punto-banco", seed)
			if err := tb.RunShoes(1, 10000); err != nil {
				t.Fatal(err)
			}
			checkShoe(t, *evs)
		})
	}
}

func TestMisreadHoldsAndManualEntryResumes(t *testing.T) {
	tb, evs := newTable(t, "punto-banco", 3)
	tb.MisreadEvery = 37
	if err := tb.RunShoes(1, 20000); err != nil {
		t.Fatal(err)
	}
	faults, manual := 0, 0
	var clean []tablebus.Event
	for _, e := range *evs {
		if e.Type == tablebus.Fault {
			faults++
			if e.Code != shoe.FaultMisread || !e.Hold {
				t.Errorf("fault %s hold=%v", e.Code, e.Hold)
			}
			continue
		}
		if e.Manual != nil {
			manual++
			if e.Manual.Dealer != "dealer-7" {
				t.Errorf("manual entry without the dealer: %+v", e.Manual)
			}
		}
		clean = append(clean, e)
	}
	if faults < 5 || faults != manual {
		t.Fatalf("%d misreads, %d manual entries", faults, manual)
	}
	checkShoe(t, clean)
}

func TestRefusals(t *testing.T) {
	tb, _ := newTable(t, "punto-banco", 1)
	m := tb.M
	if _, err := m.Step(shoe.CutDone{At: 100, Time: t0}); err == nil {
		t.Fatal("a cut before the cards were verified was accepted")
	}
	// An incomplete shoe: one 7h missing, an extra Kd.
	counts := card.Decks(8)
	counts.Remove(card.MustParse("7h"))
	counts.Add(card.MustParse("Kd"))
	evs, err := m.Step(shoe.NewCards{Counts: counts, Time: t0})
	if err != nil {
		t.Fatal(err)
	}
	var fault *tablebus.Event
	for i := range evs {
		if evs[i].Type == tablebus.Fault {
			fault = &evs[i]
		}
	}
	if fault == nil || fault.Code != shoe.FaultDeck || fault.Problem != "416 cards read, 416 expected: 1 card missing, 1 extra" ||
		fmt.Sprint(fault.Missing, fault.Extra) != "[7h] [Kd]" {
		t.Fatalf("deck fault: %+v", fault)
	}
	if _, err := m.Step(shoe.ShuffleDone{Cards: 416, Time: t0}); err == nil {
		t.Fatal("shuffled while held for an incomplete deck")
	}
	// The cards are fixed and read again.
	if _, err := m.Step(shoe.NewCards{Counts: card.Decks(8), Time: t0}); err != nil || m.Phase() != shoe.Verified {
		t.Fatalf("re-verify: %v, phase %v", err, m.Phase())
	}
	if _, err := m.Step(shoe.ShuffleDone{Cards: 416, Time: t0}); err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, 51, 365, 416} {
		if _, err := m.Step(shoe.CutDone{At: at, Time: t0}); err == nil {
			t.Errorf("cut at %d accepted (RULES.md §1: 52 cards at each end)", at)
		}
	}
	if _, err := m.Step(shoe.CutDone{At: 52, Time: t0}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{5, 7, 52} {
		if _, err := m.Step(shoe.CutCardPlaced{Behind: b, Time: t0}); err == nil {
			t.Errorf("stop card %d behind accepted (RULES.md §1: exactly 6)", b)
		}
	}
}

func TestForeignCard(t *testing.T) {
	tb, _ := newTable(t, "punto-banco", 1)
	m := tb.M
	steps := []shoe.Input{
		shoe.NewCards{Counts: card.Decks(8), Time: t0},
		shoe.ShuffleDone{Cards: 416, Time: t0},
		shoe.CutDone{At: 200, Time: t0},
		shoe.CutCardPlaced{Behind: 6, Time: t0},
		shoe.Read{Kind: shoe.ReadCard, Card: card.MustParse("Kc"), Time: t0}, // burn indicator: 10
	}
	for _, in := range steps {
		if _, err := m.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	as := card.MustParse("As")
	for i := range 8 { // eight A♠ burned: the shoe holds no more
		if _, err := m.Step(shoe.Read{Kind: shoe.ReadCard, Card: as, Time: t0}); err != nil {
			t.Fatal(i, err)
		}
	}
	evs, err := m.Step(shoe.Read{Kind: shoe.ReadCard, Card: as, Time: t0})
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Type != tablebus.Fault || evs[0].Code != shoe.FaultForeign || !evs[0].Hold {
		t.Fatalf("ninth A♠: %+v", evs[0])
	}
	if _, err := m.Step(shoe.ManualCard{Card: card.MustParse("2h"), Dealer: "d", Time: t0}); err == nil {
		t.Fatal("manual entry resolved a foreign card")
	}
	if _, err := m.Step(shoe.VoidRound{Reason: "foreign card removed", Dealer: "d", Time: t0}); err != nil {
		t.Fatal(err)
	}
	if m.Held() != "" {
		t.Fatalf("still held: %s", m.Held())
	}
}

// A table configured to burn nothing deals its first round from the first card (RULES.md §1:
// the burn is configurable), and a table that burns 3 burns 3.
func TestConfiguredBurn(t *testing.T) {
	for _, spec := range []string{"0", "3"} {
		proc, _ := shoe.ProcedureFor(shoe.Blackjack, 0)
		proc, err := proc.WithBurn(spec)
		if err != nil {
			t.Fatal(err)
		}
		eng, _ := catalog.New(games.Config{Game: "blackjack"})
		m, _ := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1"})
		tb := shoetest.NewTable(m, shoetest.NewDealer("blackjack", proc, 3), t0)
		var evs []tablebus.Event
		tb.Emit = func(e tablebus.Event) error { evs = append(evs, e); return nil }
		if err := tb.RunShoes(1, 20000); err != nil {
			t.Fatal(err)
		}
		burns := 0
		for _, e := range evs {
			if e.Type == tablebus.Burn {
				burns++
			}
			if e.Type == tablebus.ShoeEnded && !*e.OK {
				t.Fatalf("burn %s: %s", spec, e.Problem)
			}
		}
		if fmt.Sprint(burns) != spec {
			t.Fatalf("burn %s: %d burned", spec, burns)
		}
	}
}

// failingEngine settles nothing: its Outcome fails, as an engine missing a configuration would.
type failingEngine struct{ games.Engine }

func (failingEngine) Outcome() (*games.Outcome, error) {
	return nil, fmt.Errorf("the progressive pool's value is not known")
}

// An engine that cannot settle a complete round holds it; the dealer voids it and every bet
// pushes: nothing is settled on doubt, and the shoe goes on.
func TestEngineFailureHolds(t *testing.T) {
	proc, _ := shoe.ProcedureFor(shoe.Baccarat, 0)
	eng, _ := catalog.New(games.Config{Game: "punto-banco"})
	m, _ := shoe.NewMachine(shoe.Config{Proc: proc, Engine: failingEngine{eng}, Table: "T1"})
	tb := shoetest.NewTable(m, shoetest.NewDealer("punto-banco", proc, 8), t0)
	var evs []tablebus.Event
	tb.Emit = func(e tablebus.Event) error { evs = append(evs, e); return nil }
	if err := tb.RunShoes(1, 50000); err != nil {
		t.Fatal(err)
	}
	holds, voids, settled := 0, 0, 0
	for _, e := range evs {
		switch e.Type {
		case tablebus.Fault:
			if e.Code != shoe.FaultEngine || !e.Hold {
				t.Fatalf("fault %s", e.Code)
			}
			holds++
		case tablebus.RoundVoided:
			voids++
			if *e.Net != 0 {
				t.Fatalf("a voided round settled %d", *e.Net)
			}
		case tablebus.RoundSettled:
			settled++
		case tablebus.ShoeEnded:
			if !*e.OK {
				t.Fatal(e.Problem)
			}
		}
	}
	if holds < 50 || holds != voids || settled != 0 {
		t.Fatalf("%d holds, %d voids, %d settled", holds, voids, settled)
	}
}
