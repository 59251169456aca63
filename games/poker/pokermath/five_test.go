package pokermath

import (
	"fmt"
	"testing"

	"github.com/sabot-tables/sabot/games/poker"
	"github.com/sabot-tables/sabot/games/poker/hand"
)

// TestGoPoker works the Go poker table out by hand from the published five-card counts
// (gamemath.md §4.1): pairs of tens to aces are 5/13 of the 1,098,240 pairs = 422,400, paid 1;
// two pair 123,552 × 2; trips 54,912 × 3; straights 10,200 × 5; flushes 5,108 × 8; full houses
// 3,744 × 11; quads 624 × 50; straight flushes 36 × 200; royals 4 × 1000; the other 1,978,380
// hands lose 1. Sum: 422,400 + 247,104 + 164,736 + 51,000 + 40,864 + 41,184 + 31,200 + 7,200 +
// 4,000 - 1,978,380 = -968,692, an edge of 968,692 / 2,598,960 = 37.2723%.
func TestGoPoker(t *testing.T) {
	r := AnalyseGoPoker(poker.DefaultGoPays, 10)
	if r.Hands != 2598960 || r.Losing != 1978380 || r.Counts[hand.Pair] != 422400 {
		t.Errorf("hands %d, losing %d, paying pairs %d", r.Hands, r.Losing, r.Counts[hand.Pair])
	}
	if got := fmt.Sprintf("%.4f%%", 100*r.Edge); got != "37.2723%" {
		t.Errorf("edge %s, want 37.2723%%", got)
	}
}

// TestDrawDealerOpens: pairs of eights to aces are 7/13 of the pairs (591,360), plus every hand
// above a pair (198,180): 789,540 of 2,598,960.
func TestDrawDealerOpens(t *testing.T) {
	if d := AnalyseDrawDealer(); d.Hands != 2598960 || d.Opens != 789540 {
		t.Errorf("%d of %d open, want 789,540 of 2,598,960", d.Opens, d.Hands)
	}
}
