package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// watchRun runs `sabot watch` in-process until the test ends.
func watchRun(t *testing.T, ctx context.Context, args ...string) (stdout, stderr *syncBuffer, done chan error) {
	t.Helper()
	stdout, stderr, done = &syncBuffer{}, &syncBuffer{}, make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"watch"}, args...), nil, stdout, stderr) }()
	return stdout, stderr, done
}

// eventually waits until f holds, looking every 20 ms, or fails after within.
func eventually(t *testing.T, what string, within time.Duration, f func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !f() {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("%s: not within %v", what, within)
		}
	}
}

// watchClient is the MQTT client id sabot watch --id id uses in this process.
func watchClient(id string) string { return fmt.Sprintf("sabot-watch-%s-%d", id, os.Getpid()) }

// TestWatch follows a simulated table through a real mosquitto with each of sabot watch's
// views: --json tails the verified payloads in order, --lines says them in words, and --http
// serves the floor, where a forged event raises a "forged event" alert.
func TestWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/sabot-tables/sabot/cmd/sabotd").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 100000\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Every view follows from the start.
	jsonOut, jsonErr, _ := watchRun(t, ctx, "--mqtt", br.URL(), "--table", "T1", "--json")
	linesOut, _, _ := watchRun(t, ctx, "--mqtt", br.URL(), "--lines", "--secure", "--id", "surveillance.lines")
	_, httpErr, _ := watchRun(t, ctx, "--mqtt", br.URL(), "--secure", "--http", "127.0.0.1:0", "--id", "surveillance.test")
	var base string
	eventually(t, "the web view listens", 20*time.Second, func() bool {
		m := regexp.MustCompile(`url=(http://\S+/)`).FindStringSubmatch(httpErr.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	})
	br.WaitSubscribed(t, watchClient("display.watch"), "sabot/v1/T1/public/events", 20*time.Second)
	br.WaitSubscribed(t, watchClient("surveillance.lines"), "sabot/v1/+/secure/events", 20*time.Second)
	br.WaitSubscribed(t, watchClient("surveillance.test"), "sabot/v1/+/secure/events", 20*time.Second)

	daemon := exec.CommandContext(ctx, filepath.Join(dir, "sabotd"), "--sim", "--shoe", "reader", "--sim-seed", "3", "--sim-pace", "40ms",
		"--mqtt", br.URL(), "--journal", filepath.Join(dir, "T1.db"), "--quiet", "--table", "T1")
	var dlog bytes.Buffer
	daemon.Stderr = &dlog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { daemon.Process.Signal(os.Interrupt); daemon.Wait() }()

	// The web view: the table's cards.
	var fl struct {
		Tables []struct {
			Table string `json:"table"`
			Round *struct {
				Hands []struct {
					Cards []struct{ Card string } `json:"cards"`
				} `json:"hands"`
			} `json:"round"`
		} `json:"tables"`
		Alerts []struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		} `json:"alerts"`
	}
	getFloor := func() {
		res, err := http.Get(base + "api/floor")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		fl.Tables, fl.Alerts = nil, nil
		json.NewDecoder(res.Body).Decode(&fl)
	}
	eventually(t, "cards on the web view", 60*time.Second, func() bool {
		getFloor()
		return len(fl.Tables) == 1 && fl.Tables[0].Round != nil && len(fl.Tables[0].Round.Hands) > 0
	})

	// A forged event: a real one with its card changed, its signature kept.
	forger, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "forger"})
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Close()
	var mu sync.Mutex
	var genuine []byte
	forger.Subscribe(ctx, "sabot/v1/T1/secure/events", 1, func(m mqttbus.Message) {
		mu.Lock()
		defer mu.Unlock()
		if genuine == nil && bytes.Contains(m.Payload, []byte(`"type":"card"`)) {
			genuine = m.Payload
		}
	})
	eventually(t, "a card event to forge", 30*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return genuine != nil })
	mu.Lock()
	forged := regexp.MustCompile(`"card":"[^"]+"`).ReplaceAll(genuine, []byte(`"card":"As"`))
	if bytes.Equal(forged, genuine) {
		forged = regexp.MustCompile(`"card":"[^"]+"`).ReplaceAll(genuine, []byte(`"card":"Kd"`))
	}
	mu.Unlock()
	if err := forger.Publish(ctx, "sabot/v1/T1/secure/events", forged, 1, false); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the forged event's alert", 20*time.Second, func() bool {
		getFloor()
		for _, a := range fl.Alerts {
			if a.Kind == "forged-event" {
				t.Logf("alert: %s", a.Text)
				return true
			}
		}
		return false
	})

	// --json: every line is an event of table T1, in sequence order, as signed.
	eventually(t, "events tailed", 20*time.Second, func() bool { return strings.Count(jsonOut.String(), "\n") > 40 })
	if strings.Contains(jsonErr.String(), "ALARM") {
		t.Errorf("--json on the public feed raised alarms:\n%s", jsonErr.String())
	}
	sc := bufio.NewScanner(strings.NewReader(jsonOut.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var last uint64
	for sc.Scan() {
		e, err := tablebus.Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("--json printed %q: %v", sc.Text(), err)
		}
		if e.Table != "T1" || e.Seq <= last || e.Sig == "" {
			t.Fatalf("--json: event %d after %d, table %s, signature %q", e.Seq, last, e.Table, e.Sig)
		}
		last = e.Seq
	}
	// --lines: the events in words, hidden cards and all (secure feed).
	eventually(t, "lines", 20*time.Second, func() bool { return strings.Contains(linesOut.String(), "→ player") })
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} T1 #\d+ +round \d+: .+ → (player|banker)$`).MatchString(linesOut.String()) {
		t.Errorf("--lines printed:\n%.2000s", linesOut.String())
	}
	cancel()
	io.Discard.Write(dlog.Bytes())
}

