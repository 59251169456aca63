package floor

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sort"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
)

// Feed is where a floor's deliveries come from. Next blocks until the next delivery or until ctx
// is done (then it returns ctx's error). An implementation delivers a table's events in sequence
// order; one that verifies signatures delivers a refused event as a Problem, never as an Event.
type Feed interface {
	Next(ctx context.Context) (Delivery, error)
}

// Delivery is one thing a feed says. Exactly one field is set.
type Delivery struct {
	Event   *tablebus.Event  // an event of a table's feed, or of a separate engine's stream
	Status  *tablebus.Status // a daemon's birth or death (the retained status, or its last will)
	Devices *DeviceReport    // a daemon's report of its devices
	Problem *Problem         // what the feed's consumer refused or noticed
	Meter   *tablebus.Meter  // a progressive pool's meter (progressive.go)
}

// ProblemKind says what a feed's consumer found wrong.
type ProblemKind string

// The problems a feed reports.
const (
	ProblemForged   ProblemKind = "forged"   // a signature or hash chain that does not verify
	ProblemRejected ProblemKind = "rejected" // a payload that does not decode (tablebus.Decode)
	ProblemGap      ProblemKind = "gap"      // events missing that the consumer could not recover
	ProblemLink     ProblemKind = "link"     // the consumer's own connection (to the broker) is down
	ProblemLinkUp   ProblemKind = "link-up"  // and back
)

// Problem is something a feed's consumer refused or noticed.
type Problem struct {
	Table  string      `json:"table,omitempty"` // "" when it concerns no one table (the link)
	Kind   ProblemKind `json:"kind"`
	Detail string      `json:"detail"`
	At     time.Time   `json:"at"`
}

// DeviceReport is a daemon's report of its devices, retained on the table's devices topic
// (tablebus Topics.Devices) so that a floor that follows the broker sees them too.
type DeviceReport struct {
	V       int       `json:"v"`
	Table   string    `json:"table"`
	Devices []Device  `json:"devices"`
	TS      time.Time `json:"ts"`
}

// Floor is the live model of every table a view follows, with the alert strip. Its methods are
// safe for concurrent use.
type Floor struct {
	log   *slog.Logger
	now   func() time.Time
	heavy int // Options.HeavySideBet

	mu        sync.Mutex
	tables    map[string]*table
	book      alertBook
	version   uint64 // bumped at every change
	alertsVer uint64 // the version of the last change to the alerts
	link      *Problem
	meters    map[string]tablebus.Meter // the progressive pools' latest meters (progressive.go)
	pit       *Pit                      // the pit's figures (pit.go)
	links     map[string]string         // each progressive table's link, open or closed (progressive.go)
	changed   chan struct{}             // closed at the next change
}

// Options configure a Floor.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time // default time.Now
	// HeavySideBet is the live odds' heavy side bet, in percent of the seat's player and
	// banker stakes, for the tables not configured otherwise; 0: DefaultHeavySideBet.
	HeavySideBet int
}

// New returns an empty floor.
func New(o Options) *Floor {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Floor{log: o.Logger, now: o.Now, heavy: o.HeavySideBet, tables: map[string]*table{}, changed: make(chan struct{}), pit: NewPit()}
}

func (f *Floor) table(id string) *table {
	t, ok := f.tables[id]
	if !ok {
		t = newTable(id)
		t.odds.heavyDefault = f.heavy
		f.tables[id] = t
	}
	return t
}

