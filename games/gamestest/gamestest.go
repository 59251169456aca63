// Package gamestest is the test harness the game families share: golden rounds of the
// `sabot games round` contract (RULES.md §8).
package gamestest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
)

// RoundGoldens plays each dir/*.json through catalog.PlayRound, the code behind `sabot games
// round`, and compares the JSON outcome (or the one-line error) with the .golden file beside it;
// with update it rewrites the golden files. An input may carry a "comment" member beside the
// RULES.md §8 fields (what the round shows); anything else unknown is an error.
func RoundGoldens(t *testing.T, dir string, update bool) {
	t.Helper()
	ins, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(ins) == 0 {
		t.Fatalf("no rounds in %s: %v", dir, err)
	}
	for _, path := range ins {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			in, err := readRound(path)
			if err != nil {
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
			if update {
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

// readRound reads one round input strictly, allowing a "comment" member.
func readRound(path string) (games.RoundInput, error) {
	var in games.RoundInput
	b, err := os.ReadFile(path)
	if err != nil {
		return in, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return in, err
	}
	delete(raw, "comment")
	strict, _ := json.Marshal(raw)
	dec := json.NewDecoder(bytes.NewReader(strict))
	dec.DisallowUnknownFields()
	err = dec.Decode(&in)
	return in, err
}
