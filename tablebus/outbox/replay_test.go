package outbox_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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
// finding: 2000 events were published 6 times in 8 s). Under testing/synctest: 4 s of the
// outbox's clock, whatever the machine's load.
func TestAbsentRequiredConsumerNoRetransmitStorm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := replayTable(t, []string{"engine.E1"}, 2000)
		bus := &countingBus{}
		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
		defer cancel()
		ob.Run(ctx, bus)
		total, of := bus.counts()
		if total != 2000 || of("1") != 1 || of("2000") != 1 {
			t.Fatalf("%d publishes of 2000 events in 4 s while the required consumer was absent (event 1 %d times, 2000 %d times), want each once",
				total, of("1"), of("2000"))
		}
	})
}

// Replay requests are bounded: one consumer has one range queued, of at most 10,000 events,
// at most one a second; a display flooding requests cannot crowd out an engine's.
func TestReplayRequestsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := replayTable(t, nil, 12000)
		bus := &countingBus{}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); ob.Run(ctx, bus) }()
		defer func() { cancel(); <-done }()
		synctest.Wait() // the outbox has published the journal and waits
		if total, _ := bus.counts(); total != 12000 {
			t.Fatalf("the journal was not published: %d of 12000", total)
		}
		// The engine acknowledges everything (so nothing is retransmitted on its behalf)…
		bus.send("sabot/v1/T1/ack/engine.E1", tablebus.Ack{V: 1, Table: "T1", Consumer: "engine.E1", Seq: 12000, TS: time.Now()})
		synctest.Wait()
		before, _ := bus.counts()
		// …then asks for event 11990 once while a display floods requests for the whole journal.
		bus.send("sabot/v1/T1/replay/engine.E1", tablebus.ReplayRequest{V: 1, Table: "T1", Consumer: "engine.E1", From: 11990, To: 11990, TS: time.Now()})
		for i := range 200 {
			bus.send("sabot/v1/T1/replay/display.lobby", tablebus.ReplayRequest{V: 1, Table: "T1", Consumer: "display.lobby", From: 1 + uint64(i), To: ^uint64(0), TS: time.Now()})
		}
		time.Sleep(3 * time.Second) // the bubble's clock: the requests are served, the retransmit timer runs
		after, of := bus.counts()
		// One request of each: event 11990 once more, and the display's first request cut to
		// 10,000 events; the other 199 came within a second of it.
		if of("11990") != 2 || after-before != 10001 {
			t.Fatalf("after one engine request and 200 display requests: event 11990 published %d times, %d events re-published; want 2 and 10,001",
				of("11990"), after-before)
		}
	})
}

// TestPastALoss: a journal started on an accepted loss of more numbers than one chunk of the
// live stream (the journal ends at #20, the outside saw #600) publishes what follows the loss:
// TestJournalBehind's daemon once published nothing after a loss of 300 events.
func TestPastALoss(t *testing.T) {
	fl := bustest.NewFloor(t, "T1")
	j := replayTable(t, nil, 20).Journal()
	if _, err := j.AcceptLoss(context.Background(), &journal.BehindError{Seq: 600, Session: 1}); err != nil {
		t.Fatal(err)
	}
	// The daemon's next start: a new outbox on the journal.
	ob := outbox.NewWith(j, outbox.Options{Session: 2, Signer: fl.Tables["T1"], Keyring: fl.Keyring.Raw()})
	if err := ob.Fault(context.Background(), "journal-loss", "events #21 to #600 are lost"); err != nil {
		t.Fatal(err)
	}
	b := &countingBus{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- ob.Run(ctx, b) }()
	for deadline := time.Now().Add(20 * time.Second); ob.Published() < 601; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("published to #%d, journaled to #%d", ob.Published(), ob.LastSeq())
		}
	}
	cancel()
	<-done
	if _, of := b.counts(); of("601") != 1 || of("20") != 1 || of("21") != 0 {
		t.Errorf("#20, #21, #601 published %d, %d, %d times", of("20"), of("21"), of("601"))
	}
}
