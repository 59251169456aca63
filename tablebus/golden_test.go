package tablebus_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var goldenT0 = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

// TestGoldenEvents pins the wire form of every event type on both feeds, byte for byte:
// testdata/events/<type>.secure.jsonl and <type>.public.jsonl hold the bodies (Event.Marshal,
// before the seal) of representative events of every game, one a line: the first event of each
// shape (the members present, at any depth, and the face) that simulated shoes of each game
// produce, clean and with misreads, strays and burns in burn mode, and scripted ones for what
// simulation does not reach (a deck short of a card, a damaged line, a card before any round,
// a device). Line n of the public file is the public form of line n of the secure file. Run
// with -update to rewrite them, and review the diff: it is a change of the feed.
func TestGoldenEvents(t *testing.T) {
	evs := representative(t)
	byType := map[tablebus.Type][]tablebus.Event{}
	for _, e := range evs {
		byType[e.Type] = append(byType[e.Type], e)
	}
	for _, typ := range tablebus.Types() {
		t.Run(string(typ), func(t *testing.T) {
			if len(byType[typ]) == 0 {
				t.Fatalf("no representative %s event", typ)
			}
			var sec, pub bytes.Buffer
			for _, e := range byType[typ] {
				s, err := e.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				p, err := e.Public().Marshal()
				if err != nil {
					t.Fatal(err)
				}
				// Both bodies are payloads a consumer accepts, and the public one is a
				// function of the secure one.
				d, err := tablebus.Decode(s)
				if err != nil {
					t.Fatalf("secure %s: %v", s, err)
				}
				if _, err := tablebus.Decode(p); err != nil {
					t.Fatalf("public %s: %v", p, err)
				}
				if again, _ := d.Public().Marshal(); !bytes.Equal(again, p) {
					t.Fatalf("the public form of the decoded secure payload differs:\n %s\n %s", again, p)
				}
				sec.Write(append(s, '\n'))
				pub.Write(append(p, '\n'))
			}
			golden(t, filepath.Join("testdata", "events", string(typ)+".secure.jsonl"), sec.Bytes())
			golden(t, filepath.Join("testdata", "events", string(typ)+".public.jsonl"), pub.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d (run with -update and review the diff):\n got: %s\nwant: %s", path, i+1, g, w)
			}
		}
	}
}

// representative returns the events the golden files hold: per game, the first of each shape.
func representative(t *testing.T) []tablebus.Event {
	var out []tablebus.Event
	seen := map[string]bool{}
	keep := func(game string, evs []tablebus.Event) {
		for _, e := range evs {
			k := game + " " + shape(t, e)
			if !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
	}
	for _, game := range catalog.Games() {
		ent, _ := catalog.Lookup(game)
		shoes := 1
		if ent.Family == "poker" {
			shoes = 4 // a poker shoe is one round
		}
		keep(game, simulated(t, game, 1, shoes, 0, 0, 0))
		keep(game, simulated(t, game, 2, shoes, 13, 17, 19))
	}
	for _, game := range []string{"caribbean-stud", "draw-poker", "go-poker"} {
		keep(game+" progressive", progressiveShoes(t, game, 3, 12))
	}
	keep("script", scripted(t))
	keep("device", []tablebus.Event{envelope(1, tablebus.Event{Type: tablebus.DeviceStatus, Device: "shuffler", State: "busy",
		Problem: "shuffling 416 cards", TS: goldenT0})})
	return out
}

// shape is what makes an event representative: its type, the members of its secure payload
// at every depth, and its face.
func shape(t *testing.T, e tablebus.Event) string {
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				keys[prefix+k] = true
				walk(prefix+k+".", y)
			}
		case []any:
			for _, y := range x {
				walk(prefix, y)
			}
		}
	}
	walk("", v)
	ks := make([]string, 0, len(keys))
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	face := ""
	if e.Face != nil {
		face = e.Face.String()
	}
	return fmt.Sprint(e.Type, " ", face, " ", ks)
}

