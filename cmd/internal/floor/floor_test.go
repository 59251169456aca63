package floor

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

var t0 = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

// feed builds a table's events with consecutive sequence numbers.
type feed struct {
	table string
	seq   uint64
	round uint64
	at    time.Time
}

func (f *feed) ev(typ tablebus.Type, fill func(*tablebus.Event)) Delivery {
	f.seq++
	f.at = f.at.Add(500 * time.Millisecond)
	e := tablebus.Event{V: 1, Seq: f.seq, Type: typ, Table: f.table, Source: "table", Session: 3,
		Shoe: f.table + "-000001", Round: f.round, TS: f.at}
	if fill != nil {
		fill(&e)
	}
	return Delivery{Event: &e}
}

func cardP(s string) *card.Card            { c := card.MustParse(s); return &c }
func faceP(f tablebus.Face) *tablebus.Face { return &f }
func boolP(b bool) *bool                   { return &b }
func int64P(n int64) *int64                { return &n }

func (f *feed) card(c string, to tablebus.Place, face tablebus.Face, pos int) Delivery {
	return f.ev(tablebus.CardDealt, func(e *tablebus.Event) {
		e.Card, e.To, e.Face, e.Pos = cardP(c), &to, faceP(face), pos
	})
}

func newFloor() *Floor { return New(Options{Now: func() time.Time { return t0 }}) }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBaccaratRound follows a punto banco coup: the hands and running totals as the cards come,
// the engine's guidance, then the result, the roads and the settlement.
func TestBaccaratRound(t *testing.T) {
	fl := newFloor()
	f := &feed{table: "T1", at: t0}
	fl.Apply(f.ev(tablebus.ShoeLoaded, func(e *tablebus.Event) { e.Game, e.Decks, e.Count = "punto-banco", 8, 416 }))
	fl.Apply(f.ev(tablebus.CutCardPlaced, func(e *tablebus.Event) { e.Behind = 6 }))
	fl.Apply(f.ev(tablebus.Burn, func(e *tablebus.Event) { e.Card, e.Face, e.Pos, e.Count = cardP("2s"), faceP(tablebus.FaceUp), 1, 2 }))
	fl.Apply(f.ev(tablebus.Burn, func(e *tablebus.Event) { e.Card, e.Face, e.Pos = cardP("9h"), faceP(tablebus.FaceDown), 2 }))
	fl.Apply(f.ev(tablebus.Burn, func(e *tablebus.Event) { e.Card, e.Face, e.Pos = cardP("Kd"), faceP(tablebus.FaceDown), 3 }))
	f.round = 1
	bets := []tablebus.Bet{{Seat: 1, Spot: "player", Amount: 5000}, {Seat: 3, Spot: "banker", Amount: 2500}}
	fl.Apply(f.ev(tablebus.RoundOpened, func(e *tablebus.Event) { e.Game, e.Bets = "punto-banco", bets }))
	player, banker := tablebus.Place{Name: "player"}, tablebus.Place{Name: "banker"}
	fl.Apply(f.card("4h", player, tablebus.FaceUp, 4))
	fl.Apply(f.card("9d", banker, tablebus.FaceUp, 5))
	fl.Apply(f.card("Ac", player, tablebus.FaceUp, 6))
	fl.Apply(f.ev(tablebus.Guide, func(e *tablebus.Event) {
		e.State, e.Need, e.Say = "in-round", &tablebus.Need{Kind: tablebus.NeedCard, To: banker}, []string{"card to banker"}
	}))

	v, ok := fl.Table("T1")
	if !ok {
		t.Fatal("no table T1")
	}
	if got, want := v.Game+"/"+v.Family, "punto-banco/baccarat"; got != want {
		t.Errorf("game %s, want %s", got, want)
	}
	if got, want := mustJSON(t, v.Shoe), `{"id":"T1-000001","decks":8,"total":416,"out":6,"dealt":3,"burned":3,"left":410,"cut_behind":6}`; got != want {
		t.Errorf("shoe\n got %s\nwant %s", got, want)
	}
	if got, want := mustJSON(t, v.Round.Hands), `[{"place":{"name":"player"},"label":"Player","cards":[{"card":"4h","pos":4},{"card":"Ac","pos":6}],"total":"5"},{"place":{"name":"banker"},"label":"Banker","cards":[{"card":"9d","pos":5}],"total":"9"}]`; got != want {
		t.Errorf("hands\n got %s\nwant %s", got, want)
	}
	if v.Need != "card to banker" || v.State != "in-round" || v.Round.Stake != 7500 || v.Round.State != "dealing" {
		t.Errorf("need %q state %q stake %d round state %q", v.Need, v.State, v.Round.Stake, v.Round.State)
	}

	fl.Apply(f.card("Th", banker, tablebus.FaceUp, 7))
	fl.Apply(f.ev(tablebus.RoundResult, func(e *tablebus.Event) {
		e.Game, e.Result = "punto-banco", "banker"
		e.Hands = []tablebus.Hand{
			{Name: "player", Cards: []card.Card{card.MustParse("4h"), card.MustParse("Ac")}, Total: 5, Outcome: "lose"},
			{Name: "banker", Cards: []card.Card{card.MustParse("9d"), card.MustParse("Th")}, Total: 9, Outcome: "win"},
		}
	}))
	fl.Apply(f.ev(tablebus.RoundSettled, func(e *tablebus.Event) {
		e.Settle = []tablebus.Settlement{{Seat: 1, Spot: "player", Amount: 5000, Net: -5000}, {Seat: 3, Spot: "banker", Amount: 2500, Net: 2375}}
		e.Net = int64P(-2625)
	}))
	v, _ = fl.Table("T1")
	if got, want := mustJSON(t, v.Round.Hands), `[{"place":{"name":"player"},"label":"Player","cards":[{"card":"4h","pos":4},{"card":"Ac","pos":6}],"total":"5","outcome":"lose"},{"place":{"name":"banker"},"label":"Banker","cards":[{"card":"9d","pos":5},{"card":"Th","pos":7}],"total":"9","outcome":"win"}]`; got != want {
		t.Errorf("hands after the result\n got %s\nwant %s", got, want)
	}
	if got, want := mustJSON(t, v.Recent), `[{"round":1,"result":"banker","summary":"banker · player 5 · banker 9","net":-2625}]`; got != want {
		t.Errorf("recent\n got %s\nwant %s", got, want)
	}
	if v.Round.State != "settled" || *v.Round.Net != -2625 {
		t.Errorf("round state %q net %d", v.Round.State, *v.Round.Net)
	}
	if got, want := mustJSON(t, v.Roads.BigRoad), `[{"col":0,"row":0,"result":"banker","natural":true,"streak":0,"length":1,"coup":1}]`; got != want {
		t.Errorf("big road\n got %s\nwant %s", got, want)
	}
	if s := fl.Snapshot(0); len(s.Alerts) != 0 {
		t.Errorf("alerts %+v, want none", s.Alerts)
	}
}

