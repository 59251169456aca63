package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/terminal"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// BenchmarkTerminalTap measures a tap at the dealer terminal to its event on the bus: the
// whole daemon in simulation mode with the simulated dealer off, driven through the
// terminal's HTTP API as the page drives it (the bets of a blackjack box, each decision, the
// cut and the stop card), each tap timed from the request to the delivery of the event it makes
// (round.opened, decision, cut, cutcard.placed) to an MQTT subscriber of the secure feed. The
// path is the page's: the terminal's checks, the command sealed with the signed-in person's
// key and published, the broker, the daemon's command guard, the shoe loop, the journal's
// fsync, the outbox's publish, the broker again. One iteration is one tap; it reports the p50,
// p99 and worst in milliseconds.
//
//	go test -run '^$' -bench TerminalTap -benchtime 400x ./cmd/sabotd/
func BenchmarkTerminalTap(b *testing.B) {
	dir := b.TempDir()
	args := []string{"--sim", "--shoe", "reader", "--sim-dealer=off", "--sim-seed", "3", "--sim-pace", "0s", "--listen", "127.0.0.1:0",
		"--journal", filepath.Join(dir, "T1.db"), "--terminal", "127.0.0.1:0", "--terminal-idle", "1h", "--quiet", "--log-level", "info",
		"--table", "T1", "--game", "blackjack"}
	logs := &syncBuffer{more: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, io.Discard, logs) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	find := func(re *regexp.Regexp) string {
		deadline := time.NewTimer(time.Minute)
		defer deadline.Stop()
		for {
			if m := re.FindStringSubmatch(logs.String()); m != nil {
				return m[1]
			}
			select {
			case <-logs.more:
			case <-deadline.C:
				b.Fatalf("%s: not in the log:\n%s", re, logs.String())
			}
		}
	}
	page := find(terminalURL)
	broker := find(brokerURL)

	// The bus, as any consumer sees it: each event's arrival time, by type.
	type arrival struct {
		e  tablebus.Event
		at time.Time
	}
	var mu sync.Mutex
	var seen []arrival
	more := make(chan struct{}, 1)
	c, err := mqttbus.Connect(ctx, mqttbus.Options{URL: broker, ClientID: "bench-tap"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.Subscribe(ctx, tablebus.Topics{Table: "T1"}.SecureEvents(), 1, func(m mqttbus.Message) {
		at := time.Now()
		e, err := tablebus.Decode(m.Payload)
		if err != nil {
			return
		}
		mu.Lock()
		seen = append(seen, arrival{e, at})
		mu.Unlock()
		select {
		case more <- struct{}{}:
		default:
		}
	}); err != nil {
		b.Fatal(err)
	}
	// wait returns the arrival of the first event of typ after seq.
	wait := func(typ tablebus.Type, after uint64) arrival {
		deadline := time.NewTimer(30 * time.Second)
		defer deadline.Stop()
		for {
			mu.Lock()
			for _, a := range seen {
				if a.e.Type == typ && a.e.Seq > after {
					mu.Unlock()
					return a
				}
			}
			mu.Unlock()
			select {
			case <-more:
			case <-deadline.C:
				b.Fatalf("no %s after #%d on the bus", typ, after)
			}
		}
	}

	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	post := func(path string, v any) {
		body, _ := json.Marshal(v)
		r, err := hc.Post(page+path, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		var rep struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		json.NewDecoder(r.Body).Decode(&rep)
		r.Body.Close()
		if !rep.OK {
			b.Fatalf("%s %s: %s", path, body, rep.Error)
		}
	}
	// The table as the page sees it, from its live stream: the terminal applies an event a
	// moment after the bus has it, so the next tap waits for the view that shows it.
	var vmu sync.Mutex
	var latest terminal.View
	vmore := make(chan struct{}, 1)
	// The stream lives as long as the benchmark: no client timeout, its own context, and
	// stopped before the benchmark returns.
	sctx, scancel := context.WithCancel(ctx)
	var swg sync.WaitGroup
	defer swg.Wait()
	defer scancel()
	stream := func() {
		defer swg.Done()
		req, _ := http.NewRequestWithContext(sctx, "GET", page+"api/stream", nil)
		r, err := (&http.Client{Jar: jar}).Do(req)
		if err != nil {
			if sctx.Err() == nil {
				b.Error(err)
			}
			return
		}
		defer r.Body.Close()
		sc := bufio.NewScanner(r.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			var v terminal.View
			if !ok || json.Unmarshal([]byte(data), &v) != nil || v.Table == "" {
				continue
			}
			vmu.Lock()
			latest = v
			vmu.Unlock()
			select {
			case vmore <- struct{}{}:
			default:
			}
		}
	}
	view := func(after uint64) terminal.View {
		deadline := time.NewTimer(30 * time.Second)
		defer deadline.Stop()
		for {
			vmu.Lock()
			v := latest
			vmu.Unlock()
			if v.Seq > after && v.Signed != nil {
				return v
			}
			select {
			case <-vmore:
			case <-deadline.C:
				b.Fatalf("the terminal's view stays at #%d", v.Seq)
			}
		}
	}
	// A supervisor at the terminal: new shoes need no separate approval.
	post("api/sign-in", map[string]string{"id": "supervisor.dev", "pin": devSupervisorPIN})
	swg.Add(1)
	go stream()

	var ms []float64
	tap := func(a terminal.Action, typ tablebus.Type) uint64 {
		mu.Lock()
		last := uint64(0)
		if n := len(seen); n > 0 {
			last = seen[n-1].e.Seq
		}
		mu.Unlock()
		t0 := time.Now()
		post("api/act", a)
		got := wait(typ, last)
		ms = append(ms, float64(got.at.Sub(t0).Microseconds())/1000)
		return got.e.Seq
	}
	b.ResetTimer()
	var seq uint64
	for len(ms) < b.N {
		v := view(seq)
		seq = v.Seq
		switch {
		case v.State == "idle":
			post("api/act", terminal.Action{Do: "new-shoe", Seq: v.Seq}) // the shuffler's reading: not a tap's time
		case v.State == "shuffled":
			seq = tap(terminal.Action{Do: "cut", Seq: v.Seq, At: 150}, tablebus.Cut)
		case v.State == "cut":
			seq = tap(terminal.Action{Do: "cutcard", Seq: v.Seq, Behind: 78}, tablebus.CutCardPlaced)
		case v.State == "between-rounds":
			seq = tap(terminal.Action{Do: "bets", Seq: v.Seq, Bets: []tablebus.Bet{{Seat: 1, Spot: "main", Amount: 1000}}}, tablebus.RoundOpened)
		case v.State == "in-round" && v.Need != nil && v.Need.Kind == "decision":
			d := "S"
			if !slices.ContainsFunc(v.Need.Options, func(o terminal.Option) bool { return o.Code == "S" }) {
				d = "N" // insurance or even money: no
			}
			seq = tap(terminal.Action{Do: "decision", Seq: v.Seq, Seat: v.Need.Seat, Decision: d}, tablebus.Decision)
		case v.State == "counting":
			post("api/act", terminal.Action{Do: "count", Seq: v.Seq})
		case v.State == "held":
			b.Fatalf("held: %v", v.Guide)
		}
		// Otherwise cards are on their way: the next view.
	}
	b.StopTimer()
	slices.Sort(ms)
	q := func(p float64) float64 { return ms[min(len(ms)-1, int(p*float64(len(ms))))] }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(ms[len(ms)-1], "max-ms")
	b.Logf("%d taps to the bus: p50 %.1f ms, p99 %.1f ms, max %.1f ms", len(ms), q(0.5), q(0.99), ms[len(ms)-1])
}
