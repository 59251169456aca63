package shoe_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

func openJournal(t *testing.T, path string) (*journal.Journal, *outbox.Outbox) {
	t.Helper()
	j, err := journal.Open(path, "T1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := j.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	return j, outbox.New(j, s, nil)
}

// payloads returns the journal's secure payloads with the session zeroed (restarts change it).
func payloads(t *testing.T, j *journal.Journal) []string {
	t.Helper()
	var out []string
	err := j.Range(context.Background(), 1, j.NextSeq(), func(r journal.Record) error {
		var m map[string]any
		if err := json.Unmarshal(r.Secure, &m); err != nil {
			return err
		}
		delete(m, "session")
		b, _ := json.Marshal(m)
		out = append(out, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// restore builds a machine from the journal as a restarted daemon does.
func restore(t *testing.T, j *journal.Journal, cfg games.Config) *shoe.Machine {
	t.Helper()
	ent, _ := catalog.Lookup(cfg.Game)
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, _ := shoe.ProcedureFor(fam, 0)
	eng, _ := catalog.New(cfg)
	m, err := shoe.Restore(context.Background(), j, shoe.Config{Proc: proc, Engine: eng, Table: "T1", Manage: catalog.Manage})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCrashAndReplay kills the daemon's machine at random steps of two simulated shoes and
// restarts it from the journal each time: the final journal must equal an uninterrupted run's.
// Squeeze baccarat replays its reveals.
func TestCrashAndReplay(t *testing.T) {
	for _, cfg := range []games.Config{{Game: "punto-banco"}, {Game: "chemin-de-fer"}, {Game: "blackjack"}, {Game: "holdem"},
		{Game: "punto-banco", Options: map[string]string{"squeeze": "on", "paytable": "super6"}}} {
		name := cfg.Game
		if cfg.Options != nil {
			name += "+squeeze"
		}
		t.Run(name, func(t *testing.T) { crashAndReplay(t, cfg) })
	}
}

func crashAndReplay(t *testing.T, cfg games.Config) {
	game := cfg.Game
	dir := t.TempDir()
	run := func(path string, crashes []int) []string {
		j, ob := openJournal(t, path)
		tb := configTable(t, cfg, 99)
		tb.MisreadEvery = 29
		tb.Journal = func(in []byte, evs []tablebus.Event) error { return ob.Emit(context.Background(), in, evs) }
		shoes := 2
		if game == "holdem" {
			shoes = 30
		}
		err := tb.RunUntil(shoes, 100000, func(step int) error {
			if !slices.Contains(crashes, step) {
				return nil
			}
			// kill -9: the machine and everything in memory is lost; the journal stays.
			j.Close()
			j, ob = openJournal(t, path)
			tb.M = restore(t, j, cfg)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		return payloads(t, j)
	}
	want := run(filepath.Join(dir, "clean.db"), nil)
	rng := newRand(5)
	var crashes []int
	for range 100 {
		crashes = append(crashes, rng.IntN(len(want)/2))
	}
	got := run(filepath.Join(dir, "crashed.db"), crashes)
	if len(want) < 500 || len(got) != len(want) {
		t.Fatalf("%d events after crashes, %d without", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d differs:\n clean:   %s\n crashed: %s", i+1, want[i], got[i])
		}
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// TestMisreadInputKeepsItsCards: a misread's seen cards and raw line survive the journal, so a
// replay gives its fault's fields back byte for byte.
func TestMisreadInputKeepsItsCards(t *testing.T) {
	in := shoe.Read{Kind: shoe.ReadUnreadable, Detail: "damaged line from the shoe", Seen: []card.Card{card.MustParse("6h"), card.MustParse("6d")},
		Raw: `"[Game]<Card:6\x00>"`, Time: t0}
	b, err := shoe.MarshalInput(in)
	if err != nil {
		t.Fatal(err)
	}
	back, err := shoe.UnmarshalInput(b)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := back.(shoe.Read)
	if !ok || r.Detail != in.Detail || !slices.Equal(r.Seen, in.Seen) || r.Raw != in.Raw || !r.Time.Equal(in.Time) {
		t.Fatalf("journaled %s, read back %+v", b, back)
	}
}
