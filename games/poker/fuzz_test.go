package poker_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/games/poker"
)

// FuzzRound feeds arbitrary rounds (RULES.md §8 JSON) to the poker engines through
// catalog.PlayRound: nothing may panic, and a circle game's settled round must conserve money
// (the nets add up to minus the rake).
func FuzzRound(f *testing.F) {
	paths, _ := filepath.Glob("testdata/rounds/*.json")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var in games.RoundInput
		if json.Unmarshal(b, &in) != nil {
			return
		}
		e, err := catalog.Lookup(in.Game)
		if err != nil || e.Family != "poker" {
			return
		}
		o, err := catalog.PlayRound(in)
		if err != nil {
			return
		}
		if d, ok := o.Detail.(*poker.CircleDetail); ok && o.Net() != -d.Rake {
			t.Fatalf("nets add up to %d, rake %d", o.Net(), d.Rake)
		}
	})
}

// FuzzPayTable: ParsePayTable never panics and what it accepts writes back to a table that
// parses to the same thing.
func FuzzPayTable(f *testing.F) {
	f.Add("royal-flush=100,straight-flush=50,pair=1")
	f.Add("pair=")
	f.Fuzz(func(t *testing.T, s string) {
		pt, err := poker.ParsePayTable(s, nil)
		if err != nil {
			return
		}
		again, err := poker.ParsePayTable(pt.String(), nil)
		if err != nil || again.String() != pt.String() {
			t.Fatalf("%q → %q → %q, %v", s, pt, again, err)
		}
	})
}
