package outbox_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// countingBus is a bus in memory: it counts what the outbox publishes, by sequence number, and
// lets a test send it acknowledgements and replay requests.
type countingBus struct {
	mu    sync.Mutex
	subs  map[string]func(mqttbus.Message)
	bySeq map[string]int
	total int
}

var seqOf = regexp.MustCompile(`"seq":(\d+),`)

func (b *countingBus) Subscribe(_ context.Context, f string, _ byte, h func(mqttbus.Message)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[string]func(mqttbus.Message){}
	}
	b.subs[f] = h
	return nil
}

func (b *countingBus) Publish(_ context.Context, topic string, p []byte, _ byte, _ bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if strings.HasSuffix(topic, "secure/events") {
		if b.bySeq == nil {
			b.bySeq = map[string]int{}
		}
		if m := seqOf.FindSubmatch(p); m != nil {
			b.bySeq[string(m[1])]++
		}
		b.total++
	}
	return nil
}

func (b *countingBus) send(topic string, v any) {
	p, _ := json.Marshal(v)
	b.mu.Lock()
	var h func(mqttbus.Message)
	for f, hh := range b.subs {
		if strings.HasSuffix(f, "/+") && strings.HasPrefix(topic, strings.TrimSuffix(f, "+")) {
			h = hh
		}
	}
	b.mu.Unlock()
	if h != nil {
		h(mqttbus.Message{Topic: topic, Payload: p})
	}
}

func (b *countingBus) counts() (total int, of func(seq string) int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	snap := map[string]int{}
	for k, v := range b.bySeq {
		snap[k] = v
	}
	return b.total, func(s string) int { return snap[s] }
}

func replayTable(t *testing.T, required []string, n int) *outbox.Outbox {
	t.Helper()
	fl := bustest.NewFloor(t, "T1")
	j, err := journal.Open(filepath.Join(t.TempDir(), "j.db"), "T1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ob := outbox.NewWith(j, outbox.Options{Session: 1, Signer: fl.Tables["T1"], Keyring: fl.Keyring.Raw(),
		Required: required, Retransmit: 200 * time.Millisecond, AckWait: 50 * time.Millisecond})
	for done := 0; done < n; { // in steps of up to 1000 events: one transaction each
		var evs []tablebus.Event
		for ; done < n && len(evs) < 1000; done++ {
			e := bustest.Event("T1", 1)
			e.V, e.Seq, e.Table, e.Source, e.Session = 0, 0, "", "", 0
			evs = append(evs, e)
		}
		if err := ob.Emit(context.Background(), nil, evs); err != nil {
			t.Fatal(err)
		}
	}
	return ob
}

// A required consumer that is down, or misnamed in --require-ack, decides where publishing
// starts after a restart, but must not make the daemon re-send its backlog for ever (review
// finding: 2000 events were published 6 times in 8 s).
func TestAbsentRequiredConsumerNoRetransmitStorm(t *testing.T) {
	ob := replayTable(t, []string{"engine.E1"}, 2000)
	bus := &countingBus{}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	go ob.Run(ctx, bus)
	<-ctx.Done()
	if total, _ := bus.counts(); total > 2*2000 {
		t.Fatalf("%d publishes of 2000 events while the required consumer was absent", total)
	}
}

// Replay requests are bounded: one consumer has one range queued, of at most 10,000 events,
// at most one a second; a display flooding requests cannot crowd out an engine's.
func TestReplayRequestsBounded(t *testing.T) {
	ob := replayTable(t, nil, 12000)
	bus := &countingBus{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go ob.Run(ctx, bus)
	for deadline := time.Now().Add(20 * time.Second); ; { // the first publication
		if total, _ := bus.counts(); total >= 12000 {
			break
		}
		if time.Now().After(deadline) {
			total, _ := bus.counts()
			t.Fatalf("the journal was not published: %d of 12000", total)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The engine acknowledges everything (so nothing is retransmitted on its behalf)…
	bus.send("sabot/v1/T1/ack/engine.E1", tablebus.Ack{V: 1, Table: "T1", Consumer: "engine.E1", Seq: 12000, TS: time.Now()})
	time.Sleep(300 * time.Millisecond)
	before, _ := bus.counts()
	// …then asks for event 11990 once while a display floods requests for the whole journal.
	bus.send("sabot/v1/T1/replay/engine.E1", tablebus.ReplayRequest{V: 1, Table: "T1", Consumer: "engine.E1", From: 11990, To: 11990, TS: time.Now()})
	for i := range 200 {
		bus.send("sabot/v1/T1/replay/display.lobby", tablebus.ReplayRequest{V: 1, Table: "T1", Consumer: "display.lobby", From: 1 + uint64(i), To: ^uint64(0), TS: time.Now()})
	}
	time.Sleep(3 * time.Second)
	after, of := bus.counts()
	if of("11990") < 2 {
		t.Fatalf("the engine's replay of event 11990 was not served (%d publishes)", of("11990"))
	}
	if extra := after - before; extra > 10001 {
		t.Fatalf("a flood of 200 requests re-published %d events (one request, at most 10,000)", extra)
	}
}
