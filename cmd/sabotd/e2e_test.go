package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// buildBinaries builds sabotd and sabot once for the end-to-end tests.
func buildBinaries(t *testing.T) (sabotd, sabot string) {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/sabot-tables/sabot/cmd/sabotd", "github.com/sabot-tables/sabot/cmd/sabot").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "sabotd"), filepath.Join(dir, "sabot")
}

// recorder keeps every message of some topics, in arrival order.
type recorder struct {
	mu   sync.Mutex
	msgs map[string][]mqttbus.Message
	more chan struct{} // a message since the last look
}

func newRecorder() *recorder {
	return &recorder{msgs: map[string][]mqttbus.Message{}, more: make(chan struct{}, 1)}
}

func (r *recorder) add(m mqttbus.Message) {
	defer func() {
		select {
		case r.more <- struct{}{}:
		default:
		}
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	key := m.Topic
	switch {
	case strings.HasSuffix(key, "/secure/events"):
		key = "secure"
	case strings.HasSuffix(key, "/public/events"):
		key = "public"
	case strings.Contains(key, "/secure/engine/"):
		key = "engine"
	case strings.HasSuffix(key, "/public/status"):
		key = "status"
	}
	r.msgs[key] = append(r.msgs[key], m)
}

func (r *recorder) events(t *testing.T, key string) []tablebus.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []tablebus.Event
	for _, m := range r.msgs[key] {
		e, err := tablebus.Decode(m.Payload)
		if err != nil {
			t.Fatalf("%s: undecodable payload %s: %v", key, m.Payload, err)
		}
		out = append(out, e)
	}
	return out
}

// waitUntil waits until cond holds, looking again at each message, or fails after limit. One
// goroutine waits at a time.
func (r *recorder) waitUntil(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-r.more:
		case <-deadline.C:
			t.Fatalf("%s: not within %v", what, limit)
		}
	}
}

// stopped reports whether the feed holds the clean stop of session: its offline status, and
// every secure event up to the status's sequence number (the daemon drains its feed before
// the status, on the same connection).
func (r *recorder) stopped(t *testing.T, session uint64) bool {
	for _, st := range r.statuses(t) {
		if st.Session == session && !st.Online {
			sec := r.events(t, "secure")
			return len(sec) > 0 && sec[len(sec)-1].Seq == st.Seq
		}
	}
	return false
}