// TestWatchFlags: the views exclude each other, and bad values are one line each.
func TestWatchFlags(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"--json", "--lines"}, "watch: --json, --lines and --http are three different views: choose one"},
		{[]string{"--table", "T 1"}, `watch: tablebus: table id "T 1": only letters, digits, '-' and '_' are allowed`},
		{[]string{"--journal", "T1"}, `watch: --journal "T1": want TABLE=FILE`},
		{[]string{"--id", "a b"}, `watch: tablebus: consumer id "a b": only letters, digits, '.', '-' and '_' are allowed`},
		{[]string{"--http", ":0", "--card-art", "/nonexistent.svgz"}, "watch: floor: card art /nonexistent.svgz: no such file"},
		{[]string{"extra"}, `watch: unexpected argument "extra"`},
	}
	for _, tc := range tests {
		err := run(context.Background(), append([]string{"watch"}, tc.args...), nil, io.Discard, io.Discard)
		if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("watch %v: %v\nwant %q", tc.args, err, tc.err)
		}
	}
}

// busLog is what a client subscribed to a table's whole tree received, in arrival order (one
// subscription: mqttbus delivers it in order).
type busLog struct {
	mu   sync.Mutex
	msgs []mqttbus.Message
}

func (l *busLog) add(m mqttbus.Message) { l.mu.Lock(); l.msgs = append(l.msgs, m); l.mu.Unlock() }

func (l *busLog) since(i int) []mqttbus.Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.msgs[min(i, len(l.msgs)):])
}

// seqs returns the sequence numbers of the secure events among msgs.
func seqs(msgs []mqttbus.Message) []uint64 {
	var out []uint64
	for _, m := range msgs {
		if m.Topic == "sabot/v1/T1/secure/events" {
			if e, err := tablebus.Decode(m.Payload); err == nil {
				out = append(out, e.Seq)
			}
		}
	}
	return out
}

