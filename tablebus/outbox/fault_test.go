package outbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
	"github.com/sabot-tables/sabot/tablebus/consumer"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// The fault tests run a table's bus (journal, sealing, outbox, paho) against a real mosquitto
// with a verifying consumer (tablebus/consumer) and break things in between: the broker stopped
// for 10 s, the TCP connections cut again and again, the table's process killed with SIGKILL
// 100 times, a burst of 50,000 events through a broker that drops beyond 1,000 queued. After
// each, the consumer's record must equal an uninterrupted run's: every event once, in order,
// byte for byte what the journal holds, with no alarm.
//
// The table is a deterministic generator, event n's content a function of n alone, so that a
// table killed and restarted goes on exactly as an uninterrupted one would (the simulated
// devices of sabotd --sim live in the daemon's process and die with it; the machine-level crash
// test is shoe/replay_test.go). Only the session differs after a restart, as it must.

// event returns the table's event number n, as an uninterrupted run makes it.
func event(table string, n uint64) tablebus.Event {
	e := bustest.Event(table, n)
	e.Say = []string{fmt.Sprintf("event %d of table %s", n, table), string(bytes.Repeat([]byte{'x'}, int(n%97)))}
	return e
}

// tableOpts configure one run of the table.
type tableOpts struct {
	Journal  string
	URL      string
	Table    string
	N        uint64        // events in all
	Every    time.Duration // between steps
	Burst    bool          // no pause at all
	Required []string
	Floor    []string // every table of the floor's keyring (default: Table)
	// Dealt, if set, follows the last event journaled (an in-process table), so that a test
	// can break things after so many events rather than after so much wall-clock time.
	Dealt *atomic.Uint64 `json:"-"`
}

// runTable runs the table until ctx is done: it emits its events up to N in steps of one to
// three, publishing through the outbox.
func runTable(ctx context.Context, o tableOpts) error {
	if len(o.Floor) == 0 {
		o.Floor = []string{o.Table}
	}
	fl, err := bustest.MakeFloor(o.Floor...)
	if err != nil {
		return err
	}
	// As sabotd starts: the journal checked against its high-water mark, which it keeps.
	if _, err := journal.CheckStart(o.Journal, o.Table); err != nil {
		return err
	}
	j, err := journal.Open(o.Journal, o.Table)
	if err != nil {
		return err
	}
	defer j.Close()
	if err := j.KeepHighWater(); err != nil {
		return err
	}
	session, err := j.NewSession()
	if err != nil {
		return err
	}
	ob := outbox.NewWith(j, outbox.Options{Session: session, Signer: fl.Tables[o.Table], Keyring: fl.Keyring.Raw(),
		Required: o.Required, Retransmit: time.Second})
	client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: o.URL, ClientID: "sabotd-" + o.Table,
		NextWill: ob.Will, OnConnect: func(*mqttbus.Client) { ob.Connected() }})
	if err != nil {
		return err
	}
	defer client.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); ob.Run(ctx, client) }()
	defer wg.Wait()
	for ctx.Err() == nil {
		next := j.NextSeq()
		if next > o.N {
			<-ctx.Done()
			break
		}
		size := min(1+next%3, o.N-next+1)
		if o.Burst {
			size = min(10, o.N-next+1)
		}
		var evs []tablebus.Event
		for i := range size {
			e := event(o.Table, next+i)
			e.V, e.Seq, e.Table, e.Source, e.Session = 0, 0, "", "", 0 // the outbox stamps them
			evs = append(evs, e)
		}
		if err := ob.Emit(ctx, nil, evs); err != nil {
			return err
		}
		if o.Dealt != nil {
			o.Dealt.Store(j.NextSeq() - 1)
		}
		if !o.Burst {
			select {
			case <-ctx.Done():
			case <-time.After(o.Every):
			}
		}
	}
	return nil
}