// bump records a change; the caller holds f.mu.
func (f *Floor) bump(t *table, alerts bool) {
	f.version++
	if t != nil {
		t.v.Version = f.version
	}
	if alerts {
		f.alertsVer = f.version
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// Apply takes one delivery and returns the alerts it raised.
func (f *Floor) Apply(d Delivery) []Alert {
	return f.apply(d, true)
}

// Prime applies deliveries from the past (a journal read at start) without raising alerts: the
// view stands where the table stands, and the strip shows only what happens from now on.
func (f *Floor) Prime(d Delivery) { f.apply(d, false) }

func (f *Floor) apply(d Delivery, raise bool) []Alert {
	f.mu.Lock()
	defer f.mu.Unlock()
	var raised []Alert
	var t *table
	changedAlerts := false
	switch {
	case d.Event != nil:
		if tablebus.ValidTable(d.Event.Table) != nil {
			return nil
		}
		t = f.table(d.Event.Table)
		before := t.v.Seq
		alerts, resolved := t.apply(*d.Event)
		if t.v.Seq == before && len(alerts) == 0 {
			return nil // a duplicate
		}
		f.pit.Apply(*d.Event)
		f.progressiveLink(*d.Event)
		for _, r := range resolved {
			if f.book.resolve(t.v.Table, r[0], r[1]) {
				changedAlerts = true
			}
		}
		raised = alerts
	case d.Status != nil:
		if tablebus.ValidTable(d.Status.Table) != nil {
			return nil
		}
		t = f.table(d.Status.Table)
		raised = t.status(*d.Status)
	case d.Devices != nil:
		if tablebus.ValidTable(d.Devices.Table) != nil {
			return nil
		}
		t = f.table(d.Devices.Table)
		for _, dev := range d.Devices.Devices {
			t.device(dev)
		}
	case d.Meter != nil:
		if !f.meter(*d.Meter) {
			return nil
		}
	case d.Problem != nil:
		p := *d.Problem
		if p.At.IsZero() {
			p.At = f.now()
		}
		switch p.Kind {
		case ProblemLink:
			f.link = &p
			raised = []Alert{{Table: p.Table, Kind: KindWatch, Text: p.Detail, At: p.At}}
		case ProblemLinkUp:
			f.link = nil
		case ProblemForged:
			raised = []Alert{{Table: p.Table, Kind: KindForged, Text: p.Detail, At: p.At}}
		default:
			raised = []Alert{{Table: p.Table, Kind: KindFeed, Text: string(p.Kind) + ": " + p.Detail, At: p.At}}
		}
		if p.Table != "" && tablebus.ValidTable(p.Table) == nil {
			t = f.table(p.Table)
		}
	default:
		return nil
	}
	if !raise {
		raised = nil
	}
	for i, a := range raised {
		if a.At.IsZero() {
			a.At = f.now()
		}
		raised[i] = *f.book.raise(a)
		changedAlerts = true
		f.log.Warn("alert", "table", a.Table, "kind", string(a.Kind), "text", a.Text)
	}
	f.bump(t, changedAlerts)
	return raised
}

// Raise puts an alert of the view's own on the strip (a stalled loop seen by the daemon, a
// device fault that is not on the feed).
func (f *Floor) Raise(a Alert) Alert {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a.At.IsZero() {
		a.At = f.now()
	}
	r := *f.book.raise(a)
	var t *table
	if a.Table != "" && tablebus.ValidTable(a.Table) == nil {
		t = f.table(a.Table)
	}
	f.bump(t, true)
	f.log.Warn("alert", "table", a.Table, "kind", string(a.Kind), "text", a.Text)
	return r
}

// SetDevices replaces what the view shows of a table's devices with what its daemon knows.
func (f *Floor) SetDevices(table string, devs []Device) {
	f.Apply(Delivery{Devices: &DeviceReport{Table: table, Devices: devs}})
}

// Ack acknowledges an alert in the name of by (an operator's id). The first acknowledgement
// stands; acknowledging again is not an error.
func (f *Floor) Ack(id uint64, by string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.book.ack(id, by, f.now()); err != nil {
		return err
	}
	f.bump(nil, true)
	f.log.Info("alert acknowledged", "id", id, "by", by)
	return nil
}

// Snapshot is the whole floor at one version.
type Snapshot struct {
	Version   uint64      `json:"version"`
	Tables    []TableView `json:"tables"` // by table id
	Alerts    []Alert     `json:"alerts"`
	AlertsVer uint64      `json:"alerts_version"`
	Link      *Problem    `json:"link,omitempty"` // the view's own feed is down
	// Pools are the progressive pools' meters (RULES.md §7), by pool.
	Pools []tablebus.Meter `json:"pools,omitempty"`
	// Progressive is each progressive table's link: "open" (it takes progressive bets) or
	// "closed" (its controller is offline).
	Progressive map[string]string `json:"progressive,omitempty"`
}

// Snapshot returns the floor as it is now; tables and alerts changed after version since only
// (since 0: everything).
func (f *Floor) Snapshot(since uint64) Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := Snapshot{Version: f.version, AlertsVer: f.alertsVer, Tables: []TableView{}, Link: f.link}
	for _, t := range f.tables {
		if t.v.Version > since || since == 0 {
			s.Tables = append(s.Tables, t.view())
		}
	}
	sort.Slice(s.Tables, func(i, j int) bool { return s.Tables[i].Table < s.Tables[j].Table })
	s.Pools = f.pools()
	s.Progressive = maps.Clone(f.links)
	if since == 0 || f.alertsVer > since {
		s.Alerts = f.book.list()
	}
	return s
}

// Table returns one table's view.
func (f *Floor) Table(id string) (TableView, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tables[id]
	if !ok {
		return TableView{}, false
	}
	return t.view(), true
}

// Changed returns a channel closed at the floor's next change.
func (f *Floor) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

// view returns a deep enough copy of the table's view to hand out of the lock.
func (t *table) view() TableView {
	v := t.v
	v.Say = append([]string(nil), v.Say...)
	v.Recent = append([]Outcome{}, v.Recent...)
	v.Devices = append([]Device(nil), v.Devices...)
	if v.Round != nil {
		r := *v.Round
		r.Hands = make([]HandView, len(v.Round.Hands))
		for i, h := range v.Round.Hands {
			h.Cards = append([]CardView{}, h.Cards...)
			h.Decisions = append([]string(nil), h.Decisions...)
			r.Hands[i] = h
		}
		r.Burns = append([]CardView(nil), r.Burns...)
		r.Bets = append([]tablebus.Bet{}, r.Bets...)
		v.Round = &r
	}
	if v.Roads != nil {
		roads := *v.Roads
		v.Roads = &roads // the board's View already returns fresh slices
	}
	return v
}

// Run applies the feed's deliveries until ctx is done or the feed fails.
func (f *Floor) Run(ctx context.Context, feed Feed) error {
	for {
		d, err := feed.Next(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
		f.Apply(d)
	}
}
