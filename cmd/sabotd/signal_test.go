package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// stopWithin is how soon after SIGTERM the daemon must have exited (issue 16: under systemd a
// daemon that does not stop is killed after TimeoutStopSec, and its offline status is lost).
const stopWithin = 5 * time.Second

// A moment is where a run's SIGTERM falls: after a log line or an event, plus a random delay.
type moment struct {
	kind  string        // calibration, start-up, dealing, between-rounds, anywhere
	card  int           // dealing: after this many cards out of the shoe
	delay time.Duration // after the condition
}

// TestStopOnSignal starts `sabotd --sim` (the camera shoe, the embedded broker, the web view)
// 20 times and sends SIGTERM at a seeded random moment of each run: while the simulated camera
// calibrates, at start-up, while cards cross the camera, between two rounds, or anywhere in
// the first seconds. Each run must exit within 5 s, cleanly (exit 0, no error logged), with
// its offline status published: a real MQTT client subscribed to the retained status must read
// offline last, for the connection it saw online, at the last sequence number the daemon
// logged. The runs share one state directory, so that the camera's calibration (cached there)
// is done once.
func TestStopOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds sabotd and runs it 20 times")
	}
	bin := buildSabotd(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(16, 2))
	ms := stopMoments(rng, 20)
	var exits []time.Duration
	for i, m := range ms {
		table := fmt.Sprintf("S%02d", i+1)
		t.Run(table+"-"+m.kind, func(t *testing.T) {
			d := stopRun(t, bin, dir, table, rng.Uint64()%1000+1, m)
			exits = append(exits, d)
		})
	}
	slices.Sort(exits)
	if len(exits) > 0 {
		t.Logf("%d runs stopped by SIGTERM: exit after the signal median %v, max %v (limit %v)",
			len(exits), exits[len(exits)/2].Round(time.Millisecond), exits[len(exits)-1].Round(time.Millisecond), stopWithin)
	}
}

// stopMoments draws n moments: the first while the camera calibrates (the cache is empty),
// the second while dealing (that run calibrates and caches the profile for the others), then
// start-up, dealing, between rounds and anywhere in turn.
func stopMoments(rng *rand.Rand, n int) []moment {
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(rng.Int64N(int64(hi-lo))) }
	dealing := func() moment {
		return moment{kind: "dealing", card: 1 + rng.IntN(5), delay: between(0, 500*time.Millisecond)}
	}
	out := []moment{{kind: "calibration", delay: between(0, time.Second)}, dealing()}
	for i := 0; len(out) < n; i++ {
		switch i % 4 {
		case 0:
			out = append(out, moment{kind: "start-up", delay: between(0, 300*time.Millisecond)})
		case 1:
			out = append(out, dealing())
		case 2:
			out = append(out, moment{kind: "between-rounds", delay: between(0, 100*time.Millisecond)})
		case 3:
			out = append(out, moment{kind: "anywhere", delay: between(0, 6*time.Second)})
		}
	}
	return out
}