// count returns how many events of type typ the feed key holds.
func (r *recorder) count(t *testing.T, key string, typ tablebus.Type) int {
	n := 0
	for _, e := range r.events(t, key) {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func (r *recorder) statuses(t *testing.T) []tablebus.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []tablebus.Status
	for _, m := range r.msgs["status"] {
		var s tablebus.Status
		if err := json.Unmarshal(m.Payload, &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestEndToEnd runs the daemon in simulation mode against a real mosquitto for one whole
// punto banco shoe, with a separate `sabot engine` process following it, and checks the feed.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	sabotd, sabot := buildBinaries(t)
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 100000\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	rec := newRecorder()
	watcher, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "e2e-watcher"})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if err := watcher.Subscribe(ctx, "sabot/v1/T1/#", 1, rec.add); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	engine := exec.CommandContext(ctx, sabot, "engine", "--game", "punto-banco", "--table", "T1", "--id", "check",
		"--mqtt", br.URL(), "--journal", filepath.Join(dir, "engine.db"), "--quiet")
	var engineErr bytes.Buffer
	engine.Stderr = &engineErr
	if err := engine.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { engine.Process.Signal(os.Interrupt); engine.Wait() }()
	br.WaitSubscribed(t, "sabot-engine-T1-check", "sabot/v1/T1/secure/events", 30*time.Second)

	journal := filepath.Join(dir, "T1.db")
	daemon := func(seed string) string {
		cmd := exec.CommandContext(ctx, sabotd, "--sim", "--shoe", "reader", "--sim-seed", seed, "--sim-shoes", "1", "--sim-pace", "0s",
			"--mqtt", br.URL(), "--journal", journal, "--table", "T1", "--game", "punto-banco")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("sabotd: %v\n%s", err, errb.String())
		}
		return out.String()
	}
	feedText := daemon("7")
	rec.waitUntil(t, "the first run's whole feed", 30*time.Second, func() bool { return rec.stopped(t, 1) })
	settled := rec.count(t, "secure", tablebus.RoundSettled)
	rec.waitUntil(t, "the engine's settlement of every round", 30*time.Second, func() bool {
		return rec.count(t, "engine", tablebus.RoundSettled) >= settled
	})

	secure := rec.events(t, "secure")
	public := rec.events(t, "public")
	checkShoeFeed(t, secure)
	if !strings.Contains(feedText, "accounting OK") || !strings.Contains(feedText, "RESULT") {
		t.Errorf("the live feed lacks the result or the accounting:\n%s", tail(feedText, 20))
	}

	// The public feed: the same events, burns face down without their identity.
	if len(public) != len(secure) {
		t.Fatalf("%d public events for %d secure", len(public), len(secure))
	}
	for i, p := range public {
		s := secure[i]
		if p.Seq != s.Seq || p.Type != s.Type {
			t.Fatalf("public #%d %s vs secure #%d %s", p.Seq, p.Type, s.Seq, s.Type)
		}
		if s.Face != nil && *s.Face == tablebus.FaceDown && (p.Card != nil || !p.Hidden) {
			t.Fatalf("public #%d carries a face-down card: %+v", p.Seq, p)
		}
	}

	// The separate engine agrees with the daemon's in-process engine, round by round.
	eng := rec.events(t, "engine")
	compare := func(typ tablebus.Type, f func(tablebus.Event) any) {
		var a, b []string
		for _, e := range secure {
			if e.Type == typ {
				a = append(a, js(f(e)))
			}
		}
		for _, e := range eng {
			if e.Type == typ {
				b = append(b, js(f(e)))
			}
			if e.Type == tablebus.Fault {
				t.Errorf("engine alarm: %s", e.Problem)
			}
		}
		if len(a) < 60 || strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("%s: daemon %d, engine %d; differ", typ, len(a), len(b))
		}
	}
	compare(tablebus.RoundResult, func(e tablebus.Event) any { return []any{e.Round, e.Result, e.Hands} })
	compare(tablebus.RoundSettled, func(e tablebus.Event) any { return []any{e.Round, e.Settle, e.Net} })

	// Status: online while running, offline after the clean stop.
	st := rec.statuses(t)
	if len(st) < 2 || !st[0].Online || st[len(st)-1].Online {
		t.Fatalf("status messages %+v", st)
	}

	// A restart continues the sequence numbers, in a new session and a new shoe.
	lastSeq, session := secure[len(secure)-1].Seq, secure[0].Session
	daemon("8")
	rec.waitUntil(t, "the second run's whole feed", 30*time.Second, func() bool { return rec.stopped(t, session+1) })
	all := rec.events(t, "secure")
	next := all[len(secure)]
	shoeOf := func(evs []tablebus.Event) string {
		for _, e := range evs {
			if e.Type == tablebus.ShoeLoaded {
				return e.Shoe
			}
		}
		return ""
	}
	if next.Seq != lastSeq+1 || next.Session != session+1 || shoeOf(all[len(secure):]) != "T1-000002" || shoeOf(secure) != "T1-000001" {
		t.Fatalf("after restart: seq %d (last %d), session %d (was %d), shoe %s (was %s)", next.Seq, lastSeq, next.Session, session, shoeOf(all[len(secure):]), shoeOf(secure))
	}
	checkShoeFeed(t, all[len(secure):])
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func tail(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// checkShoeFeed checks one shoe's secure feed against RULES.md §1–§2, independently of the
// engine: sequence, procedure, burns, every coup's tableau and result, and the accounting.
func checkShoeFeed(t *testing.T, evs []tablebus.Event) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	seen := map[tablebus.Type]int{}
	var burnFirst *card.Card
	burns, dealt := 0, 0
	var hands map[string][]card.Card
	for i, e := range evs {
		if i > 0 && e.Seq != evs[i-1].Seq+1 {
			t.Fatalf("seq %d after %d", e.Seq, evs[i-1].Seq)
		}
		seen[e.Type]++
		switch e.Type {
		case tablebus.DecksVerified:
			if !*e.OK || e.Count != 416 {
				t.Fatalf("deck check: %+v", e)
			}
		case tablebus.Cut:
			if e.At < 52 || e.At > 416-52 {
				t.Errorf("cut at %d", e.At)
			}
		case tablebus.CutCardPlaced:
			if e.Behind != 6 {
				t.Errorf("stop card %d behind", e.Behind)
			}
		case tablebus.Burn:
			burns++
			if burnFirst == nil {
				burnFirst = e.Card
			}
		case tablebus.RoundOpened:
			hands = map[string][]card.Card{}
		case tablebus.CardDealt:
			dealt++
			hands[e.To.Name] = append(hands[e.To.Name], *e.Card)
		case tablebus.RoundResult:
			checkCoup(t, e.Round, hands["player"], hands["banker"], e.Result)
		case tablebus.ShoeEnded:
			a := e.Account
			if !*e.OK || a.Dealt != dealt || a.Burned != burns || a.Total != 416 {
				t.Errorf("accounting %+v ok=%v (dealt %d burned %d)", *a, *e.OK, dealt, burns)
			}
		case tablebus.Fault:
			t.Errorf("fault %s: %s", e.Code, e.Problem)
		}
	}
	if burnFirst == nil || burns != burnFirst.PipValue()+1 {
		t.Errorf("%d burns after a first card %v", burns, burnFirst)
	}
	for _, typ := range []tablebus.Type{tablebus.ShoeLoaded, tablebus.DecksVerified, tablebus.Shuffled, tablebus.Cut,
		tablebus.CutCardPlaced, tablebus.CutCardReached, tablebus.ShoeEnded} {
		if seen[typ] != 1 {
			t.Errorf("%d %s events in a shoe", seen[typ], typ)
		}
	}
	if seen[tablebus.RoundResult] < 60 || seen[tablebus.RoundResult] != seen[tablebus.RoundSettled] {
		t.Errorf("%d results, %d settlements", seen[tablebus.RoundResult], seen[tablebus.RoundSettled])
	}
}

