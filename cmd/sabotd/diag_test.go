package main

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/cmd/internal/metrics"
	"github.com/sabot-tables/sabot/cmd/internal/sdnotify"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// testDiag builds the technician side of a table on simulated devices (pseudo-terminals).
func testDiag(t *testing.T) (*diag, *floor.Floor, *devices) {
	t.Helper()
	o := &options{table: "T1", game: "punto-banco", sim: true, simSeed: 5, simPace: time.Millisecond, shufflerKind: "sabot"}
	o.ops.stallAfter = 30 * time.Second
	log := slog.New(slog.DiscardHandler)
	proc, _ := shoe.ProcedureFor(shoe.Baccarat, 0)
	devs, err := openDevices(context.Background(), o, proc, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(devs.Close)
	j, err := journal.Open(filepath.Join(t.TempDir(), "T1.db"), "T1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	eng, _ := catalog.New(games.Config{Game: "punto-banco"})
	m, _ := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1"})
	ob := outbox.New(j, 1, log)
	loop := shoe.NewLoop(m, devs.shuffler, ob, log)
	fl := floor.New(floor.Options{})
	met := metrics.New(prometheus.NewRegistry(), nil)
	g := newDiag(opsDeps{o: o, log: log, j: j, ob: ob, loop: loop, devs: devs, session: 1}, sdnotify.NewWatchdog(time.Second, nil, nil), fl, met)
	if _, ok := loop.Shuffler.(*watchedShuffler); !ok {
		t.Fatalf("the loop's shuffler is %T, not watched", loop.Shuffler)
	}
	return g, fl, devs
}

func facts(fs []floor.Fact) map[string]string {
	out := map[string]string{}
	for _, f := range fs {
		out[f.Name] = f.Value
	}
	return out
}

// TestDiag: the technician page of a simulated table: the shuffler's status and self-test (not
// while a round is dealt, nor while the loop uses the shuffler), the counters and faults from
// the feed, and fault injection.
func TestDiag(t *testing.T) {
	g, fl, _ := testDiag(t)
	ctx := context.Background()
	g.pollShuffler(ctx)
	g.report()
	d, err := g.Diagnostics(ctx, "T1")
	if err != nil {
		t.Fatal(err)
	}
	var shuf floor.DeviceDiag
	for _, dev := range d.Devices {
		if dev.Name == "shuffler" {
			shuf = dev
		}
	}
	f := facts(shuf.Facts)
	if shuf.State != "ok" || f["door"] != "closed" || f["jammed"] != "false" || f["serial number"] == "" {
		t.Errorf("shuffler: %+v", shuf)
	}
	if got := strings.Join(d.Injectable, ","); got != "misread,shoe-alarm,shuffler-door" {
		t.Errorf("injectable %q", got)
	}
	if _, err := g.Diagnostics(ctx, "T2"); err == nil || !strings.Contains(err.Error(), "this daemon runs table T1") {
		t.Errorf("another table: %v", err)
	}

	// The feed: counters and the fault history.
	card := func(pos int, manual bool) tablebus.Event {
		e := tablebus.Event{Type: tablebus.CardDealt, Table: "T1", Pos: pos, TS: t0()}
		if manual {
			e.Manual = &tablebus.Manual{Dealer: "d-1"}
		}
		return e
	}
	g.observe(card(1, false), true)
	g.observe(card(2, true), true)
	g.observe(tablebus.Event{Type: tablebus.Fault, Code: "shoe-link", Problem: "shoe: the shoe's serial link went down", TS: t0()}, true)
	g.observe(tablebus.Event{Type: tablebus.Fault, Code: "misread", Problem: "the card could not be read", TS: t0()}, false) // history: not counted
	d, _ = g.Diagnostics(ctx, "T1")
	c := facts(d.Counters)
	if c["cards read"] != "1" || c["cards entered by hand"] != "1" || c["faults: shoe-link"] != "1" || c["faults: misread"] != "" {
		t.Errorf("counters %v", c)
	}
	if len(d.Faults) != 2 || d.Faults[0].Kind != "misread" || d.Faults[1].Device != "shoe" {
		t.Errorf("faults %+v", d.Faults)
	}
	var reader floor.DeviceDiag
	for _, dev := range d.Devices {
		if dev.Name == "reading shoe" {
			reader = dev
		}
	}
	if reader.State != "down" {
		t.Errorf("the reading shoe after its link went down: %+v", reader)
	}

	// The self-test: refused while dealing and while the loop uses the shuffler.
	fl.Apply(floor.Delivery{Event: &tablebus.Event{V: 1, Seq: 1, Type: tablebus.Guide, Table: "T1", State: "in-round", TS: t0()}})
	if _, err := g.SelfTest(ctx, "T1"); err == nil || !strings.Contains(err.Error(), "the table is in-round; run the self-test between rounds") {
		t.Errorf("self-test while dealing: %v", err)
	}
	fl.Apply(floor.Delivery{Event: &tablebus.Event{V: 1, Seq: 2, Type: tablebus.Guide, Table: "T1", State: "between-rounds", TS: t0()}})
	done := g.loop.Shuffler.(*watchedShuffler).op("shuffling")
	if _, err := g.SelfTest(ctx, "T1"); err == nil || !strings.Contains(err.Error(), "the shuffler is shuffling") {
		t.Errorf("self-test while shuffling: %v", err)
	}
	if s := g.wd.States()[0]; s.Busy != "shuffler: shuffling" {
		t.Errorf("the watchdog during a shuffle: %+v", s)
	}
	done()
	r, err := g.SelfTest(ctx, "T1")
	if err != nil || !r.Passed || r.Device != "shuffler" {
		t.Fatalf("self-test: %+v, %v", r, err)
	}
	d, _ = g.Diagnostics(ctx, "T1")
	for _, dev := range d.Devices {
		if dev.Name == "shuffler" && !strings.HasPrefix(facts(dev.Facts)["last self-test"], "passed at ") {
			t.Errorf("the shuffler's facts after the self-test: %v", dev.Facts)
		}
	}

	// Injection.
	for _, f := range []string{"misread", "shoe-alarm", "shuffler-door"} {
		if err := g.Inject(ctx, "T1", f); err != nil {
			t.Errorf("inject %s: %v", f, err)
		}
	}
	if err := g.Inject(ctx, "T1", "fire"); err == nil || !strings.Contains(err.Error(), `unknown fault "fire"`) {
		t.Errorf("inject fire: %v", err)
	}
	sim := g.devs.sim
	g.devs.sim = nil
	if err := g.Inject(ctx, "T1", "misread"); !errors.Is(err, floor.ErrNotSimulated) {
		t.Errorf("inject on real devices: %v", err)
	}
	g.devs.sim = sim
}

func t0() time.Time { return time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC) }
