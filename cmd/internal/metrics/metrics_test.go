package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

var t0 = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

func ev(typ tablebus.Type, ts time.Time, fill func(*tablebus.Event)) tablebus.Event {
	e := tablebus.Event{V: 1, Type: typ, Table: "T1", Source: "table", TS: ts}
	if fill != nil {
		fill(&e)
	}
	return e
}

// TestObserve feeds a short feed and compares every series with its exact exposition.
func TestObserve(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	now := t0.Add(10 * time.Second)
	m := New(reg, func() time.Time { return now })
	c := card.MustParse("Qh")
	obs := func(e tablebus.Event, after time.Duration) { m.Observe(e, e.TS.Add(after)) }
	obs(ev(tablebus.Burn, t0, func(e *tablebus.Event) { e.Card = &c }), 0)
	obs(ev(tablebus.CardDealt, t0.Add(time.Second), func(e *tablebus.Event) { e.Card = &c }), 700*time.Microsecond) // ≤ 1 ms
	obs(ev(tablebus.CardDealt, t0.Add(2*time.Second), func(e *tablebus.Event) { e.Card = &c }), 3*time.Millisecond) // ≤ 4 ms
	obs(ev(tablebus.Fault, t0.Add(3*time.Second), func(e *tablebus.Event) { e.Code = "misread" }), 0)
	obs(ev(tablebus.CardDealt, t0.Add(4*time.Second), func(e *tablebus.Event) {
		e.Card, e.Manual = &c, &tablebus.Manual{Dealer: "d-1", At: t0.Add(4 * time.Second)}
	}), 2*time.Second) // by hand: not a read, no latency
	obs(ev(tablebus.Fault, t0.Add(5*time.Second), func(e *tablebus.Event) { e.Code = "shoe-link" }), 0)
	obs(ev(tablebus.RoundSettled, t0.Add(6*time.Second), nil), 0)
	obs(ev(tablebus.RoundVoided, t0.Add(7*time.Second), nil), 0)
	// An engine's own alarm is not the table's fault.
	obs(ev(tablebus.Fault, t0.Add(8*time.Second), func(e *tablebus.Event) { e.Source, e.Code = "check", "engine-mismatch" }), 0)
	m.DeviceEvent("T1", "shuffler", "jam")
	m.FeedRejected("T1", "forged")
	m.WatchdogPing()
	m.Stalled("shoe", false)
	QueueDepth(reg, "T1", func() float64 { return 4 })

	want := `
# HELP sabot_card_latency_seconds Time from the shoe's read of a card to the card event being observed: journaled, in sabotd; received from the broker, in sabot watch.
# TYPE sabot_card_latency_seconds histogram
sabot_card_latency_seconds_bucket{table="T1",le="0.0005"} 0
sabot_card_latency_seconds_bucket{table="T1",le="0.001"} 1
sabot_card_latency_seconds_bucket{table="T1",le="0.002"} 1
sabot_card_latency_seconds_bucket{table="T1",le="0.004"} 2
sabot_card_latency_seconds_bucket{table="T1",le="0.008"} 2
sabot_card_latency_seconds_bucket{table="T1",le="0.016"} 2
sabot_card_latency_seconds_bucket{table="T1",le="0.032"} 2
sabot_card_latency_seconds_bucket{table="T1",le="0.064"} 2
sabot_card_latency_seconds_bucket{table="T1",le="0.128"} 2
sabot_card_latency_seconds_bucket{table="T1",le="0.256"} 2
sabot_card_latency_seconds_bucket{table="T1",le="0.512"} 2
sabot_card_latency_seconds_bucket{table="T1",le="1.024"} 2
sabot_card_latency_seconds_bucket{table="T1",le="2.048"} 2
sabot_card_latency_seconds_bucket{table="T1",le="4.096"} 2
sabot_card_latency_seconds_bucket{table="T1",le="+Inf"} 2
sabot_card_latency_seconds_sum{table="T1"} 0.0037
sabot_card_latency_seconds_count{table="T1"} 2
# HELP sabot_cards_total Cards out of the shoe, by how they were identified: read by the shoe, or entered by hand after a misread; and burned.
# TYPE sabot_cards_total counter
sabot_cards_total{how="burned",table="T1"} 1
sabot_cards_total{how="manual",table="T1"} 1
sabot_cards_total{how="read",table="T1"} 2
# HELP sabot_device_events_total Asynchronous device events (shuffler jam, door open, misfeed, link down, …), by device and kind.
# TYPE sabot_device_events_total counter
sabot_device_events_total{device="shuffler",kind="jam",table="T1"} 1
# HELP sabot_faults_total Fault events of the table's feed, by fault code (RULES.md §1 faults and device faults).
# TYPE sabot_faults_total counter
sabot_faults_total{code="misread",table="T1"} 1
sabot_faults_total{code="shoe-link",table="T1"} 1
# HELP sabot_feed_rejected_total Messages a consumer refused: undecodable, forged (signature), gap.
# TYPE sabot_feed_rejected_total counter
sabot_feed_rejected_total{table="T1",why="forged"} 1
# HELP sabot_loop_stalled 1 while one of the daemon's loops is stalled (the watchdog stops pinging).
# TYPE sabot_loop_stalled gauge
sabot_loop_stalled{loop="shoe"} 0
# HELP sabot_mqtt_queue_depth Events journaled but not yet published to the broker (the outbox's backlog).
# TYPE sabot_mqtt_queue_depth gauge
sabot_mqtt_queue_depth{table="T1"} 4
# HELP sabot_reads_rejected_total Cards the table refused, by reason: misread (unreadable), foreign-card, out-of-turn, unexpected-card, card-while-held.
# TYPE sabot_reads_rejected_total counter
sabot_reads_rejected_total{reason="misread",table="T1"} 1
# HELP sabot_rounds_total Rounds ended, by how: settled or voided.
# TYPE sabot_rounds_total counter
sabot_rounds_total{end="settled",table="T1"} 1
sabot_rounds_total{end="voided",table="T1"} 1
# HELP sabot_seconds_since_last_card Seconds since the last card read from the shoe (cards entered by hand not counted).
# TYPE sabot_seconds_since_last_card gauge
sabot_seconds_since_last_card{table="T1"} 8
# HELP sabot_watchdog_pings_total Watchdog keep-alives sent to systemd (WATCHDOG=1).
# TYPE sabot_watchdog_pings_total counter
sabot_watchdog_pings_total 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// BenchmarkObserve measures the cost the metrics add to each event the daemon journals.
func BenchmarkObserve(b *testing.B) {
	m := New(prometheus.NewRegistry(), nil)
	c := card.MustParse("Qh")
	e := ev(tablebus.CardDealt, t0, func(e *tablebus.Event) { e.Card = &c })
	now := t0.Add(time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		m.Observe(e, now)
	}
}
