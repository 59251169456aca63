package poker_test

import (
	"flag"
	"testing"

	"github.com/sabot-tables/sabot/games/gamestest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestRoundGolden plays each testdata/rounds/*.json through catalog.PlayRound, the code behind
// `sabot games round` (RULES.md §8), and compares the JSON outcome (or the error) with its
// .golden file. Every golden file was checked by hand against RULES.md when it was written; the
// comments in the .json files say what each round shows.
func TestRoundGolden(t *testing.T) { gamestest.RoundGoldens(t, "testdata/rounds", *update) }
