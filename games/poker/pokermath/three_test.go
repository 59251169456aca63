package pokermath

import (
	"fmt"
	"testing"

	"github.com/sabot-tables/sabot/games/poker"
	"github.com/sabot-tables/sabot/games/poker/hand"
)

// TestThreeCard checks the published figures (research/gamemath.md §3.2): ante and play with
// Q-6-4 3.37% (computed there exactly as 3.37298%), pair plus 1-4-6-30-40 2.32% (2.3167%),
// 1-3-6-30-40 7.28% (7.2760%), the dealer qualifying 0.695928 of the time.
func TestThreeCard(t *testing.T) {
	r := AnalyseThreeCard(poker.DefaultAnteBonus, poker.DefaultPairPlusPays)
	got := fmt.Sprintf("%.5f%% %.5f%% %.4f%% %.6f", 100*r.EdgeOptimal, 100*r.EdgeQ64, 100*r.PairPlusEdge, r.DealerQualify)
	if want := "3.37298% 3.37298% 2.3167% 0.695928"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if r.Hands != 22100 || r.DealerHands != 18424 {
		t.Errorf("%d hands × %d dealer hands", r.Hands, r.DealerHands)
	}
	want := map[hand.Category]int64{hand.StraightFlush: 48, hand.ThreeOfAKind: 52, hand.Straight: 720, hand.Flush: 1096, hand.Pair: 3744, hand.HighCard: 16440}
	for c, n := range want {
		if r.PairPlusCounts[c] != n {
			t.Errorf("%v: %d, want %d", c, r.PairPlusCounts[c], n)
		}
	}
	pp := poker.PayTable{hand.Pair: 1, hand.Flush: 3, hand.Straight: 6, hand.ThreeOfAKind: 30, hand.StraightFlush: 40}
	if r := AnalyseThreeCard(poker.DefaultAnteBonus, pp); fmt.Sprintf("%.4f%%", 100*r.PairPlusEdge) != "7.2760%" {
		t.Errorf("pair plus 1-3-6-30-40: %.4f%%, want 7.2760%%", 100*r.PairPlusEdge)
	}
}
