package shoe_test

import (
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
)

// BenchmarkSimulatedShoe plays whole 8-deck punto banco shoes through the shoe machine and the
// engine, in memory (what `sabot simulate` does): the rules' own cost, without devices, journal
// or broker. It reports coups/s.
func BenchmarkSimulatedShoe(b *testing.B) {
	coups := 0
	for i := 0; i < b.N; i++ {
		tb, _ := newTable(b, "punto-banco", uint64(i+1))
		tb.Emit = func(e tablebus.Event) error {
			if e.Type == tablebus.RoundSettled {
				coups++
			}
			return nil
		}
		if err := tb.RunShoes(1, 10000); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(coups)/b.Elapsed().Seconds(), "coups/s")
}
