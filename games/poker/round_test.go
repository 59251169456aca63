package poker_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestRoundGolden plays each testdata/rounds/*.json through catalog.PlayRound, the code behind
// `sabot games round` (RULES.md §8), and compares the JSON outcome (or the error) with its
// .golden file. Every golden file was checked by hand against RULES.md when it was written; the
// comments in the .json files say what each round shows.
func TestRoundGolden(t *testing.T) {
	ins, err := filepath.Glob("testdata/rounds/*.json")
	if err != nil || len(ins) == 0 {
		t.Fatalf("no rounds: %v", err)
	}
	for _, path := range ins {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var in games.RoundInput
			var doc struct {
				Comment string `json:"comment"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			// The files carry a "comment" beside the RULES.md §8 fields; strip it, then decode
			// strictly.
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			delete(raw, "comment")
			strict, _ := json.Marshal(raw)
			dec := json.NewDecoder(bytes.NewReader(strict))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				t.Fatal(err)
			}
			var got []byte
			out, err := catalog.PlayRound(in)
			if err != nil {
				got = []byte("error: " + err.Error() + "\n")
			} else if got, err = json.MarshalIndent(out, "", "  "); err != nil {
				t.Fatal(err)
			} else {
				got = append(got, '\n')
			}
			golden := strings.TrimSuffix(path, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s:\n%s", name, golden, got)
			}
		})
	}
}
