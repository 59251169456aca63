package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

func eventually(t *testing.T, what string, within time.Duration, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if f() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v", what, within)
}

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
	time.Sleep(500 * time.Millisecond) // the consumers subscribe

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