// stopRun runs the daemon once, stops it at m, checks how it stopped, and returns how long it
// took to exit after the signal.
func stopRun(t *testing.T, bin, dir, table string, seed uint64, m moment) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := startProc(t, bin, "--sim", "--table", table, "--journal", filepath.Join(dir, table+".db"),
		"--sim-seed", fmt.Sprint(seed), "--sim-pace", "20ms", "--burn", "1", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
		"--log-format", "json")
	defer d.kill()

	// The bus, as a surveillance client sees it, from as soon as the broker listens.
	rec, err := d.logs.wait(ctx, msgIs("embedded MQTT broker listening"))
	if err != nil {
		t.Fatalf("%v\n%s", err, d.logs.tail(30))
	}
	startup := time.Now()
	bus := &busWatch{changed: make(chan struct{})}
	client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: rec["url"].(string), ClientID: "stop-test-" + table})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	topics := tablebus.Topics{Table: table}
	if err := client.Subscribe(ctx, topics.Status(), 1, bus.status); err != nil {
		t.Fatal(err)
	}
	if err := client.Subscribe(ctx, "sabot/v1/"+table+"/public/events", 1, bus.event); err != nil {
		t.Fatal(err)
	}
	// A browser on the web view's stream, as `make run` invites: it must not hold up the stop.
	go watchStream(ctx, d)

	// The moment.
	var cond error
	switch m.kind {
	case "calibration":
		_, cond = d.logs.wait(ctx, msgIs("calibrating the simulated camera on a rendered pass of the deck (once)"))
	case "dealing":
		seen := 0
		_, cond = d.logs.wait(ctx, func(r logRecord) bool {
			if r["msg"] == "card out of the gate" {
				seen++
			}
			return seen == m.card
		})
	case "between-rounds":
		cond = bus.waitEvent(ctx, tablebus.RoundSettled)
	}
	if cond != nil {
		t.Fatalf("waiting for the moment (%s): %v\n%s", m.kind, cond, d.logs.tail(30))
	}
	if m.kind == "start-up" || m.kind == "anywhere" {
		m.delay -= time.Since(startup) // the delay counts from when the broker listened
	}
	if m.delay > 0 {
		select {
		case <-time.After(m.delay): // the random moment itself
		case <-d.exited:
		}
	}
	phase := d.phase(bus)
	at := time.Now()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("the daemon ended before the signal: %v\n%s", err, d.logs.tail(30))
	}
	select {
	case <-d.exited:
	case <-time.After(stopWithin):
		d.cmd.Process.Signal(syscall.SIGQUIT) // the goroutines' stacks, for the report
		select {
		case <-d.exited:
		case <-time.After(5 * time.Second):
		}
		t.Fatalf("still running %v after SIGTERM (%s +%v):\n%s", stopWithin, m.kind, m.delay.Round(time.Millisecond), d.logs.tail(200))
	}
	took := time.Since(at)
	t.Logf("SIGTERM %s +%v (%s): exited after %v", m.kind, m.delay.Round(time.Millisecond), phase, took.Round(time.Millisecond))
	if d.err != nil {
		t.Errorf("exit: %v (want 0)\n%s", d.err, d.logs.tail(30))
	}
	if errs := d.logs.find(func(r logRecord) bool { return r["level"] == "ERROR" }); len(errs) > 0 {
		t.Errorf("errors logged while stopping: %v", errs)
	}
	if len(d.logs.find(msgIs("sabotd stopping"))) != 1 {
		t.Errorf("the log does not say once that the daemon is stopping:\n%s", d.logs.tail(30))
	}

	// Online on the bus, or through its whole stop, so offline at the end: the last status, for
	// the same connection. A daemon stopped before it published anything leaves the retained
	// status as it was.
	stopped := d.logs.find(msgIs("sabotd stopped"))
	if !slices.ContainsFunc(bus.statuses(), func(s tablebus.Status) bool { return s.Online }) && len(stopped) == 0 {
		return took
	}
	online, offline, err := bus.waitOffline(ctx)
	if err != nil {
		t.Fatalf("%v; statuses seen: %+v\n%s", err, bus.statuses(), d.logs.tail(30))
	}
	if online != nil && (online.Session != offline.Session || online.Conn != offline.Conn) {
		t.Errorf("offline for session %d conn %d, online was session %d conn %d", offline.Session, offline.Conn, online.Session, online.Conn)
	}
	if len(stopped) == 1 {
		if last := uint64(stopped[0]["last_seq"].(float64)); offline.Seq != last {
			t.Errorf("the offline status is at seq %d, the daemon stopped at %d", offline.Seq, last)
		}
	} else {
		t.Errorf("the log does not say the daemon stopped:\n%s", d.logs.tail(30))
	}
	return took
}

// TestSecondSignalExits: a second SIGTERM while the daemon stops exits at once, with one line
// saying so and a non-zero exit. The broker is behind a proxy that stops passing bytes before
// the first signal, so the clean stop waits for the offline status's acknowledgement (up to 2
// s) when the second signal comes.
func TestSecondSignalExits(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds sabotd")
	}
	bin := buildSabotd(t)
	br := mosquittotest.Start(t, mosquittotest.Options{})
	px := startFreezer(t, br.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	d := startProc(t, bin, "--sim", "--shoe", "reader", "--table", "T1", "--journal", filepath.Join(dir, "T1.db"),
		"--sim-pace", "20ms", "--mqtt", "tcp://"+px.addr, "--log-format", "json")
	defer d.kill()
	if _, err := d.logs.wait(ctx, msgIs("bus probe: what this daemon publishes comes back")); err != nil {
		t.Fatalf("%v\n%s", err, d.logs.tail(30))
	}
	px.freeze()
	d.cmd.Process.Signal(syscall.SIGTERM)
	if _, err := d.logs.wait(ctx, msgIs("sabotd stopping")); err != nil {
		t.Fatalf("%v\n%s", err, d.logs.tail(30))
	}
	at := time.Now()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(stopWithin):
		t.Fatalf("still running %v after the second signal:\n%s", stopWithin, d.logs.tail(50))
	}
	t.Logf("exited %v after the second signal", time.Since(at).Round(time.Millisecond))
	var ee *exec.ExitError
	if !errors.As(d.err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("exit: %v, want exit status 1", d.err)
	}
	if len(d.logs.find(msgIs("sabotd stopped"))) != 0 {
		t.Errorf("the daemon finished its clean stop before the second signal: the test proves nothing\n%s", d.logs.tail(30))
	}
	plain := d.logs.plain()
	if len(plain) != 1 || plain[0] != "sabotd: terminated again while stopping: exiting at once, without the clean stop" {
		t.Errorf("lines outside the log: %q, want the one line that says the daemon exits at once", plain)
	}
}

