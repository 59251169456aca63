package blackjack

import (
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games"
)

// BenchmarkEngineRound measures whole rounds through the engine (the live-table and §8 path,
// not the simulator): three boxes, a split, a double, the dealer drawing.
func BenchmarkEngineRound(b *testing.B) {
	in := games.RoundInput{
		Cards: []string{"8s", "Td", "5h", "6d", "8h", "9c", "6h", "Tc", "3c", "Th", "Kd", "9s", "7c"},
		Bets: []games.Bet{{Seat: 1, Spot: SpotMain, Amount: 100}, {Seat: 2, Spot: SpotMain, Amount: 100},
			{Seat: 3, Spot: SpotMain, Amount: 100}, {Seat: 1, Spot: SpotPerfectPairs, Amount: 10}},
		Decisions: map[string][]string{"1": {"P", "D", "S"}, "2": {"S"}, "3": {"D"}},
	}
	e, err := New(games.Config{Rules: "classic"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for b.Loop() {
		if _, err := games.PlayRound(e, 6, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rounds/s")
}
