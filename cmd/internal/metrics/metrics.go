package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
)

// Namespace prefixes every metric.
const Namespace = "sabot"

// Table is one process's metrics of the tables it follows. Its methods are safe for concurrent use.
type Table struct {
	now func() time.Time

	cards    *prometheus.CounterVec
	rejects  *prometheus.CounterVec
	faults   *prometheus.CounterVec
	rounds   *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	devices  *prometheus.CounterVec
	feedRej  *prometheus.CounterVec
	pings    prometheus.Counter
	stalled  *prometheus.GaugeVec
	sinceDes *prometheus.Desc

	mu       sync.Mutex
	lastCard map[string]time.Time
}

// LatencyBuckets are the read-latency histogram's upper bounds, in seconds: 0.5 ms to about 4 s.
var LatencyBuckets = prometheus.ExponentialBuckets(0.0005, 2, 14)

// New registers the metrics on reg. now is the clock (nil: time.Now).
func New(reg prometheus.Registerer, now func() time.Time) *Table {
	if now == nil {
		now = time.Now
	}
	t := &Table{
		now:      now,
		lastCard: map[string]time.Time{},
		cards: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "cards_total",
			Help: "Cards out of the shoe, by how they were identified: read by the shoe, or entered by hand after a misread; and burned."},
			[]string{"table", "how"}),
		rejects: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "reads_rejected_total",
			Help: "Cards the table refused, by reason: misread (unreadable), foreign-card, out-of-turn, unexpected-card, card-while-held."},
			[]string{"table", "reason"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "faults_total",
			Help: "Fault events of the table's feed, by fault code (RULES.md §1 faults and device faults)."},
			[]string{"table", "code"}),
		rounds: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "rounds_total",
			Help: "Rounds ended, by how: settled or voided."},
			[]string{"table", "end"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "card_latency_seconds",
			Help:    "Time from the shoe's read of a card to the card event being observed: journaled, in sabotd; received from the broker, in sabot watch.",
			Buckets: LatencyBuckets}, []string{"table"}),
		devices: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "device_events_total",
			Help: "Asynchronous device events (shuffler jam, door open, misfeed, link down, …), by device and kind."},
			[]string{"table", "device", "kind"}),
		feedRej: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "feed_rejected_total",
			Help: "Messages a consumer refused: undecodable, forged (signature), gap."},
			[]string{"table", "why"}),
		pings: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "watchdog_pings_total",
			Help: "Watchdog keep-alives sent to systemd (WATCHDOG=1)."}),
		stalled: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "loop_stalled",
			Help: "1 while one of the daemon's loops is stalled (the watchdog stops pinging)."}, []string{"loop"}),
		sinceDes: prometheus.NewDesc(Namespace+"_seconds_since_last_card",
			"Seconds since the last card read from the shoe (cards entered by hand not counted).", []string{"table"}, nil),
	}
	reg.MustRegister(t.cards, t.rejects, t.faults, t.rounds, t.latency, t.devices, t.feedRej, t.pings, t.stalled, sinceCollector{t})
	return t
}

// sinceCollector computes the seconds since the last card at scrape time.
type sinceCollector struct{ t *Table }

func (c sinceCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.t.sinceDes }

func (c sinceCollector) Collect(ch chan<- prometheus.Metric) {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	now := c.t.now()
	for table, at := range c.t.lastCard {
		ch <- prometheus.MustNewConstMetric(c.t.sinceDes, prometheus.GaugeValue, now.Sub(at).Seconds(), table)
	}
}

// rejected maps the fault codes that refuse a card to the reads_rejected reason.
var rejected = map[string]bool{
	shoe.FaultMisread: true, shoe.FaultForeign: true, shoe.FaultOutOfTurn: true,
	shoe.FaultUnexpected: true, shoe.FaultCardWhenHeld: true,
}

// Observe counts one event of a table's feed, observed at now. A card's latency is measured from
// its timestamp (the read's time) for cards read by the shoe.
func (t *Table) Observe(e tablebus.Event, now time.Time) {
	if e.Source != "" && e.Source != tablebus.SourceTable {
		return // an engine's stream
	}
	switch e.Type {
	case tablebus.CardDealt:
		if e.Manual != nil {
			t.cards.WithLabelValues(e.Table, "manual").Inc()
			return
		}
		t.cards.WithLabelValues(e.Table, "read").Inc()
		if !e.TS.IsZero() {
			t.latency.WithLabelValues(e.Table).Observe(max(0, now.Sub(e.TS).Seconds()))
			t.mu.Lock()
			if e.TS.After(t.lastCard[e.Table]) {
				t.lastCard[e.Table] = e.TS
			}
			t.mu.Unlock()
		}
	case tablebus.Burn:
		t.cards.WithLabelValues(e.Table, "burned").Inc()
	case tablebus.Fault:
		t.faults.WithLabelValues(e.Table, e.Code).Inc()
		if rejected[e.Code] {
			t.rejects.WithLabelValues(e.Table, e.Code).Inc()
		}
	case tablebus.RoundSettled:
		t.rounds.WithLabelValues(e.Table, "settled").Inc()
	case tablebus.RoundVoided:
		t.rounds.WithLabelValues(e.Table, "voided").Inc()
	}
}

// DeviceEvent counts an asynchronous device event.
func (t *Table) DeviceEvent(table, device, kind string) {
	t.devices.WithLabelValues(table, device, kind).Inc()
}

// FeedRejected counts a message a consumer refused.
func (t *Table) FeedRejected(table, why string) {
	t.feedRej.WithLabelValues(table, why).Inc()
}

// WatchdogPing counts a keep-alive sent to systemd.
func (t *Table) WatchdogPing() { t.pings.Inc() }

// Stalled sets whether a loop is stalled.
func (t *Table) Stalled(loop string, stalled bool) {
	v := 0.0
	if stalled {
		v = 1
	}
	t.stalled.WithLabelValues(loop).Set(v)
}

// QueueDepth registers the gauge of events journaled but not yet handed to the broker, read
// from depth at scrape time.
func QueueDepth(reg prometheus.Registerer, table string, depth func() float64) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "mqtt_queue_depth",
		Help:        "Events journaled but not yet published to the broker (the outbox's backlog).",
		ConstLabels: prometheus.Labels{"table": table}}, depth))
}