// buildSabotd builds the daemon once per test.
func buildSabotd(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/sabot-tables/sabot/cmd/sabotd").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "sabotd")
}

// daemonProc is a running sabotd: its log, read as it comes, and its end.
type daemonProc struct {
	cmd    *exec.Cmd
	logs   *logWatch
	exited chan struct{}
	err    error // the exit, once exited is closed
}

func startProc(t *testing.T, bin string, args ...string) *daemonProc {
	t.Helper()
	d := &daemonProc{cmd: exec.Command(bin, args...), logs: newLogWatch(), exited: make(chan struct{})}
	d.cmd.Stdout = io.Discard // the live feed
	d.cmd.Stderr = d.logs
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		d.err = d.cmd.Wait()
		d.logs.close()
		close(d.exited)
	}()
	return d
}

// kill ends a daemon the test gave up on.
func (d *daemonProc) kill() {
	select {
	case <-d.exited:
	default:
		d.cmd.Process.Kill()
		<-d.exited
	}
}

type logRecord map[string]any

func msgIs(msg string) func(logRecord) bool {
	return func(r logRecord) bool { return r["msg"] == msg }
}

// logWatch keeps the daemon's JSON log lines as they are written, and the lines that are not
// JSON (what the daemon says outside its log, a Go panic or stack dump).
type logWatch struct {
	mu      sync.Mutex
	buf     []byte
	recs    []logRecord
	raw     []string
	other   []string
	closed  bool
	changed chan struct{} // closed and replaced at every line
}

func newLogWatch() *logWatch { return &logWatch{changed: make(chan struct{})} }

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		w.raw = append(w.raw, line)
		var r logRecord
		if json.Unmarshal([]byte(line), &r) == nil {
			w.recs = append(w.recs, r)
		} else {
			w.other = append(w.other, line)
		}
	}
	close(w.changed)
	w.changed = make(chan struct{})
	return len(p), nil
}

func (w *logWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	close(w.changed)
	w.changed = make(chan struct{})
}

// wait returns the first record that pred accepts, once it is written; pred sees each record
// once, in order.
func (w *logWatch) wait(ctx context.Context, pred func(logRecord) bool) (logRecord, error) {
	next := 0
	for {
		w.mu.Lock()
		for ; next < len(w.recs); next++ {
			if r := w.recs[next]; pred(r) {
				w.mu.Unlock()
				return r, nil
			}
		}
		closed, ch := w.closed, w.changed
		w.mu.Unlock()
		if closed {
			return nil, fmt.Errorf("the daemon exited before the log line")
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("no such log line: %w", ctx.Err())
		}
	}
}

func (w *logWatch) find(pred func(logRecord) bool) []logRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []logRecord
	for _, r := range w.recs {
		if pred(r) {
			out = append(out, r)
		}
	}
	return out
}

// plain returns the lines that are not log records.
func (w *logWatch) plain() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.other)
}

// phase says where the daemon is: calibrating, opening its devices, or the last event it
// published other than guidance.
func (d *daemonProc) phase(bus *busWatch) string {
	has := func(msg string) bool { return len(d.logs.find(msgIs(msg))) > 0 }
	switch {
	case !has("simulated devices") && has("calibrating the simulated camera on a rendered pass of the deck (once)"):
		return "calibrating"
	case !has("simulated devices"):
		return "opening the devices"
	case !has("mqtt connected"):
		return "connecting"
	}
	bus.mu.Lock()
	defer bus.mu.Unlock()
	for i := len(bus.types) - 1; i >= 0; i-- {
		if bus.types[i] != tablebus.Guide {
			return "after " + string(bus.types[i])
		}
	}
	return "online, nothing dealt"
}

