package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/cmd/internal/metrics"
	"github.com/sabot-tables/sabot/cmd/internal/sdnotify"
	"github.com/sabot-tables/sabot/driver/shuffler"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// deviceBudget is how long one shuffler operation may keep the shoe loop from answering: the
// driver's reply timeout (5 min: 8 decks at 25 s a deck, with margin) and its retries.
const deviceBudget = 6 * time.Minute

// probeEvery is how often the watchdog's prober asks the shoe loop for a sign of life.
const probeEvery = 2 * time.Second

// maxFaults is how many faults the technician page keeps.
const maxFaults = 50

// diag is the table's technician side: what the devices say, the counters of this session, the
// last faults, the watchdog's view of the loops, the shuffler's self-test, and fault injection
// on a simulated table. It implements floor.Technician.
type diag struct {
	table   string
	game    string
	log     *slog.Logger
	started time.Time
	session uint64
	journal string
	devs    *devices
	loop    *shoe.Loop
	ob      *outbox.Outbox
	client  *mqttbus.Client
	wd      *sdnotify.Watchdog
	shoeHB  *sdnotify.Heartbeat
	floor   *floor.Floor
	met     *metrics.Table

	mu       sync.Mutex
	counts   map[string]int
	faults   []floor.FaultRecord // newest last
	reader   floor.Device        // the reading shoe, from the feed
	busyWhat string              // the shuffler operation the loop is in, or ""
	shufSt   *shuffler.Status
	shufAt   time.Time
	shufErr  error
	selfTest *floor.SelfTestResult
	lastRep  string      // the last device report published
	reports  chan []byte // the latest device report to publish (one slot: the latest wins)
}

var _ floor.Technician = (*diag)(nil)

func newDiag(d opsDeps, wd *sdnotify.Watchdog, fl *floor.Floor, met *metrics.Table) *diag {
	g := &diag{table: d.o.table, game: d.o.game, log: d.log.With("component", "diag"), started: time.Now(), reports: make(chan []byte, 1),
		session: d.session, journal: d.j.Path(), devs: d.devs, loop: d.loop, ob: d.ob, client: d.client,
		wd: wd, floor: fl, met: met, counts: map[string]int{},
		reader: floor.Device{Name: "reading shoe", State: "ok", Detail: "connected", Since: time.Now()}}
	g.shoeHB = wd.Heartbeat("shoe loop", d.o.ops.stallAfter)
	// The loop's shuffler calls are device operations of bounded length: the watchdog waits
	// for them instead of taking them for a stall.
	if d.loop.Shuffler != nil {
		d.loop.Shuffler = &watchedShuffler{inner: d.loop.Shuffler, d: g}
	}
	return g
}

// watchedShuffler marks the loop busy for the watchdog during each shuffler operation.
type watchedShuffler struct {
	inner shoe.Shuffler
	d     *diag
}

var _ shoe.Shuffler = (*watchedShuffler)(nil)

func (w *watchedShuffler) op(what string) func() {
	w.d.shoeHB.Busy("shuffler: "+what, deviceBudget)
	w.d.mu.Lock()
	w.d.busyWhat = what
	w.d.mu.Unlock()
	w.d.report()
	return func() {
		w.d.shoeHB.Beat()
		w.d.mu.Lock()
		w.d.busyWhat = ""
		w.d.mu.Unlock()
		w.d.report()
	}
}

func (w *watchedShuffler) LoadVerify(ctx context.Context) (card.Counts, error) {
	defer w.op("reading and verifying the cards")()
	return w.inner.LoadVerify(ctx)
}

func (w *watchedShuffler) Shuffle(ctx context.Context, decks int) (int, error) {
	defer w.op("shuffling")()
	return w.inner.Shuffle(ctx, decks)
}

func (w *watchedShuffler) Count(ctx context.Context) (card.Counts, error) {
	defer w.op("counting the cards left")()
	return w.inner.Count(ctx)
}

// probeOnce asks the shoe loop for a sign of life and beats its heartbeat when it answers. It
// waits as long as a device operation may last; false when ctx is done.
func probeOnce(ctx context.Context, loop *shoe.Loop, hb *sdnotify.Heartbeat) bool {
	pctx, cancel := context.WithTimeout(ctx, deviceBudget)
	err := loop.Do(pctx, shoe.Ping{})
	cancel()
	if ctx.Err() != nil {
		return false
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		hb.Beat() // refused at once: the loop takes inputs
	}
	return true
}