func envelope(seq uint64, e tablebus.Event) tablebus.Event {
	e.V, e.Seq, e.Table, e.Source, e.Session = tablebus.SchemaVersion, seq, "T1", tablebus.SourceTable, 1
	return e
}

func machine(t *testing.T, game string) (*shoe.Machine, shoe.Procedure) {
	t.Helper()
	ent, err := catalog.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, _ := shoe.ProcedureFor(fam, 0)
	eng, err := catalog.New(games.Config{Game: game})
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", Manage: catalog.Manage})
	if err != nil {
		t.Fatal(err)
	}
	return m, proc
}

// simulated deals shoes of a game with shoetest's table and dealer.
func simulated(t *testing.T, game string, seed uint64, shoes, misread, stray, burnMode int) []tablebus.Event {
	t.Helper()
	m, proc := machine(t, game)
	tb := shoetest.NewTable(m, shoetest.NewDealer(game, proc, seed), goldenT0)
	tb.MisreadEvery, tb.StrayEvery, tb.BurnModeEvery = misread, stray, burnMode
	var evs []tablebus.Event
	tb.Emit = func(e tablebus.Event) error {
		evs = append(evs, envelope(uint64(len(evs)+1), e))
		return nil
	}
	if err := tb.RunShoes(shoes, 100000); err != nil {
		t.Fatalf("%s: %v", game, err)
	}
	return evs
}