func (w *logWatch) tail(n int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.raw[max(0, len(w.raw)-n):], "\n")
}

// busWatch keeps the statuses and the public events a subscriber receives.
type busWatch struct {
	mu      sync.Mutex
	st      []tablebus.Status
	types   []tablebus.Type
	changed chan struct{}
}

func (b *busWatch) status(m mqttbus.Message) {
	var s tablebus.Status
	if json.Unmarshal(m.Payload, &s) != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.st = append(b.st, s)
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *busWatch) event(m mqttbus.Message) {
	e, err := tablebus.Decode(m.Payload)
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.types = append(b.types, e.Type)
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *busWatch) statuses() []tablebus.Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.st)
}

func (b *busWatch) waitEvent(ctx context.Context, typ tablebus.Type) error {
	for {
		b.mu.Lock()
		found, ch := slices.Contains(b.types, typ), b.changed
		b.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("no %s event: %w", typ, ctx.Err())
		}
	}
}

// waitOffline waits (a little: the daemon has exited, its last messages are on their way)
// until the last status received reads offline, and returns it with the last online one.
func (b *busWatch) waitOffline(ctx context.Context) (online, offline *tablebus.Status, err error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		b.mu.Lock()
		if n := len(b.st); n > 0 && !b.st[n-1].Online {
			offline = &b.st[n-1]
			for i := n - 1; i >= 0; i-- {
				if b.st[i].Online {
					online = &b.st[i]
					break
				}
			}
			b.mu.Unlock()
			return online, offline, nil
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("no offline status after the daemon exited")
		}
	}
}

// watchStream follows the web view's event stream until it ends.
func watchStream(ctx context.Context, d *daemonProc) {
	r, err := d.logs.wait(ctx, msgIs("web view listening"))
	if err != nil {
		return
	}
	req, err := http.NewRequestWithContext(ctx, "GET", r["url"].(string)+"api/stream", nil)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
	}
}

// freezer is a TCP proxy to a broker that can stop passing bytes: a broker that hangs.
type freezer struct {
	addr   string
	frozen atomic.Bool
	done   chan struct{}
}

func startFreezer(t *testing.T, target string) *freezer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{addr: ln.Addr().String(), done: make(chan struct{})}
	var wg sync.WaitGroup
	t.Cleanup(func() { close(f.done); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			wg.Add(2)
			pipe := func(dst, src net.Conn) {
				defer wg.Done()
				io.Copy(frozenWriter{f, dst}, src)
				dst.Close()
				src.Close()
			}
			go pipe(b, c)
			go pipe(c, b)
		}
	}()
	return f
}

func (f *freezer) freeze() { f.frozen.Store(true) }

type frozenWriter struct {
	f *freezer
	w io.Writer
}

func (w frozenWriter) Write(p []byte) (int, error) {
	if w.f.frozen.Load() {
		<-w.f.done
		return 0, os.ErrClosed
	}
	return w.w.Write(p)
}

// TestOnSignals: the first SIGTERM cancels with the signal as the cause; then a second one, or
// the deadline, exits 1 with one line (the deadline's followed by the goroutines' stacks).
func TestOnSignals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		second   bool
		deadline time.Duration
		line     string
	}{
		{"second signal", true, time.Hour, "sabotd: terminated again while stopping: exiting at once, without the clean stop"},
		{"deadline", false, 50 * time.Millisecond, "sabotd: still stopping 50ms after the signal (terminated): exiting; the goroutines follow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var out syncBuffer
			exited := make(chan int, 1)
			stop := onSignals(cancel, &out, func(code int) { exited <- code }, tc.deadline)
			defer stop()
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			<-ctx.Done()
			if got := context.Cause(ctx).Error(); got != "signal (terminated)" {
				t.Errorf("cause %q", got)
			}
			if tc.second {
				syscall.Kill(os.Getpid(), syscall.SIGTERM)
			}
			if code := <-exited; code != 1 {
				t.Errorf("exit %d", code)
			}
			first, rest, _ := strings.Cut(out.String(), "\n")
			if first != tc.line {
				t.Errorf("%q\nwant %q", first, tc.line)
			}
			if !tc.second && !strings.Contains(rest, "runtime/pprof.writeGoroutineStacks") {
				t.Errorf("no stacks after the line:\n%s", rest)
			}
		})
	}
}