// probe runs probeOnce every probeEvery until ctx is done.
func probe(ctx context.Context, loop *shoe.Loop, hb *sdnotify.Heartbeat) {
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !probeOnce(ctx, loop, hb) {
				return
			}
		}
	}
}

// run probes the shoe loop for the watchdog, polls the shuffler's status and publishes the
// device report until ctx is done; it returns once its goroutines have.
func (g *diag) run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(2)
	go func() { defer wg.Done(); probe(ctx, g.loop, g.shoeHB) }()
	go func() { defer wg.Done(); g.publishReports(ctx) }()
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	poll := time.NewTicker(15 * time.Second)
	defer poll.Stop()
	g.pollShuffler(ctx)
	g.report()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			g.report()
		case <-poll.C:
			g.pollShuffler(ctx)
			g.report()
		}
	}
}

// publishReports publishes the device reports report() leaves, one at a time, the latest only.
func (g *diag) publishReports(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-g.reports:
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			if err := g.client.Publish(pctx, tablebus.Topics{Table: g.table}.Devices(), b, 1, true); err != nil {
				g.log.Debug("publishing the device report", "err", err)
			}
			cancel()
		}
	}
}

// pollShuffler asks the shuffler for its status, unless the loop is using it.
func (g *diag) pollShuffler(ctx context.Context) {
	g.mu.Lock()
	busy := g.busyWhat != ""
	g.mu.Unlock()
	if busy || g.devs == nil || g.devs.shuffler == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := g.devs.shuffler.dev.Status(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shufAt, g.shufErr = time.Now(), err
	if err == nil {
		g.shufSt = &st
	}
}

// observe counts one event of the table's feed (live is false for the history primed from the
// journal: only the faults are kept from it).
func (g *diag) observe(e tablebus.Event, live bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch e.Type {
	case tablebus.CardDealt:
		if !live {
			return
		}
		if e.Manual != nil {
			g.counts["cards entered by hand"]++
		} else {
			g.counts["cards read"]++
			if g.reader.State != "ok" {
				g.reader = floor.Device{Name: "reading shoe", State: "ok", Detail: "reading", Since: e.TS}
			}
		}
	case tablebus.Burn:
		if live {
			g.counts["cards burned"]++
		}
	case tablebus.RoundSettled:
		if live {
			g.counts["rounds settled"]++
		}
	case tablebus.RoundVoided:
		if live {
			g.counts["rounds voided"]++
		}
	case tablebus.ShoeEnded:
		if live {
			g.counts["shoes ended"]++
		}
	case tablebus.Fault:
		if live {
			g.counts["faults: "+e.Code]++
		}
		dev := "table"
		if i := indexColon(e.Problem); i > 0 && (e.Problem[:i] == "shoe" || e.Problem[:i] == "shuffler") {
			dev = e.Problem[:i]
		}
		g.faults = append(g.faults, floor.FaultRecord{At: e.TS, Device: dev, Kind: e.Code, Detail: e.Problem})
		if len(g.faults) > maxFaults {
			g.faults = g.faults[len(g.faults)-maxFaults:]
		}
		switch e.Code {
		case "shoe-link":
			g.reader = floor.Device{Name: "reading shoe", State: "down", Detail: e.Problem, Since: e.TS}
		case "shoe-alarm":
			g.reader = floor.Device{Name: "reading shoe", State: "fault", Detail: e.Problem, Since: e.TS}
		}
	}
}

func indexColon(s string) int {
	for i := 0; i < len(s) && i < 20; i++ {
		if s[i] == ':' {
			return i
		}
	}
	return -1
}

// devices says every device's state for the floor and the devices topic.
func (g *diag) devices() []floor.Device {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := []floor.Device{g.shufflerDevice(), g.reader}
	broker := floor.Device{Name: "broker", State: "ok", Detail: "connected"}
	if g.client != nil && !g.client.Connected() {
		broker.State, broker.Detail = "down", "reconnecting; the journal keeps every event"
	}
	if n := g.ob.LastSeq() - g.ob.Published(); n > 0 {
		broker.Detail += fmt.Sprintf(", %d events queued", n)
	}
	out = append(out, broker)
	for _, s := range g.wd.States() {
		if s.Stalled {
			out = append(out, floor.Device{Name: s.Name, State: "stalled", Detail: s.Why})
		}
	}
	return out
}

func (g *diag) shufflerDevice() floor.Device {
	d := floor.Device{Name: "shuffler", State: "unknown"}
	switch {
	case g.busyWhat != "":
		d.State, d.Detail = "busy", g.busyWhat
	case g.shufErr != nil:
		d.State, d.Detail = "down", g.shufErr.Error()
	case g.shufSt != nil:
		st := g.shufSt
		switch {
		case st.Jammed:
			d.State, d.Detail = "fault", "jammed"
		case st.DoorOpen:
			d.State, d.Detail = "fault", "door open"
		case st.Fault != 0:
			d.State, d.Detail = "fault", st.Fault.String()
		default:
			d.State, d.Detail = "ok", st.State.String()
		}
	}
	return d
}

// report hands the devices to the floor and, when they changed, publishes them retained on the
// table's devices topic for floors that follow the broker.
func (g *diag) report() {
	devs := g.devices()
	key, _ := json.Marshal(devs)
	g.mu.Lock()
	changed := string(key) != g.lastRep
	g.lastRep = string(key)
	g.mu.Unlock()
	if !changed {
		return
	}
	g.floor.SetDevices(g.table, devs)
	if g.client == nil || !g.client.Connected() {
		g.mu.Lock()
		g.lastRep = "" // publish it once the broker is back
		g.mu.Unlock()
		return
	}
	b, err := json.Marshal(floor.DeviceReport{V: tablebus.SchemaVersion, Table: g.table, Devices: devs, TS: time.Now().UTC()})
	if err != nil {
		return
	}
	select { // the latest report replaces one not yet published
	case <-g.reports:
	default:
	}
	select {
	case g.reports <- b:
	default:
	}
}

// Diagnostics returns the technician page of the table.
func (g *diag) Diagnostics(ctx context.Context, table string) (floor.Diagnostics, error) {
	if table != g.table {
		return floor.Diagnostics{}, fmt.Errorf("sabotd: this daemon runs table %s, not %q", g.table, table)
	}
	devs := g.devices()
	g.mu.Lock()
	defer g.mu.Unlock()
	up := time.Since(g.started).Round(time.Second)
	d := floor.Diagnostics{Table: g.table,
		Daemon: []floor.Fact{
			{Name: "game", Value: g.game},
			{Name: "session", Value: strconv.FormatUint(g.session, 10)},
			{Name: "up for", Value: up.String()},
			{Name: "journal", Value: g.journal},
			{Name: "last event", Value: "#" + strconv.FormatUint(g.ob.LastSeq(), 10)},
			{Name: "published to the broker", Value: "#" + strconv.FormatUint(g.ob.Published(), 10), Bad: g.ob.LastSeq()-g.ob.Published() > 100},
		},
		Faults: []floor.FaultRecord{},
	}
	for i := len(g.faults) - 1; i >= 0; i-- {
		d.Faults = append(d.Faults, g.faults[i])
	}
	for _, dev := range devs {
		dd := floor.DeviceDiag{Device: dev}
		switch dev.Name {
		case "shuffler":
			if g.devs != nil && g.devs.shuffler != nil {
				dd.Facts = append(dd.Facts, floor.Fact{Name: "port", Value: g.devs.shuffler.dev.String()})
			}
			if st := g.shufSt; st != nil {
				dd.Facts = append(dd.Facts,
					floor.Fact{Name: "state", Value: st.State.String()},
					floor.Fact{Name: "door", Value: map[bool]string{true: "open", false: "closed"}[st.DoorOpen], Bad: st.DoorOpen},
					floor.Fact{Name: "jammed", Value: strconv.FormatBool(st.Jammed), Bad: st.Jammed},
					floor.Fact{Name: "cards in the input tray", Value: strconv.Itoa(st.InputCards)},
					floor.Fact{Name: "cards in the output tray", Value: strconv.Itoa(st.OutputCards)},
					floor.Fact{Name: "shuffles (meter)", Value: strconv.FormatUint(uint64(st.Shuffles), 10)},
					floor.Fact{Name: "serial number", Value: st.Serial},
					floor.Fact{Name: "firmware", Value: st.Firmware},
					floor.Fact{Name: "status read", Value: g.shufAt.UTC().Format(time.RFC3339)})
			}
			if g.shufErr != nil {
				dd.Facts = append(dd.Facts, floor.Fact{Name: "last status", Value: g.shufErr.Error(), Bad: true})
			}
			if r := g.selfTest; r != nil {
				dd.Facts = append(dd.Facts, floor.Fact{Name: "last self-test", Value: fmt.Sprintf("%s at %s: %s",
					map[bool]string{true: "passed", false: "FAILED"}[r.Passed], r.At.UTC().Format(time.RFC3339), r.Detail), Bad: !r.Passed})
			}
		case "reading shoe":
			if g.devs != nil && g.devs.reader != nil {
				dd.Facts = append(dd.Facts, floor.Fact{Name: "port", Value: g.devs.reader.String()})
			}
			for _, k := range []string{"cards read", "cards entered by hand", "faults: misread", "faults: shoe-alarm", "faults: shoe-link"} {
				dd.Facts = append(dd.Facts, floor.Fact{Name: k, Value: strconv.Itoa(g.counts[k]), Bad: k != "cards read" && g.counts[k] > 0})
			}
		}
		d.Devices = append(d.Devices, dd)
	}
	keys := make([]string, 0, len(g.counts))
	for k := range g.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d.Counters = append(d.Counters, floor.Fact{Name: k, Value: strconv.Itoa(g.counts[k])})
	}
	for _, s := range g.wd.States() {
		l := floor.Loop{Name: s.Name, State: "ok", LastBeat: s.LastBeat, Detail: "answered " + time.Since(s.LastBeat).Round(time.Second).String() + " ago"}
		if s.Busy != "" {
			l.State, l.Detail = "busy", s.Busy
		}
		if s.Stalled {
			l.State, l.Detail = "stalled", s.Why
		}
		d.Loops = append(d.Loops, l)
	}
	if g.devs != nil && g.devs.sim != nil {
		d.Injectable = injectable
	}
	return d, nil
}

