package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// gateShuffler is a shuffler whose reading of the cards waits until the test opens the gate:
// a table busy for as long as a test needs.
type gateShuffler struct {
	entered chan struct{}
	gate    chan struct{}
}

func (g *gateShuffler) LoadVerify(ctx context.Context) (card.Counts, error) {
	g.entered <- struct{}{}
	select {
	case <-g.gate:
		return card.Counts{}, errors.New("shuffler: the test's shuffler reads no card")
	case <-ctx.Done():
		return card.Counts{}, ctx.Err()
	}
}
func (g *gateShuffler) Shuffle(context.Context, int) (int, error) { return 0, errors.New("no") }
func (g *gateShuffler) Count(context.Context) (card.Counts, error) {
	return card.Counts{}, errors.New("no")
}

// cmdTable is a table's command side as sabotd wires it: a journal, the outbox publishing to a
// real mosquitto, a shoe loop, the guard and serveCommands; and a dealer terminal's connection
// that sees the secure feed and the replies.
type cmdTable struct {
	t        *testing.T
	fl       *bustest.Floor
	j        *journal.Journal
	term     *mqttbus.Client
	topics   tablebus.Topics
	shuffler *gateShuffler

	mu      sync.Mutex
	feed    []tablebus.Event
	replies []tablebus.Reply
}

