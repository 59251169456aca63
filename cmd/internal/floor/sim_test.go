package floor

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var simStart = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// simulate plays steps inputs of a simulated table (shoetest, deterministic for the seed) and
// returns the secure feed's events, stamped as the daemon's outbox stamps them. With a journal,
// each step is journaled as the daemon journals it.
func simulate(t testing.TB, game, table string, seed uint64, steps, misreadEvery int, j *journal.Journal) []tablebus.Event {
	t.Helper()
	ent, err := catalog.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, err := shoe.ProcedureFor(fam, 0)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := catalog.New(games.Config{Game: game})
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: table, Manage: catalog.Manage})
	if err != nil {
		t.Fatal(err)
	}
	tb := shoetest.NewTable(m, shoetest.NewDealer(game, proc, seed), simStart)
	tb.MisreadEvery = misreadEvery
	var out []tablebus.Event
	var seq uint64
	tb.Journal = func(input []byte, evs []tablebus.Event) error {
		stamped := make([]tablebus.Event, len(evs))
		for i, e := range evs {
			seq++
			e.V, e.Seq, e.Table, e.Source, e.Session = tablebus.SchemaVersion, seq, table, tablebus.SourceTable, 1
			stamped[i] = e
		}
		out = append(out, stamped...)
		if j == nil {
			return nil
		}
		_, err := j.AppendStep(input, stamped)
		return err
	}
	if err := tb.RunShoes(1, steps); err != nil && !strings.Contains(err.Error(), "not done in") {
		t.Fatal(err)
	}
	return out
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file; run go test -run %s -update and review the diff\n got: %.600s", path, t.Name(), got)
	}
}

func indent(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestSimulatedTables feeds simulated shoes of each family to a floor and compares the floor
// with golden files: the view in the middle of a round and the alert strip.
func TestSimulatedTables(t *testing.T) {
	tests := []struct {
		game   string
		steps  int
		stopAt tablebus.Type // stop at the first event of this type after the minimum
		min    int
	}{
		{"punto-banco", 400, tablebus.CardDealt, 300},
		{"blackjack", 400, tablebus.Decision, 250},
		{"trente-et-quarante", 400, tablebus.CardDealt, 200},
		{"holdem", 400, tablebus.Burn, 15},
		{"caribbean-stud", 400, tablebus.CardDealt, 30},
	}
	for _, tc := range tests {
		t.Run(tc.game, func(t *testing.T) {
			evs := simulate(t, tc.game, "T1", 7, tc.steps, 17, nil)
			fl := newFloor()
			n := 0
			for i, e := range evs {
				fl.Apply(Delivery{Event: &e})
				n = i
				if i >= tc.min && e.Type == tc.stopAt {
					break
				}
			}
			if n < tc.min {
				t.Fatalf("only %d events", len(evs))
			}
			s := fl.Snapshot(0)
			for i := range s.Tables {
				s.Tables[i].Version = 0
			}
			golden(t, tc.game+".golden.json", indent(t, s))
		})
	}
}

// TestReplay journals a simulated shoe and replays a round of it from the journal.
func TestReplay(t *testing.T) {
	ctx := context.Background()
	j, err := journal.Open(filepath.Join(t.TempDir(), "T1.db"), "T1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	simulate(t, "punto-banco", "T1", 7, 160, 0, j)
	shoes, err := j.Shoes(ctx)
	if err != nil || len(shoes) != 1 || shoes[0] != "T1-000001" {
		t.Fatalf("shoes %v, %v", shoes, err)
	}
	rounds, err := Rounds(ctx, j, shoes[0])
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "rounds.golden.json", indent(t, rounds))
	if len(rounds) < 8 {
		t.Fatalf("%d rounds", len(rounds))
	}
	rp, err := ReplayRound(ctx, j, "T1", shoes[0], 3, false)
	if err != nil {
		t.Fatal(err)
	}
	var captions []string
	for _, f := range rp.Frames {
		captions = append(captions, f.Caption)
	}
	golden(t, "replay-round-3.golden.txt", []byte(strings.Join(captions, "\n")+"\n"))
	lastFrame := rp.Frames[len(rp.Frames)-1].Table
	if lastFrame.Round == nil || lastFrame.Round.No != 3 || lastFrame.Round.State != "settled" {
		t.Errorf("the last frame's round: %+v", lastFrame.Round)
	}
	if got := lastFrame.Recent[len(lastFrame.Recent)-1]; got.Round != 3 || got.Summary != rounds[2].Summary {
		t.Errorf("the last frame's result %+v, the round list says %q", got, rounds[2].Summary)
	}
	if lastFrame.Roads == nil || lastFrame.Roads.Coups != 3 {
		t.Errorf("roads after round 3: %+v", lastFrame.Roads)
	}
	// Cards appear one frame at a time.
	cards := 0
	for i, f := range rp.Frames {
		n := 0
		for _, h := range f.Table.Round.Hands {
			n += len(h.Cards)
		}
		if f.Type == string(tablebus.CardDealt) {
			cards++
		}
		if f.Type == string(tablebus.CardDealt) && n != cards {
			t.Errorf("frame %d: %d cards on the layout after %d card events", i, n, cards)
		}
	}
	if _, err := ReplayRound(ctx, j, "T1", shoes[0], 999, false); err == nil || !strings.Contains(err.Error(), "no such round 999") {
		t.Errorf("replay of round 999: %v", err)
	}
}