// SelfTest runs the shuffler's self-test, when the loop is not using the shuffler and no round
// is being dealt.
func (g *diag) SelfTest(ctx context.Context, table string) (floor.SelfTestResult, error) {
	if table != g.table {
		return floor.SelfTestResult{}, fmt.Errorf("sabotd: this daemon runs table %s, not %q", g.table, table)
	}
	g.mu.Lock()
	busy := g.busyWhat
	g.mu.Unlock()
	if busy != "" {
		return floor.SelfTestResult{}, fmt.Errorf("sabotd: the shuffler is %s; run the self-test when it is idle", busy)
	}
	if v, ok := g.floor.Table(g.table); ok && (v.State == shoe.InRound.String() || v.State == shoe.Burning.String()) {
		return floor.SelfTestResult{}, fmt.Errorf("sabotd: the table is %s; run the self-test between rounds", v.State)
	}
	if g.devs == nil || g.devs.shuffler == nil {
		return floor.SelfTestResult{}, fmt.Errorf("sabotd: no shuffler")
	}
	st, err := g.devs.shuffler.dev.SelfTest(ctx)
	if err != nil {
		return floor.SelfTestResult{}, err
	}
	r := floor.SelfTestResult{Device: "shuffler", Passed: st.Passed, Detail: st.Text, At: time.Now().UTC()}
	if r.Detail == "" {
		r.Detail = st.Code.String()
	}
	g.mu.Lock()
	g.selfTest = &r
	g.mu.Unlock()
	g.log.Info("shuffler self-test", "passed", st.Passed, "code", st.Code.String(), "text", st.Text)
	return r, nil
}

