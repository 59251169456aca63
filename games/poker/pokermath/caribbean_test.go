package pokermath

import (
	"fmt"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games/poker"
)

// TestCaribbean computes Caribbean stud exactly over all 19,933,230,517,200 deals and checks the
// published house edges (research/gamemath.md §3.1, Wizard of Odds): optimal 5.224%, rules of
// thumb 5.225%, pair or better 5.470%, A-K or better 5.682%, raise always 16.607%, and the
// optimal strategy's fold rate 0.477745. It takes about a minute of CPU, so -short skips it.
func TestCaribbean(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the exact Caribbean stud analysis takes about a minute of CPU")
	}
	start := time.Now()
	r := AnalyseCaribbean(poker.DefaultBetPays, 0)
	t.Logf("analysed in %v", time.Since(start))
	if r.Deals != 19933230517200 {
		t.Errorf("%d deals, want 19,933,230,517,200", r.Deals)
	}
	for _, s := range Strategies {
		if got, want := fmt.Sprintf("%.3f%%", 100*r.Edge[s]), fmt.Sprintf("%.3f%%", 100*Published[s]); got != want {
			t.Errorf("%s: %s, published %s", s, got, want)
		}
	}
	if got := fmt.Sprintf("%.6f", r.FoldRate); got != "0.477745" {
		t.Errorf("fold rate %s, published 0.477745", got)
	}
}
