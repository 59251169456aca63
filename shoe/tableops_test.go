package shoe_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// toBetween steps a punto banco machine through a new shoe to its first bets: the burn is the
// first card, a ten, then ten more.
func toBetween(t *testing.T, m *shoe.Machine) {
	t.Helper()
	steps := []shoe.Input{
		shoe.NewCards{Counts: card.Decks(8), Time: t0},
		shoe.ShuffleDone{Cards: 416, Time: t0},
		shoe.CutDone{At: 200, Time: t0},
		shoe.CutCardPlaced{Behind: 6, Time: t0},
		shoe.Read{Kind: shoe.ReadCard, Card: card.MustParse("Kc"), Time: t0},
	}
	for _, c := range []string{"2d", "3d", "4d", "5d", "6d", "7d", "8d", "9d", "Td", "Jd"} {
		steps = append(steps, shoe.Read{Kind: shoe.ReadCard, Card: card.MustParse(c), Time: t0})
	}
	for _, in := range steps {
		if _, err := m.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	if m.Phase() != shoe.Between {
		t.Fatalf("phase %s after the burn", m.Phase())
	}
}

func types(evs []tablebus.Event) []tablebus.Type {
	var out []tablebus.Type
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func mustStep(t *testing.T, m *shoe.Machine, in shoe.Input, want ...tablebus.Type) []tablebus.Event {
	t.Helper()
	evs, err := m.Step(in)
	if err != nil {
		t.Fatalf("%T: %v", in, err)
	}
	if got := types(evs); !reflect.DeepEqual(got, want) {
		t.Fatalf("%T: events %v, want %v", in, got, want)
	}
	return evs
}

func refusedWith(t *testing.T, m *shoe.Machine, in shoe.Input, want string) {
	t.Helper()
	evs, err := m.Step(in)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%T: %v (events %v), want a refusal saying %q", in, err, types(evs), want)
	}
}

// TestTableOps: the table closes between rounds and opens again, each signed by who gave it;
// closed, it opens no round; a dealer signing in or out changes nothing the table waits for.
func TestTableOps(t *testing.T) {
	tb, _ := newTable(t, "punto-banco", 1)
	m := tb.M
	toBetween(t, m)
	ev := mustStep(t, m, shoe.TableOp{Op: shoe.OpSignIn, By: "dealer.D7", Time: t0}, tablebus.DealerSignedIn)
	if ev[0].By != "dealer.D7" || ev[0].Shoe != "T1-000001" {
		t.Errorf("signed in: %+v", ev[0])
	}
	refusedWith(t, m, shoe.TableOp{Op: shoe.OpOpen, By: "s", Time: t0}, "open: the table is open")
	refusedWith(t, m, shoe.TableOp{Op: shoe.OpClose, Time: t0}, "who gives it is required")
	ev = mustStep(t, m, shoe.TableOp{Op: shoe.OpClose, By: "dealer.D7", Approved: "supervisor.S1", Time: t0}, tablebus.TableClosed, tablebus.Guide)
	if ev[0].Approved != "supervisor.S1" || len(ev[1].Msgs) != 1 || ev[1].Msgs[0].Code != "table.closed" {
		t.Errorf("closed: %+v %+v", ev[0], ev[1])
	}
	bets := []games.Bet{{Seat: 1, Spot: "banker", Amount: 1000}}
	refusedWith(t, m, shoe.OpenRound{Bets: bets, Time: t0}, "the table is closed: a supervisor opens it")
	mustStep(t, m, shoe.TableOp{Op: shoe.OpOpen, By: "supervisor.S1", Time: t0}, tablebus.TableOpened, tablebus.Guide)
	ev = mustStep(t, m, shoe.OpenRound{Bets: bets, Dealer: "dealer.D7", Time: t0}, tablebus.RoundOpened, tablebus.Guide)
	if ev[0].By != "dealer.D7" {
		t.Errorf("bets closed by %q", ev[0].By)
	}
	refusedWith(t, m, shoe.TableOp{Op: shoe.OpClose, By: "s", Time: t0}, "close: the table is in-round; finish or void the round first")
	mustStep(t, m, shoe.TableOp{Op: shoe.OpSignOut, By: "dealer.D7", Reason: "inactive", Time: t0}, tablebus.DealerSignedOut)
	refusedWith(t, m, shoe.TableOp{Op: shoe.OpSignOut, By: "dealer.D7", Reason: "dropped the Kd", Time: t0}, "the reason names a card")
}

// TestLimitsChange: new limits between rounds only, every spot's published, and the next bets
// are held to them.
func TestLimitsChange(t *testing.T) {
	tb, _ := newTable(t, "punto-banco", 1)
	m := tb.M
	toBetween(t, m)
	refusedWith(t, m, shoe.ChangeLimits{Limits: []games.Limit{{Spot: "dragon", Min: 1, Max: 2}}, Dealer: "d", Time: t0}, "not a spot of the layout")
	ls := []games.Limit{{Spot: "banker", Min: 1000, Max: 5000}, {Spot: "player", Min: 1000, Max: 5000}, {Spot: "tie", Min: 100, Max: 500}}
	ev := mustStep(t, m, shoe.ChangeLimits{Limits: ls, Dealer: "dealer.D7", Supervisor: "supervisor.S1", Time: t0}, tablebus.LimitsChanged)
	if !reflect.DeepEqual(ev[0].Limits, tablebus.LimitsOf(ls)) || ev[0].By != "dealer.D7" || ev[0].Approved != "supervisor.S1" {
		t.Fatalf("limits changed: %+v", ev[0])
	}
	refusedWith(t, m, shoe.OpenRound{Bets: []games.Bet{{Seat: 1, Spot: "banker", Amount: 500}}, Time: t0}, "outside the table's banker limit 1000–5000")
	mustStep(t, m, shoe.OpenRound{Bets: []games.Bet{{Seat: 1, Spot: "banker", Amount: 1000}}, Time: t0}, tablebus.RoundOpened, tablebus.Guide)
	refusedWith(t, m, shoe.ChangeLimits{Limits: ls, Dealer: "d", Time: t0}, "between rounds, not during one")
}

// TestForeignCardApproved: a card the shoe cannot hold holds the table; the dealer alone may
// only void, and with a supervisor's approval (who saw a genuine card read wrongly) the card is
// entered by hand at its place, and the shoe's count is whole again (RULES.md §1).
func TestForeignCardApproved(t *testing.T) {
	tb, _ := newTable(t, "punto-banco", 1)
	m := tb.M
	for _, in := range []shoe.Input{
		shoe.NewCards{Counts: card.Decks(8), Time: t0},
		shoe.ShuffleDone{Cards: 416, Time: t0},
		shoe.CutDone{At: 200, Time: t0},
		shoe.CutCardPlaced{Behind: 6, Time: t0},
		shoe.Read{Kind: shoe.ReadCard, Card: card.MustParse("Kc"), Time: t0}, // burn indicator: 10
	} {
		if _, err := m.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	as := card.MustParse("As")
	for range 8 { // eight A♠ burned: the shoe holds no more
		mustStep(t, m, shoe.Read{Kind: shoe.ReadCard, Card: as, Time: t0}, tablebus.Burn, tablebus.Guide)
	}
	ev := mustStep(t, m, shoe.Read{Kind: shoe.ReadCard, Card: as, Time: t0}, tablebus.Fault, tablebus.Guide)
	if ev[0].Code != shoe.FaultForeign || ev[0].Pos != 10 || ev[1].Msgs[0].Code != "hold.foreign-card" {
		t.Fatalf("the ninth A♠: %+v %+v", ev[0], ev[1])
	}
	rem := m.Remaining()
	if left := m.Left(); rem.Total() != left+1 {
		t.Fatalf("held: %d left, %d remaining: the foreign card takes a place, not a card", left, rem.Total())
	}
	h2 := card.MustParse("2h")
	refusedWith(t, m, shoe.ManualCard{Card: h2, Dealer: "dealer.D7", Time: t0}, "needs a supervisor's approval")
	refusedWith(t, m, shoe.ManualCard{Card: as, Dealer: "dealer.D7", Supervisor: "supervisor.S1", Time: t0}, "the shoe holds no more of the card entered")
	ev = mustStep(t, m, shoe.ManualCard{Card: h2, Dealer: "dealer.D7", Supervisor: "supervisor.S1", Time: t0}, tablebus.FaultResolved, tablebus.Burn, tablebus.Guide)
	if ev[0].Code != shoe.FaultForeign || ev[0].By != "dealer.D7" || ev[0].Approved != "supervisor.S1" || *ev[0].Card != h2 {
		t.Errorf("resolved: %+v", ev[0])
	}
	if ev[1].Pos != 10 || *ev[1].Card != h2 || ev[1].Manual == nil || ev[1].Manual.Dealer != "dealer.D7" {
		t.Errorf("the card entered: %+v", ev[1])
	}
	if m.Held() != "" {
		t.Fatalf("still held: %s", m.Held())
	}
	if rem = m.Remaining(); rem.Total() != m.Left() {
		t.Fatalf("after the entry: %d left, %d remaining", m.Left(), rem.Total())
	}

	// A second card fault in the same hold: only voiding resolves it.
	tb2, _ := newTable(t, "punto-banco", 1)
	m2 := tb2.M
	toBetween(t, m2)
	mustStep(t, m2, shoe.OpenRound{Time: t0}, tablebus.RoundOpened, tablebus.Guide)
	for i := range 9 { // the ninth A♠ is foreign
		if _, err := m2.Step(shoe.Read{Kind: shoe.ReadCard, Card: as, Time: t0}); err != nil {
			t.Fatal(err)
		}
		if h := m2.Held(); h != "" && (i < 8 || h != shoe.FaultForeign) {
			t.Fatalf("A♠ %d: held %s", i+1, h)
		}
	}
	mustStep(t, m2, shoe.Read{Kind: shoe.ReadCard, Card: h2, Time: t0}, tablebus.Fault, tablebus.Guide) // card while held
	refusedWith(t, m2, shoe.ManualCard{Card: h2, Dealer: "d", Supervisor: "s", Time: t0}, "can only be resolved by voiding")
	ev = mustStep(t, m2, shoe.VoidRound{Reason: "two cards out of order", Dealer: "dealer.D7", Supervisor: "supervisor.S1", Time: t0},
		tablebus.FaultResolved, tablebus.RoundVoided, tablebus.Guide)
	if ev[1].By != "dealer.D7" || ev[1].Approved != "supervisor.S1" {
		t.Errorf("voided: %+v", ev[1])
	}
}

// TestTableStateSurvivesRestart: a table closed, and limits changed, in one shoe stay so after
// a restart in a later one (the journal's last table.closed and limits.changed).
func TestTableStateSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "T1.db")
	j, ob := openJournal(t, path)
	m := restore(t, j, games.Config{Game: "punto-banco"})
	emit := func(in shoe.Input) {
		t.Helper()
		b, err := shoe.MarshalInput(in)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := m.Step(in)
		if err != nil {
			t.Fatalf("%T: %v", in, err)
		}
		if err := ob.Emit(context.Background(), b, evs); err != nil {
			t.Fatal(err)
		}
	}
	emit(shoe.ChangeLimits{Limits: []games.Limit{{Spot: "banker", Min: 2000, Max: 9000}}, Dealer: "d", Supervisor: "s", Time: t0})
	emit(shoe.TableOp{Op: shoe.OpClose, By: "s", Time: t0})
	emit(shoe.NewCards{Counts: card.Decks(8), By: "s", Time: t0})
	j.Close()

	j, _ = openJournal(t, path)
	defer j.Close()
	m = restore(t, j, games.Config{Game: "punto-banco"})
	if !m.Closed() || m.Phase() != shoe.Verified {
		t.Fatalf("restored: closed %v, phase %s", m.Closed(), m.Phase())
	}
	for _, in := range []shoe.Input{shoe.ShuffleDone{Cards: 416, Time: t0}, shoe.CutDone{At: 200, Time: t0}, shoe.CutCardPlaced{Behind: 6, Time: t0},
		shoe.Read{Kind: shoe.ReadCard, Card: card.MustParse("Kc"), Time: t0}} {
		if _, err := m.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc"} {
		if _, err := m.Step(shoe.Read{Kind: shoe.ReadCard, Card: card.MustParse(c), Time: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if m.Phase() != shoe.Between {
		t.Fatalf("phase %s after the burn", m.Phase())
	}
	refusedWith(t, m, shoe.OpenRound{Bets: []games.Bet{{Seat: 1, Spot: "banker", Amount: 1000}}, Time: t0}, "the table is closed")
	mustStep(t, m, shoe.TableOp{Op: shoe.OpOpen, By: "s", Time: t0}, tablebus.TableOpened, tablebus.Guide)
	refusedWith(t, m, shoe.OpenRound{Bets: []games.Bet{{Seat: 1, Spot: "banker", Amount: 1000}}, Time: t0}, "outside the table's banker limit 2000–9000")
}

// TestTableInputsJournal: the new inputs and fields survive the journal's form.
func TestTableInputsJournal(t *testing.T) {
	for _, in := range []shoe.Input{
		shoe.TableOp{Op: shoe.OpSignOut, By: "dealer.D7", Approved: "s", Reason: "inactive", Time: t0},
		shoe.ChangeLimits{Limits: []games.Limit{{Spot: "tie", Min: 100, Max: 500}}, Dealer: "d", Supervisor: "s", Time: t0},
		shoe.ChangeLimits{Limits: []games.Limit{}, Dealer: "d", Time: t0},
		shoe.ManualCard{Card: card.MustParse("Qh"), Dealer: "d", Supervisor: "s", Time: t0},
		shoe.VoidRound{Reason: "r", Dealer: "d", Supervisor: "s", Time: t0},
		shoe.OpenRound{Bets: []games.Bet{{Seat: 2, Spot: "tie", Amount: 100}}, Dealer: "d", Time: t0},
		shoe.PlayerDecision{Seat: 2, Choice: "H", Dealer: "d", Time: t0},
		shoe.NewCards{Counts: card.Decks(1), By: "s", Time: t0},
		shoe.LeftCounted{Counts: card.Decks(1), By: "d", Time: t0},
	} {
		b, err := shoe.MarshalInput(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := shoe.UnmarshalInput(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, in) {
			t.Errorf("journaled %s, read back %+v, want %+v", b, back, in)
		}
	}
}