// injectable are the faults a simulated table can be made to have. (Pulling the shoe's cable
// is not one: the simulated dealer goes on drawing, and the cards drawn meanwhile are lost for
// good, which wedges the simulation rather than showing anything.)
var injectable = []string{"misread", "shoe-alarm", "shuffler-door"}

// Inject makes a simulated device misbehave as a real one would.
func (g *diag) Inject(ctx context.Context, table, fault string) error {
	if table != g.table {
		return fmt.Errorf("sabotd: this daemon runs table %s, not %q", g.table, table)
	}
	if g.devs == nil || g.devs.sim == nil {
		return floor.ErrNotSimulated
	}
	sim := g.devs.sim
	switch fault {
	case "misread":
		sim.shoe.NotRead(1) // the next card leaves the shoe unread: the round is held
	case "shoe-alarm":
		switch sh := sim.shoe.(type) {
		case readerSim:
			sh.Alarm(false, "E7", "Shoe Jam")
		case *simCameraShoe: // the camera shoe's alarm: its lid opened mid-shoe
			sh.gate.OpenLid()
			time.AfterFunc(time.Second, sh.gate.CloseLid)
		}
	case "shuffler-door":
		sim.shuffler.OpenDoor()
		time.AfterFunc(3*time.Second, sim.shuffler.CloseDoor)
	default:
		return fmt.Errorf("sabotd: unknown fault %q (known: %v)", fault, injectable)
	}
	return nil
}