func newCmdTable(t *testing.T) *cmdTable {
	t.Helper()
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 100000\n"})
	ctx, cancel := context.WithCancel(context.Background())
	ct := &cmdTable{t: t, fl: bustest.NewFloor(t, "T1"), topics: tablebus.Topics{Table: "T1"},
		shuffler: &gateShuffler{entered: make(chan struct{}, 1), gate: make(chan struct{})}}
	j, err := journal.Open(filepath.Join(t.TempDir(), "T1.db"), "T1")
	if err != nil {
		t.Fatal(err)
	}
	ct.j = j
	ob := outbox.NewWith(j, outbox.Options{Session: 1, Signer: ct.fl.Tables["T1"], Keyring: ct.fl.Keyring.Raw()})
	client, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "sabotd-T1", NextWill: ob.Will,
		OnConnect: func(*mqttbus.Client) { ob.Connected() }})
	if err != nil {
		t.Fatal(err)
	}
	ct.term, err = mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "dealer.D1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ct.term.Subscribe(ctx, ct.topics.Events(tablebus.Secure), 1, func(m mqttbus.Message) {
		e, err := tablebus.Decode(m.Payload)
		ct.mu.Lock()
		defer ct.mu.Unlock()
		if err == nil {
			ct.feed = append(ct.feed, e)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := ct.term.Subscribe(ctx, ct.topics.Replies(), 1, func(m mqttbus.Message) {
		var r tablebus.Reply
		json.Unmarshal(m.Payload, &r)
		ct.mu.Lock()
		ct.replies = append(ct.replies, r)
		ct.mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	ent, _ := catalog.Lookup("punto-banco")
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, _ := shoe.ProcedureFor(fam, 0)
	eng, err := catalog.New(games.Config{Game: "punto-banco"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1"})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	loop := shoe.NewLoop(m, ct.shuffler, ob, log)
	guard := tablebus.NewCommandGuard(ct.fl.Keyring)
	var wg sync.WaitGroup
	served := make(chan error, 1)
	wg.Add(3)
	go func() { defer wg.Done(); ob.Run(ctx, client) }()
	go func() { defer wg.Done(); loop.Run(ctx) }()
	go func() { defer wg.Done(); served <- serveCommands(ctx, client, ct.topics, loop, guard, ob, log) }()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		if err := <-served; err != nil {
			t.Errorf("serveCommands: %v", err)
		}
		client.Close()
		ct.term.Close()
		j.Close()
	})
	// The loop's first guidance is on the feed: everything is subscribed and running.
	waitFor(t, 10*time.Second, "the table's first event", func() bool { ct.mu.Lock(); defer ct.mu.Unlock(); return len(ct.feed) > 0 })
	// The commands sent are not re-sent: the broker drops them unless serveCommands listens.
	br.WaitSubscribed(t, "sabotd-T1", ct.topics.Commands(), 10*time.Second)
	return ct
}

// send publishes a command payload on the table's command topic.
func (ct *cmdTable) send(payload []byte) {
	ct.t.Helper()
	if err := ct.term.Publish(context.Background(), ct.topics.Commands(), payload, 1, false); err != nil {
		ct.t.Fatal(err)
	}
}

// signed returns c sealed by the dealer's key, signed now.
func (ct *cmdTable) signed(c tablebus.Command) []byte {
	ct.t.Helper()
	c.V = tablebus.SchemaVersion
	b, err := tablebus.SealCommand(ct.fl.Dealer, ct.topics.Commands(), c, time.Now())
	if err != nil {
		ct.t.Fatal(err)
	}
	return b
}

// refusals returns the command-refused faults journaled, and the refusals they count (one
// each, or a counted fault's Count), by reason.
func (ct *cmdTable) refusals() ([]journal.Record, map[string]int) {
	ct.t.Helper()
	var recs []journal.Record
	n := map[string]int{}
	err := ct.j.Range(context.Background(), 1, ct.j.NextSeq(), func(r journal.Record) error {
		if r.Type != tablebus.Fault {
			return nil
		}
		e, err := tablebus.Decode(r.Secure)
		if err != nil || e.Code != "command-refused" {
			return err
		}
		recs = append(recs, r)
		if e.Reason == "several" {
			for _, part := range strings.Split(strings.SplitN(strings.SplitN(e.Problem, ": ", 2)[1], ";", 2)[0], ", ") {
				var k int
				var kind string
				if _, err := fmt.Sscan(part, &k, &kind); err != nil {
					ct.t.Fatalf("counted fault %q: %v", e.Problem, err)
				}
				n[kind] += k
			}
			n["(counted)"] += e.Count
		} else {
			n[e.Reason]++
		}
		return nil
	})
	if err != nil {
		ct.t.Fatal(err)
	}
	return recs, n
}

// TestRefusedCommandsJournaled is issue 16's sixth fault: an unsigned command and a forged one
// sent one after the other are two faults, each journaled and on the secure feed, with their
// answers after them; so is every other refusal (a key the keyring does not know, a command
// out of its time window, one the table refuses, one that makes no sense). The public feed
// keeps the code and the reason, not the words.
func TestRefusedCommandsJournaled(t *testing.T) {
	ct := newCmdTable(t)
	unsigned, _ := json.Marshal(tablebus.Command{V: tablebus.SchemaVersion, ID: "c1", Cmd: "new-shoe"})
	forged := bytes.Replace(ct.signed(tablebus.Command{ID: "c2", Cmd: "new-shoe"}), []byte(`"c2"`), []byte(`"c9"`), 1)
	stranger, _ := tablebus.SealCommand(tablebus.NewSigner(bustest.Key("a stranger")), ct.topics.Commands(), tablebus.Command{V: tablebus.SchemaVersion, ID: "c3", Cmd: "new-shoe"}, time.Now())
	stale, _ := tablebus.SealCommand(ct.fl.Dealer, ct.topics.Commands(), tablebus.Command{V: tablebus.SchemaVersion, ID: "c4", Cmd: "new-shoe"}, time.Now().Add(-time.Hour))
	want := []struct{ id, reason, says string }{
		{"c1", "unsigned", "unsigned payload"},
		{"c9", "bad-signature", "bad signature"},
		{"c3", "unknown-key", "unknown key"},
		{"c4", "not-allowed", "a replay or a wrong clock"},
		{"c5", "refused-by-table", "count while the shoe is"},
		{"c6", "invalid", "manual: no card given"},
	}
	for _, p := range [][]byte{unsigned, forged, stranger, stale,
		ct.signed(tablebus.Command{ID: "c5", Cmd: "count"}), ct.signed(tablebus.Command{ID: "c6", Cmd: "manual"})} {
		ct.send(p)
	}
	waitFor(t, 20*time.Second, "six answers", func() bool { ct.mu.Lock(); defer ct.mu.Unlock(); return len(ct.replies) >= len(want) })
	recs, counts := ct.refusals()
	if len(recs) != len(want) {
		t.Fatalf("%d refusals journaled for %d refused commands: %v", len(recs), len(want), counts)
	}
	for i, w := range want {
		e, _ := tablebus.Decode(recs[i].Secure)
		if e.Reason != w.reason || !strings.Contains(e.Problem, `(id "`+w.id+`")`) || !strings.Contains(e.Problem, w.says) {
			t.Errorf("refusal %d: %s %q, want %s naming %s and %q", i+1, e.Reason, e.Problem, w.reason, w.id, w.says)
		}
		p, _ := tablebus.Decode(recs[i].Public)
		if p.Problem != "" || p.Code != "command-refused" || p.Reason != w.reason {
			t.Errorf("public refusal %d: %+v", i+1, p)
		}
		ct.mu.Lock()
		r := ct.replies[i]
		ct.mu.Unlock()
		if r.OK || r.ID != w.id || !strings.Contains(r.Error, w.says) {
			t.Errorf("answer %d: %+v", i+1, r)
		}
	}
	// Each is on the secure feed, published like any event.
	waitFor(t, 10*time.Second, "the refusals on the secure feed", func() bool {
		ct.mu.Lock()
		defer ct.mu.Unlock()
		n := 0
		for _, e := range ct.feed {
			if e.Type == tablebus.Fault && e.Code == "command-refused" {
				n++
			}
		}
		return n == len(want)
	})
}

// TestBusyJournaled: while the table is busy (its shuffler reading the cards) and 64 commands
// wait, each command more is answered "busy" and journaled as such; the 64 are then refused by
// the table in turn, and journaled too.
func TestBusyJournaled(t *testing.T) {
	ct := newCmdTable(t)
	first, err := tablebus.SealCommand(ct.fl.Supervisor, ct.topics.Commands(), tablebus.Command{V: tablebus.SchemaVersion, ID: "first", Cmd: "new-shoe"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ct.send(first)
	select { // the command loop waits on the shuffler
	case <-ct.shuffler.entered:
	case <-time.After(20 * time.Second):
		ct.mu.Lock()
		t.Fatalf("the new shoe never reached the shuffler: %+v", ct.replies)
	}
	for i := range 64 + 10 {
		ct.send(ct.signed(tablebus.Command{ID: "q" + string(rune('A'+i/26)) + string(rune('a'+i%26)), Cmd: "count"}))
	}
	waitFor(t, 20*time.Second, "ten busy answers", func() bool {
		ct.mu.Lock()
		defer ct.mu.Unlock()
		return len(ct.replies) >= 10
	})
	_, counts := ct.refusals()
	if counts["busy"] != 10 {
		t.Fatalf("busy refusals journaled: %v", counts)
	}
	ct.mu.Lock()
	for _, r := range ct.replies[:10] {
		if !strings.HasPrefix(r.Error, "busy:") {
			t.Errorf("answer %+v", r)
		}
	}
	ct.mu.Unlock()
	close(ct.shuffler.gate)
	waitFor(t, 30*time.Second, "the 64 waiting refused too", func() bool {
		_, c := ct.refusals()
		return c["failed"]+c["refused-by-table"] == 1+64
	})
}

// TestRefusalFlood: 2,000 unsigned commands at once are all recorded, most of them counted
// into a few faults that say how many and why, so that the journal grows by tens of events,
// not thousands; none is dropped.
func TestRefusalFlood(t *testing.T) {
	ct := newCmdTable(t)
	unsigned, _ := json.Marshal(tablebus.Command{V: tablebus.SchemaVersion, ID: "flood", Cmd: "count"})
	before := ct.j.NextSeq()
	start := time.Now()
	var pend []*mqttbus.Pending
	for range 2000 {
		pend = append(pend, ct.term.PublishAsync(ct.topics.Commands(), unsigned, 1, false))
	}
	for _, p := range pend {
		if err := p.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	var counts map[string]int
	var recs []journal.Record
	waitFor(t, time.Minute, "2,000 refusals recorded", func() bool {
		recs, counts = ct.refusals()
		return counts["unsigned"]+counts["busy"] == 2000
	})
	secs := time.Since(start).Seconds()
	// The budget is counted per second of the clock: a flood of secs seconds touches at most
	// floor(secs)+2 of them.
	if n := int(ct.j.NextSeq() - before); float64(n) > (refusalBudget+4)*(math.Floor(secs)+2) {
		t.Errorf("%d events journaled in %.1f s for the flood: not bounded", n, secs)
	}
	if counts["(counted)"] == 0 || counts["unsigned"] == 0 {
		t.Errorf("counts %v", counts)
	}
	t.Logf("2,000 refused commands in %.1f s: %d faults journaled (%v)", secs, len(recs), counts)
}