// retainedAck reads the acknowledgement the broker retains for id, as a new client gets it. The
// retained messages of a subscription come before anything published after it: a marker
// published on the same filter says that whatever was retained has arrived.
func retainedAck(t *testing.T, ctx context.Context, url, id string) (tablebus.Ack, bool) {
	t.Helper()
	cl, err := mqttbus.Connect(ctx, mqttbus.Options{URL: url, ClientID: "ack-reader"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	got := make(chan mqttbus.Message, 16)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	topics := tablebus.Topics{Table: "T1"}
	if err := cl.Subscribe(sctx, topics.Acks(), 1, func(m mqttbus.Message) {
		select {
		case got <- m:
		case <-sctx.Done():
		}
	}); err != nil {
		t.Fatal(err)
	}
	marker := topics.Ack("test.marker")
	if err := cl.Publish(ctx, marker, []byte("marker"), 1, false); err != nil {
		t.Fatal(err)
	}
	var a tablebus.Ack
	found := false
	for {
		select {
		case m := <-got:
			switch {
			case m.Topic == marker:
				return a, found
			case m.Topic == topics.Ack(id):
				if !m.Retained {
					continue // published since the subscription
				}
				if a, err = tablebus.DecodeAck(m.Topic, m.Payload); err != nil {
					t.Fatal(err)
				}
				found = true
			}
		case <-ctx.Done():
			t.Fatal("no marker back from the broker")
		}
	}
}

// jsonSeqs returns the sequence numbers of the events sabot watch --json printed.
func jsonSeqs(t *testing.T, out string) []uint64 {
	t.Helper()
	var s []uint64
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		e, err := tablebus.Decode([]byte(line))
		if err != nil {
			t.Fatalf("--json printed %q: %v", line, err)
		}
		s = append(s, e.Seq)
	}
	return s
}

// TestWatchAcknowledges: sabot watch --secure acknowledges what it printed, retained on
// …/ack/<id>; a daemon that requires that consumer, when its connection is cut, publishes
// again from the acknowledged point and not from event 1; and the watch, started again,
// prints from the event after its acknowledgement. Against a real mosquitto, with the daemon
// behind a proxy that cuts its connection only.
func TestWatchAcknowledges(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/sabot-tables/sabot/cmd/sabotd").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 100000\nset_tcp_nodelay true\n"})
	px := mosquittotest.NewProxy(t, br.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const id = "surveillance.S1"

	spy, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "spy"})
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Close()
	var bus busLog
	if err := spy.Subscribe(ctx, "sabot/v1/T1/#", 1, bus.add); err != nil {
		t.Fatal(err)
	}

	wctx, stopWatch := context.WithCancel(ctx)
	out, errOut, done := watchRun(t, wctx, "--mqtt", br.URL(), "--table", "T1", "--secure", "--json", "--id", id)
	br.WaitSubscribed(t, watchClient(id), "sabot/v1/T1/secure/events", 20*time.Second)
	daemon := exec.CommandContext(ctx, filepath.Join(dir, "sabotd"), "--sim", "--shoe", "reader", "--sim-seed", "5", "--sim-pace", "20ms",
		"--mqtt", px.URL(), "--journal", filepath.Join(dir, "T1.db"), "--quiet", "--table", "T1", "--require-ack", id)
	var dlog syncBuffer
	daemon.Stderr = &dlog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { daemon.Process.Signal(os.Interrupt); daemon.Wait() }()

	// The watch prints events from the first and acknowledges them, retained.
	eventually(t, "30 events printed", 60*time.Second, func() bool { return strings.Count(out.String(), "\n") >= 30 })
	eventually(t, "an acknowledgement retained", 10*time.Second, func() bool {
		a, ok := retainedAck(t, ctx, br.URL(), id)
		return ok && a.Seq >= 20
	})
	stopWatch()
	if err := <-done; err != nil {
		t.Fatalf("sabot watch: %v\n%s", err, errOut)
	}
	printed := jsonSeqs(t, out.String())
	if printed[0] != 1 {
		t.Fatalf("the watch, subscribed before the daemon started, printed from event %d", printed[0])
	}
	a, ok := retainedAck(t, ctx, br.URL(), id)
	// Stopping, it acknowledged everything it printed.
	if !ok || a.Consumer != id || a.Seq != printed[len(printed)-1] {
		t.Fatalf("retained acknowledgement %+v (found %v); the watch printed events %d to %d", a, ok, printed[0], printed[len(printed)-1])
	}
	t.Logf("the watch printed events %d to %d and acknowledged %d", printed[0], printed[len(printed)-1], a.Seq)

	// The daemon deals on past the acknowledgement; then its connection is cut.
	eventually(t, "events past the acknowledgement", 30*time.Second, func() bool {
		s := seqs(bus.since(0))
		return len(s) > 0 && slices.Max(s) >= a.Seq+10
	})
	mark := len(bus.since(0))
	if px.DropAll() == 0 {
		t.Fatal("the proxy carried no connection")
	}
	// After its new birth, the daemon publishes again from the event after the acknowledgement.
	var after []uint64
	eventually(t, "the daemon's new birth and events after it", 30*time.Second, func() bool {
		msgs := bus.since(mark)
		born := slices.IndexFunc(msgs, func(m mqttbus.Message) bool {
			var st tablebus.Status
			return m.Topic == "sabot/v1/T1/public/status" && json.Unmarshal(m.Payload, &st) == nil && st.Online && st.Conn > 1
		})
		if born < 0 {
			return false
		}
		after = seqs(msgs[born:])
		return len(after) > 0 && slices.Max(after) >= a.Seq+10
	})
	if slices.Min(after) != a.Seq+1 || after[0] != a.Seq+1 {
		t.Fatalf("after the reconnection the daemon published events %v…, want from %d (the acknowledgement %d + 1)", after[:min(len(after), 10)], a.Seq+1, a.Seq)
	}

	// Started again, the watch resumes after its acknowledgement: the events it missed first.
	out2, errOut2, done2 := watchRun(t, ctx, "--mqtt", br.URL(), "--table", "T1", "--secure", "--json", "--id", id)
	eventually(t, "the restarted watch prints", 30*time.Second, func() bool { return strings.Count(out2.String(), "\n") >= 20 })
	again := jsonSeqs(t, out2.String())
	for i, s := range again {
		if s != a.Seq+1+uint64(i) {
			t.Fatalf("the restarted watch printed %v…, want %d, %d, …\n%s", again[:min(len(again), 10)], a.Seq+1, a.Seq+2, errOut2)
		}
	}
	cancel()
	<-done2
}