// TestHiddenHoleCard: on the public feed a face-down card has no identity until its reveal.
func TestHiddenHoleCard(t *testing.T) {
	fl := newFloor()
	f := &feed{table: "B2", at: t0, round: 7}
	fl.Apply(f.ev(tablebus.RoundOpened, func(e *tablebus.Event) {
		e.Game, e.Bets = "blackjack", []tablebus.Bet{{Seat: 2, Spot: "main", Amount: 1000}}
	}))
	box, dealer := tablebus.Place{Name: "box", Seat: 2}, tablebus.Place{Name: "dealer"}
	fl.Apply(f.card("Ad", box, tablebus.FaceUp, 11))
	fl.Apply(f.card("9s", dealer, tablebus.FaceUp, 12))
	fl.Apply(f.card("6h", box, tablebus.FaceUp, 13))
	fl.Apply(f.ev(tablebus.CardDealt, func(e *tablebus.Event) {
		e.To, e.Face, e.Pos, e.Hidden = &dealer, faceP(tablebus.FaceDown), 14, true
	}))
	fl.Apply(f.ev(tablebus.Decision, func(e *tablebus.Event) { e.Seat, e.Choice = 2, "S" }))
	v, _ := fl.Table("B2")
	if got, want := mustJSON(t, v.Round.Hands), `[{"place":{"name":"dealer"},"label":"Dealer","cards":[{"card":"9s","pos":12},{"down":true,"hidden":true,"pos":14}]},{"place":{"name":"box","seat":2},"label":"Seat 2","cards":[{"card":"Ad","pos":11},{"card":"6h","pos":13}],"total":"soft 17","decisions":["stand"]}]`; got != want {
		t.Errorf("hands\n got %s\nwant %s", got, want)
	}
	fl.Apply(f.ev(tablebus.Revealed, func(e *tablebus.Event) { e.Pos, e.Card = 14, cardP("7c") }))
	v, _ = fl.Table("B2")
	if got, want := mustJSON(t, v.Round.Hands[0]), `{"place":{"name":"dealer"},"label":"Dealer","cards":[{"card":"9s","pos":12},{"card":"7c","pos":14}],"total":"16"}`; got != want {
		t.Errorf("dealer after the reveal\n got %s\nwant %s", got, want)
	}
}