// progressiveShoes deals shoes of a progressive game (RULES.md §7) at a table connected to a
// controller, simulated by shoetest's table, then the controller goes offline.
func progressiveShoes(t *testing.T, game string, seed uint64, shoes int) []tablebus.Event {
	t.Helper()
	proc, _ := shoe.ProcedureFor(shoe.Poker, 0)
	eng, err := catalog.New(games.Config{Game: game, Options: map[string]string{"progressive": "controller"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", Manage: catalog.Manage, Progressive: "arica"})
	if err != nil {
		t.Fatal(err)
	}
	tb := shoetest.NewTable(m, shoetest.NewDealer(game, proc, seed), goldenT0)
	tb.PoolValue = 2_500_000
	var evs []tablebus.Event
	tb.Emit = func(e tablebus.Event) error {
		evs = append(evs, envelope(uint64(len(evs)+1), e))
		return nil
	}
	if err := tb.OpenProgressive(); err != nil {
		t.Fatal(err)
	}
	if err := tb.RunShoes(shoes, 100000); err != nil {
		t.Fatalf("%s: %v", game, err)
	}
	more, err := m.Step(shoe.ProgressiveLink{Reason: "controller progressive.P1 offline", Time: tb.Clock})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range more {
		evs = append(evs, envelope(uint64(len(evs)+1), e))
	}
	return evs
}

// scripted steps machines through what the simulated tables do not: a deck short of a card and
// with one too many, a damaged line from a reading shoe entered by hand, a device fault in a
// round, voided; a card before any round of hold'em could open.
func scripted(t *testing.T) []tablebus.Event {
	t.Helper()
	var evs []tablebus.Event
	at := goldenT0
	step := func(m *shoe.Machine, in shoe.Input) {
		t.Helper()
		evs0, err := m.Step(in)
		if err != nil {
			t.Fatalf("%T: %v", in, err)
		}
		for _, e := range evs0 {
			evs = append(evs, envelope(uint64(len(evs)+1), e))
		}
		at = at.Add(time.Second)
	}
	read := func(c string) shoe.Read {
		return shoe.Read{Kind: shoe.ReadCard, Card: card.MustParse(c), Time: at}
	}
	m, _ := machine(t, "punto-banco")
	short := card.Decks(8)
	short.Remove(card.MustParse("7h"))
	short.Add(card.MustParse("Kd"))
	step(m, shoe.NewCards{Counts: short, Time: at})
	step(m, shoe.NewCards{Counts: card.Decks(8), Time: at})
	step(m, shoe.ShuffleDone{Cards: 416, By: "shuffler", Time: at})
	step(m, shoe.CutDone{At: 200, Dealer: "d-117", Time: at})
	step(m, shoe.CutCardPlaced{Behind: 6, Dealer: "d-117", Time: at})
	step(m, read("2c")) // the first card: 2 burned after it
	step(m, read("9s"))
	step(m, read("Qd"))
	step(m, shoe.OpenRound{Bets: []games.Bet{{Seat: 1, Spot: "player", Amount: 5000}}, Time: at})
	step(m, shoe.Read{Kind: shoe.ReadUnreadable, Detail: "damaged line from the shoe", Raw: `"[Game]<Card:K\x00>"`, Time: at})
	step(m, shoe.ManualCard{Card: card.MustParse("Kh"), Dealer: "d-117", Time: at})
	step(m, shoe.DeviceFault{Device: "shoe", Code: "shoe-link", Detail: "the shoe's serial link went down", Time: at})
	step(m, shoe.VoidRound{Reason: "link lost mid-coup", Dealer: "d-117", Time: at})
	// The table's operations at the dealer terminal, between coups.
	step(m, shoe.TableOp{Op: shoe.OpSignIn, By: "dealer.D7", Time: at})
	step(m, shoe.ChangeLimits{Limits: []games.Limit{{Spot: "banker", Min: 500, Max: 50000}, {Spot: "player", Min: 500, Max: 50000},
		{Spot: "tie", Min: 500, Max: 6000}}, Dealer: "dealer.D7", Supervisor: "supervisor.S1", Time: at})
	step(m, shoe.TableOp{Op: shoe.OpClose, By: "supervisor.S1", Time: at})
	step(m, shoe.TableOp{Op: shoe.OpOpen, By: "supervisor.S1", Time: at})
	step(m, shoe.TableOp{Op: shoe.OpSignOut, By: "dealer.D7", Reason: "relieved", Time: at})

	h, _ := machine(t, "holdem")
	step(h, shoe.NewCards{Counts: card.Decks(1), Time: at})
	step(h, shoe.ShuffleDone{Cards: 52, By: "shuffler", Time: at})
	step(h, read("Ah"))

	// A blackjack table with a continuous shuffler and no shuffler's link: the decks attested,
	// a round's cards back into the machine, the shoe ended by the dealer, a card counted.
	proc, _ := shoe.ProcedureFor(shoe.Blackjack, 0)
	proc, _ = proc.WithContinuous()
	eng, _ := catalog.New(games.Config{Game: "blackjack"})
	bj, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", HandCount: true})
	if err != nil {
		t.Fatal(err)
	}
	step(bj, shoe.NewCards{Counts: card.Decks(6), Attested: true, By: "supervisor.S1", Time: at})
	step(bj, shoe.ShuffleDone{Cards: 312, By: "csm", Time: at})
	step(bj, shoe.OpenRound{Bets: []games.Bet{{Seat: 1, Spot: "main", Amount: 1000}}, Dealer: "dealer.D7", Time: at})
	for _, c := range []string{"Ts", "7h", "As", "Td"} {
		step(bj, read(c))
	}
	step(bj, shoe.EndShoe{By: "dealer.D7", Time: at})
	step(bj, read("Qc"))
	return evs
}

// TestScriptedEventsCover: the scripted events of the golden files show what they are for.
func TestScriptedEventsCover(t *testing.T) {
	var got []string
	for _, e := range scripted(t) {
		if e.Type == tablebus.Fault || e.Type == tablebus.DecksVerified || e.Type == tablebus.FaultResolved {
			s := fmt.Sprint(e.Type, " ", e.Code)
			if e.Card != nil {
				s += " card"
			}
			if len(e.Missing)+len(e.Extra) > 0 {
				s += " missing/extra"
			}
			if e.Raw != "" {
				s += " raw"
			}
			got = append(got, s)
		}
	}
	want := []string{"decks.verified  missing/extra", "fault deck missing/extra", "decks.verified ", "fault misread raw",
		"fault.resolved misread card", "fault shoe-link", "fault.resolved shoe-link", "decks.verified ", "fault no-round card"}
	if !slices.Equal(got, want) {
		t.Errorf("scripted faults\n got %q\nwant %q", got, want)
	}
}