// checkCoup replays RULES.md §2's tableau on the cards the feed gave each hand.
func checkCoup(t *testing.T, round uint64, p, b []card.Card, result string) {
	t.Helper()
	tot := func(cs []card.Card) int {
		s := 0
		for _, c := range cs {
			s += c.BaccaratValue()
		}
		return s % 10
	}
	if len(p) < 2 || len(b) < 2 {
		t.Fatalf("round %d: %d player and %d banker cards", round, len(p), len(b))
	}
	pt, bt := tot(p[:2]), tot(b[:2])
	wantP, wantB := 2, 2
	if pt < 8 && bt < 8 { // no natural
		if pt <= 5 {
			wantP = 3
			if len(p) < 3 {
				t.Errorf("round %d: player %v stood on %d", round, p, pt)
				return
			}
			x := p[2].BaccaratValue()
			draw := bt <= 2 || bt == 3 && x != 8 || bt == 4 && x >= 2 && x <= 7 || bt == 5 && x >= 4 && x <= 7 || bt == 6 && x >= 6 && x <= 7
			if draw {
				wantB = 3
			}
		} else if bt <= 5 {
			wantB = 3
		}
	}
	if len(p) != wantP || len(b) != wantB {
		t.Errorf("round %d: player %v banker %v: the tableau gives %d and %d cards", round, p, b, wantP, wantB)
		return
	}
	want := "tie"
	if tot(p) > tot(b) {
		want = "player"
	} else if tot(b) > tot(p) {
		want = "banker"
	}
	if result != want {
		t.Errorf("round %d: result %s, want %s", round, result, want)
	}
}