// TestAlerts raises each kind of alert the feed can cause and checks the strip: what it says,
// that it stays after the table resolved the fault, and how acknowledgement works.
func TestAlerts(t *testing.T) {
	fl := newFloor()
	f := &feed{table: "T1", at: t0, round: 5}
	fl.Apply(f.ev(tablebus.ShoeLoaded, func(e *tablebus.Event) { e.Game, e.Decks, e.Count = "punto-banco", 8, 416 }))
	misread := fl.Apply(f.ev(tablebus.Fault, func(e *tablebus.Event) {
		e.Code, e.Problem, e.Hold = "misread", "the card could not be read with confidence", true
	}))
	fl.Apply(f.ev(tablebus.FaultResolved, func(e *tablebus.Event) {
		e.Code, e.Reason, e.Card, e.By = "misread", "manual entry", cardP("4s"), "d-117"
	}))
	fl.Apply(f.ev(tablebus.Fault, func(e *tablebus.Event) {
		e.Code, e.Problem, e.Hold, e.Card = "out-of-turn", "punto-banco: card out of turn: player stands on 6", true, cardP("5h")
	}))
	fl.Apply(f.ev(tablebus.Fault, func(e *tablebus.Event) {
		e.Code, e.Problem, e.Hold, e.Card = "foreign-card", "the shoe's 8 decks hold no more of the card at position 99 (a foreign or counterfeit card)", true, cardP("Qs")
	}))
	fl.Apply(f.ev(tablebus.Fault, func(e *tablebus.Event) {
		e.Code, e.Problem = "shoe-link", "shoe: the shoe's serial link went down"
	}))
	// A gap: events 7 and 8 never arrive.
	f.seq += 2
	fl.Apply(f.ev(tablebus.Guide, func(e *tablebus.Event) { e.State = "in-round" }))
	fl.Apply(Delivery{Problem: &Problem{Table: "T1", Kind: ProblemForged, Detail: "event 12: signature does not verify with key k1"}})
	fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T1", Online: false, Session: 3, Seq: 12, TS: t0}})
	// An engine's alarm on its own stream.
	fl.Apply(Delivery{Event: &tablebus.Event{V: 1, Seq: 1, Type: tablebus.Fault, Table: "T1", Source: "check", Round: 5, TS: t0,
		Code: "engine-mismatch", Problem: "round 5: the daemon's result differs from the engine's"}})

	if len(misread) != 1 || misread[0].ID != 1 {
		t.Fatalf("the misread raised %+v", misread)
	}
	s := fl.Snapshot(0)
	var got []string
	for _, a := range s.Alerts {
		got = append(got, strings.Join([]string{string(a.Severity), string(a.Kind), a.Title, a.Text, a.Resolved}, " | "))
	}
	want := []string{
		"critical | engine-alarm | Engine alarm | engine check: round 5: the daemon's result differs from the engine's | ",
		"critical | daemon-offline | Daemon offline | the daemon of table T1 is offline (session 3, last event #12): no card can come from it | ",
		"critical | forged-event | Forged event | event 12: signature does not verify with key k1 | ",
		"critical | foreign-card | Foreign card | Qs: the shoe's 8 decks hold no more of the card at position 99 (a foreign or counterfeit card) (table held) | ",
		"critical | tableau | Dealer error against the tableau | 5h: punto-banco: card out of turn: player stands on 6 (table held) | ",
		"warning | feed | Feed problem | events 7 to 8 are missing from the feed | ",
		"warning | device-fault | Device fault | shoe: the shoe's serial link went down | ",
		"warning | misread | Misread | the card could not be read with confidence (table held) | manual entry of 4s by d-117",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("alerts\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	v, _ := fl.Table("T1")
	if got, want := mustJSON(t, v.Devices), `[{"name":"reading shoe","state":"fault","detail":"shoe: the shoe's serial link went down","since":"2026-11-29T20:00:03Z"}]`; got != want {
		t.Errorf("devices\n got %s\nwant %s", got, want)
	}
	if v.Online == nil || *v.Online {
		t.Errorf("online %v, want false", v.Online)
	}

	// Acknowledgement: a name is required; the first one stands; unknown ids are errors.
	if err := fl.Ack(1, "  "); !errors.Is(err, ErrNoName) {
		t.Errorf("ack without a name: %v", err)
	}
	if err := fl.Ack(99, "s-4"); !errors.Is(err, ErrNoAlert) {
		t.Errorf("ack of alert 99: %v", err)
	}
	if err := fl.Ack(1, "s-4"); err != nil {
		t.Fatal(err)
	}
	if err := fl.Ack(1, "s-5"); err != nil {
		t.Fatal(err)
	}
	s = fl.Snapshot(0)
	last := s.Alerts[len(s.Alerts)-1]
	if last.ID != 1 || last.AckBy != "s-4" || !last.AckAt.Equal(t0) || last.Open() {
		t.Errorf("acknowledged alert %+v", last)
	}
}

// TestRepeatedAlert: the same alert again before anyone acknowledges it counts up.
func TestRepeatedAlert(t *testing.T) {
	fl := newFloor()
	for range 3 {
		fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T9", Online: true, TS: t0}})
		fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T9", Online: false, Session: 1, Seq: 4, TS: t0}})
	}
	s := fl.Snapshot(0)
	if len(s.Alerts) != 1 || s.Alerts[0].Count != 3 {
		t.Fatalf("alerts %+v, want one counted 3 times", s.Alerts)
	}
	if err := fl.Ack(s.Alerts[0].ID, "s-1"); err != nil {
		t.Fatal(err)
	}
	fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T9", Online: true, TS: t0}})
	fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T9", Online: false, Session: 2, Seq: 4, TS: t0}})
	s = fl.Snapshot(0)
	if len(s.Alerts) != 2 || !s.Alerts[0].Open() || s.Alerts[0].ID != 2 {
		t.Fatalf("after the acknowledgement a new death is a new alert: %+v", s.Alerts)
	}
}

// TestRefusedCommandsOneAlert: every refused command is a fault on the feed; the strip shows
// them as one alert that counts, so that a flood of them buries no other alert.
func TestRefusedCommandsOneAlert(t *testing.T) {
	fl := newFloor()
	f := &feed{table: "T1", at: t0}
	for i := range 40 {
		fl.Apply(f.ev(tablebus.Fault, func(e *tablebus.Event) {
			e.Code, e.Reason, e.Problem = "command-refused", "unsigned", fmt.Sprintf(`command "count" (id "c%d") refused (unsigned): …`, i)
		}))
	}
	fl.Apply(f.ev(tablebus.Fault, func(e *tablebus.Event) { e.Code, e.Problem, e.Hold = shoe.FaultForeign, "a card no deck holds", true }))
	s := fl.Snapshot(0)
	counts := map[string]int{}
	for _, a := range s.Alerts {
		counts[a.Code] += a.Count
	}
	if len(s.Alerts) != 2 || counts["command-refused"] != 40 || counts[shoe.FaultForeign] != 1 {
		t.Fatalf("alerts %+v, want the refusals counted in one, and the foreign card's", s.Alerts)
	}
}

// TestDuplicatesAndPrime: an event seen already changes nothing; primed history raises no alert.
func TestDuplicatesAndPrime(t *testing.T) {
	fl := newFloor()
	f := &feed{table: "T1", at: t0, round: 1}
	d := f.ev(tablebus.Fault, func(e *tablebus.Event) { e.Code, e.Problem = "misread", "unreadable" })
	fl.Prime(d)
	if s := fl.Snapshot(0); len(s.Alerts) != 0 || s.Tables[0].Seq != 1 {
		t.Fatalf("primed: alerts %+v seq %d", s.Alerts, s.Tables[0].Seq)
	}
	v0 := fl.Snapshot(0).Version
	if got := fl.Apply(d); len(got) != 0 {
		t.Errorf("a duplicate raised %+v", got)
	}
	if v := fl.Snapshot(0).Version; v != v0 {
		t.Errorf("a duplicate changed the version %d → %d", v0, v)
	}
	s := fl.Snapshot(v0)
	if len(s.Tables) != 0 || s.Alerts != nil {
		t.Errorf("nothing changed since %d, got %+v", v0, s)
	}
}

// TestChanged: a change closes the channel returned before it.
func TestChanged(t *testing.T) {
	fl := newFloor()
	ch := fl.Changed()
	select {
	case <-ch:
		t.Fatal("closed before any change")
	default:
	}
	fl.Raise(Alert{Table: "T1", Kind: KindStalled, Text: "the shoe loop has not answered for 12s"})
	select {
	case <-ch:
	default:
		t.Fatal("not closed after a change")
	}
}

// TestBlackjackSplit: a split lays the box out as two hands, the second card moved to the new
// hand, and the cards that follow go to the hands the feed names.
func TestBlackjackSplit(t *testing.T) {
	fl := newFloor()
	f := &feed{table: "T1", at: t0, round: 1}
	box := func(seat, hand int) tablebus.Place { return tablebus.Place{Name: "box", Seat: seat, Hand: hand} }
	for _, d := range []Delivery{
		f.ev(tablebus.RoundOpened, func(e *tablebus.Event) { e.Game = "blackjack" }),
		f.card("8s", box(1, 0), tablebus.FaceUp, 2),
		f.card("As", tablebus.Place{Name: "dealer"}, tablebus.FaceUp, 3),
		f.card("8d", box(1, 0), tablebus.FaceUp, 4),
		f.ev(tablebus.Decision, func(e *tablebus.Event) { e.Seat, e.Choice = 1, "P" }),
		f.card("3d", box(1, 0), tablebus.FaceUp, 6),
		f.ev(tablebus.Decision, func(e *tablebus.Event) { e.Seat, e.Hand, e.Choice = 1, 1, "P" }), // no second card yet: nothing moves
		f.card("8c", box(1, 1), tablebus.FaceUp, 7),
		f.ev(tablebus.Decision, func(e *tablebus.Event) { e.Seat, e.Hand, e.Choice = 1, 1, "P" }),
	} {
		fl.Apply(d)
	}
	v, _ := fl.Table("T1")
	var got []string
	for _, h := range v.Round.Hands {
		var cs []string
		for _, c := range h.Cards {
			cs = append(cs, c.Card)
		}
		got = append(got, fmt.Sprintf("%s:%s=%s", h.Label, strings.Join(cs, ","), h.Total))
	}
	if s := strings.Join(got, " "); s != "Dealer:As=soft 11 Seat 1:8s,3d=11 Seat 1 · hand 2:8d=8 Seat 1 · hand 3:8c=8" {
		t.Fatalf("after the splits: %s", s)
	}
}