// TestMain runs the table as a helper process when the kill test asks for one.
func TestMain(m *testing.M) {
	if spec := os.Getenv("SABOT_FAULT_TABLE"); spec != "" {
		var o tableOpts
		if err := json.Unmarshal([]byte(spec), &o); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		if err := runTable(ctx, o); err != nil {
			fmt.Fprintln(os.Stderr, "table:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// record is what a consumer received.
type record struct {
	mu     sync.Mutex
	got    map[string][]consumer.Delivery
	alarms []consumer.Alarm
	states []consumer.State
	more   chan struct{} // a delivery since the last look
}

func follow(t *testing.T, ctx context.Context, url string, tables []string) (*record, *consumer.Consumer) {
	t.Helper()
	fl := bustest.NewFloor(t, tables...)
	from := map[string]uint64{}
	for _, tb := range tables {
		from[tb] = 0 // from each table's first event
	}
	c, err := consumer.New(consumer.Options{ID: "engine.E1", Feed: tablebus.Secure, Root: fl.RootPub(), Ack: consumer.AckDelivered,
		From: from, ReplayRetry: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: url, ClientID: "engine.E1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	r := &record{got: map[string][]consumer.Delivery{}, more: make(chan struct{}, 1)}
	go c.Run(ctx, client, consumer.Funcs{
		OnEvent: func(d consumer.Delivery) error {
			r.mu.Lock()
			r.got[d.Table] = append(r.got[d.Table], d)
			r.mu.Unlock()
			select {
			case r.more <- struct{}{}:
			default:
			}
			return nil
		},
		OnAlarm: func(a consumer.Alarm) { r.mu.Lock(); r.alarms = append(r.alarms, a); r.mu.Unlock() },
		OnState: func(s consumer.State) { r.mu.Lock(); r.states = append(r.states, s); r.mu.Unlock() },
	})
	return r, c
}

func (r *record) count(table string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got[table])
}

// waitFor waits until the consumer has n events of table, or fails. One test goroutine waits
// at a time.
func (r *record) waitFor(t *testing.T, table string, n int, limit time.Duration) {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for r.count(table) < n {
		select {
		case <-r.more:
		case <-deadline.C:
			t.Fatalf("%s: the consumer has %d events of %d after %v", table, r.count(table), n, limit)
		}
	}
}

// waitDealt waits until the in-process table has journaled event n, or fails.
func waitDealt(t *testing.T, dealt *atomic.Uint64, n uint64, limit time.Duration) {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for dealt.Load() < n {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("the table has journaled %d events of %d after %v", dealt.Load(), n, limit)
		}
	}
}

// check compares the consumer's record with an uninterrupted run's and with the journal.
func (r *record) check(t *testing.T, table, journalPath string, n uint64) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.alarms {
		t.Errorf("alarm: %s", a)
	}
	got := r.got[table]
	if uint64(len(got)) != n {
		t.Fatalf("%s: %d events received, want %d", table, len(got), n)
	}
	j, err := journal.OpenReadOnly(journalPath)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	i := 0
	err = j.Range(context.Background(), 1, n, func(rec journal.Record) error {
		d := got[i]
		i++
		if d.Seq != rec.Seq || !bytes.Equal(d.Payload, rec.SecureWire) {
			return fmt.Errorf("event %d: the consumer's payload is not the journal's:\n %s\n %s", rec.Seq, d.Payload, rec.SecureWire)
		}
		// The uninterrupted run's event: the same but for the session (one per start).
		want := event(table, rec.Seq)
		e := d.Event
		e.Session, e.Prev, e.Kid, e.Sig = want.Session, "", "", ""
		a, _ := e.Marshal()
		b, _ := want.Marshal()
		if !bytes.Equal(a, b) {
			return fmt.Errorf("event %d differs from an uninterrupted run's:\n got  %s\n want %s", rec.Seq, a, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(i) != n {
		t.Fatalf("the journal has %d events, want %d", i, n)
	}
}

func startTable(ctx context.Context, t *testing.T, o tableOpts) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runTable(ctx, o) }()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("table %s: %v", o.Table, err)
			}
		})
	}
}

// TestBrokerStoppedTenSeconds stops mosquitto (no persistence: it forgets everything) while
// the table deals 1,000 events, 10 s at its 100 events a second (longer on a loaded machine:
// the outage is counted in events, not in wall-clock time).
func TestBrokerStoppedTenSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	br := mosquittotest.Start(t, mosquittotest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec, _ := follow(t, ctx, br.URL(), []string{"T1"})
	const n = 1800
	jpath := filepath.Join(t.TempDir(), "T1.db")
	var dealt atomic.Uint64
	stop := startTable(ctx, t, tableOpts{Journal: jpath, URL: br.URL(), Table: "T1", N: n, Every: 20 * time.Millisecond,
		Required: []string{"engine.E1"}, Dealt: &dealt})
	defer stop()
	rec.waitFor(t, "T1", 200, 30*time.Second)
	br.Stop()
	at := dealt.Load()
	t.Logf("broker stopped: the consumer at event %d, the table at %d", rec.count("T1"), at)
	waitDealt(t, &dealt, at+1000, time.Minute)
	br.Start(t)
	t.Logf("broker started again: the consumer at event %d, the table at %d", rec.count("T1"), dealt.Load())
	rec.waitFor(t, "T1", n, 60*time.Second)
	stop()
	rec.check(t, "T1", jpath, n)
}

// TestConnectionsCut cuts every TCP connection between the table, the consumer and the broker
// 20 times while the table deals, each after the table has journaled another 30 to 89 events
// (150 to 450 ms at its pace, whatever the machine's load): the links flap, and a cut often
// finds a link still down (paho waits longer between reconnections the more they fail).
func TestConnectionsCut(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	br := mosquittotest.Start(t, mosquittotest.Options{})
	px := mosquittotest.NewProxy(t, br.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec, _ := follow(t, ctx, px.URL(), []string{"T1"})
	const n = 1500
	jpath := filepath.Join(t.TempDir(), "T1.db")
	var dealt atomic.Uint64
	stop := startTable(ctx, t, tableOpts{Journal: jpath, URL: px.URL(), Table: "T1", N: n, Every: 10 * time.Millisecond,
		Required: []string{"engine.E1"}, Dealt: &dealt})
	defer stop()
	rng := rand.New(rand.NewPCG(20, 20))
	drops := 0
	for i := 0; i < 20; i++ {
		waitDealt(t, &dealt, dealt.Load()+uint64(30+rng.IntN(60)), 30*time.Second)
		drops += px.DropAll()
	}
	t.Logf("%d connections cut; %d events received so far", drops, rec.count("T1"))
	rec.waitFor(t, "T1", n, 60*time.Second)
	stop()
	rec.check(t, "T1", jpath, n)
}

// TestKilled100Times kills the table's process with SIGKILL at random points, 100 times, and
// starts it again each time on the same journal: each run is killed once the consumer has
// received 0 to 59 more events (0: while the process starts), so that under load the kills
// still land on a table at work. Its high-water mark never finds the journal behind.
func TestKilled100Times(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	br := mosquittotest.Start(t, mosquittotest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rec, _ := follow(t, ctx, br.URL(), []string{"T1"})
	const n = 10000
	jpath := filepath.Join(t.TempDir(), "T1.db")
	o := tableOpts{Journal: jpath, URL: br.URL(), Table: "T1", N: n, Every: 10 * time.Millisecond, Required: []string{"engine.E1"}}
	start := func() *exec.Cmd {
		spec, _ := json.Marshal(o)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "SABOT_FAULT_TABLE="+string(spec))
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	rng := rand.New(rand.NewPCG(9, 9))
	kills := 0
	for kills < 100 {
		at := rec.count("T1") + rng.IntN(60)
		cmd := start()
		rec.waitFor(t, "T1", at, time.Minute)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		kills++
		// A crash at any moment leaves a journal that is not behind its high-water mark.
		if _, err := journal.CheckStart(jpath, "T1"); err != nil {
			t.Fatalf("after kill %d: %v", kills, err)
		}
	}
	j, err := journal.OpenReadOnly(jpath)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kills; the journal reached event %d, the consumer %d", kills, j.NextSeq()-1, rec.count("T1"))
	defer j.Close()
	if rec.count("T1") < 1000 || j.NextSeq() > n {
		t.Errorf("the kills did not all hit a table at work (consumer at %d, journal at %d)", rec.count("T1"), j.NextSeq()-1)
	}
	o.Burst = true // the last run deals the rest at once
	cmd := start()
	defer func() { cmd.Process.Signal(syscall.SIGKILL); cmd.Wait() }()
	rec.waitFor(t, "T1", n, 2*time.Minute)
	rec.check(t, "T1", jpath, n)
}

// TestBurst50000 journals 50,000 events as fast as the journal takes them, through a
// mosquitto with its default queue of 1,000 messages per client, which drops the rest
// silently while acknowledging every publish (research/mqtt.md §5.2): replays fill the gaps.
func TestBurst50000(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	br := mosquittotest.Start(t, mosquittotest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rec, c := follow(t, ctx, br.URL(), []string{"T1"})
	const n = 50000
	jpath := filepath.Join(t.TempDir(), "T1.db")
	t0 := time.Now()
	stop := startTable(ctx, t, tableOpts{Journal: jpath, URL: br.URL(), Table: "T1", N: n, Burst: true, Required: []string{"engine.E1"}})
	defer stop()
	rec.waitFor(t, "T1", n, 3*time.Minute)
	st := c.Stats()["T1"]
	t.Logf("%d events in %v; %d duplicates dropped, %d replay requests", n, time.Since(t0).Round(time.Millisecond), st.Duplicates, st.Replays)
	stop()
	rec.check(t, "T1", jpath, n)
}

// TestSeveralTables runs five tables' daemons against one mosquitto and one consumer of every
// table.
func TestSeveralTables(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	br := mosquittotest.Start(t, mosquittotest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tables := []string{"T1", "T2", "T3", "T4", "T5"}
	rec, _ := follow(t, ctx, br.URL(), tables)
	const n = 400
	dir := t.TempDir()
	var stops []func()
	for _, tb := range tables {
		stops = append(stops, startTable(ctx, t, tableOpts{Journal: filepath.Join(dir, tb+".db"), URL: br.URL(), Table: tb, N: n,
			Every: 5 * time.Millisecond, Required: []string{"engine.E1"}, Floor: tables}))
	}
	for i, tb := range tables {
		rec.waitFor(t, tb, n, time.Minute)
		stops[i]()
		rec.check(t, tb, filepath.Join(dir, tb+".db"), n)
	}
}
