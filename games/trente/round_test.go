package trente_test

import (
	"flag"
	"testing"

	"github.com/sabot-tables/sabot/games/gamestest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestRoundGolden plays each testdata/rounds/*.json through catalog.PlayRound, the code behind
// `sabot games round` (RULES.md §8), and compares the JSON outcome with its .golden file.
func TestRoundGolden(t *testing.T) { gamestest.RoundGoldens(t, "testdata/rounds", *update) }
