package floor

import (
	"github.com/prometheus/client_golang/prometheus"
)

// PitCollector exposes the pit's figures to Prometheus, per table, as counters since the view
// started: rounds, drop, win and the progressive's bets and prizes in cents, and the seconds each
// dealer dealt. The hold is sabot_pit_win_cents_total / sabot_pit_drop_cents_total, over any
// window Prometheus takes (increase() of both).
func PitCollector(f *Floor) prometheus.Collector { return pitCollector{f: f} }

type pitCollector struct{ f *Floor }

var (
	pitRounds   = prometheus.NewDesc("sabot_pit_rounds_total", "Rounds settled at the table.", []string{"table"}, nil)
	pitVoided   = prometheus.NewDesc("sabot_pit_voided_total", "Rounds voided at the table.", []string{"table"}, nil)
	pitDrop     = prometheus.NewDesc("sabot_pit_drop_cents_total", "The bets placed and settled (the progressive apart), cents.", []string{"table"}, nil)
	pitWin      = prometheus.NewDesc("sabot_pit_win_cents_total", "The house's win on them, cents (negative when it lost).", []string{"table"}, nil)
	pitProgDrop = prometheus.NewDesc("sabot_pit_progressive_bets_cents_total", "The progressive bets settled, cents: the table's contributions to its pool.", []string{"table"}, nil)
	pitProgPaid = prometheus.NewDesc("sabot_pit_progressive_paid_cents_total", "The progressive prizes the controller paid at the table, cents.", []string{"table"}, nil)
	pitDealer   = prometheus.NewDesc("sabot_pit_dealer_seconds_total", "The time each dealer dealt at the table.", []string{"table", "dealer"}, nil)
)

func (pitCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{pitRounds, pitVoided, pitDrop, pitWin, pitProgDrop, pitProgPaid, pitDealer} {
		ch <- d
	}
}

func (c pitCollector) Collect(ch chan<- prometheus.Metric) {
	for _, r := range c.f.Pit().Totals() {
		ch <- prometheus.MustNewConstMetric(pitRounds, prometheus.CounterValue, float64(r.Rounds), r.Table)
		ch <- prometheus.MustNewConstMetric(pitVoided, prometheus.CounterValue, float64(r.Voided), r.Table)
		ch <- prometheus.MustNewConstMetric(pitDrop, prometheus.CounterValue, float64(r.Drop), r.Table)
		ch <- prometheus.MustNewConstMetric(pitWin, prometheus.UntypedValue, float64(r.Win), r.Table)
		ch <- prometheus.MustNewConstMetric(pitProgDrop, prometheus.CounterValue, float64(r.ProgDrop), r.Table)
		ch <- prometheus.MustNewConstMetric(pitProgPaid, prometheus.CounterValue, float64(r.ProgPaid), r.Table)
		for d, s := range r.Dealers {
			ch <- prometheus.MustNewConstMetric(pitDealer, prometheus.CounterValue, s, r.Table, d)
		}
	}
}
