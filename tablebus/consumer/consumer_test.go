package consumer_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
	"github.com/sabot-tables/sabot/tablebus/consumer"
)

// msg is one message as the broker delivers it.
type msg struct {
	topic   string
	payload []byte
}

// feed seals events 1..n of T1's secure feed.
func feed(f *bustest.Floor, n int) []msg {
	ch := f.NewChain("T1", tablebus.Secure)
	var out []msg
	for i := 1; i <= n; i++ {
		out = append(out, msg{ch.Topic, ch.Seal(bustest.Event("T1", uint64(i)))})
	}
	return out
}

// summary says what the outputs were, one word each: d3 (delivered 3), A:forged, R2-4 (replay),
// K5 (ack), S:online.
func summary(outs []consumer.Output) []string {
	var s []string
	for _, o := range outs {
		switch {
		case o.Delivery != nil:
			s = append(s, fmt.Sprintf("d%d", o.Delivery.Seq))
		case o.Alarm != nil:
			s = append(s, "A:"+o.Alarm.Code)
		case o.Replay != nil:
			s = append(s, fmt.Sprintf("R%d-%d", o.Replay.From, o.Replay.To))
		case o.Ack != nil:
			s = append(s, fmt.Sprintf("K%d", o.Ack.Seq))
		case o.State != nil:
			st := "offline"
			if o.State.Online {
				st = "online"
			}
			s = append(s, fmt.Sprintf("S:%s:%d.%d", st, o.State.Session, o.State.Conn))
		}
	}
	return s
}

func altered(p []byte) []byte {
	q := slices.Clone(p)
	i := strings.Index(string(q), `"event `)
	q[i+7] = '9' // "event 2" → "event 9": one byte of the body
	return q
}

func TestConsumer(t *testing.T) {
	f := bustest.NewFloor(t, "T1", "T2")
	ev := feed(f, 6)
	t0 := bustest.Epoch.Add(time.Hour)

	// Another event 2, validly signed, different bytes: equivocation by the key's holder.
	other := bustest.Event("T1", 2)
	other.Say = []string{"another event 2"}
	ch := f.NewChain("T1", tablebus.Secure)
	ch.Seal(bustest.Event("T1", 1))
	equivocal := ch.Seal(other)
	// Event 3 chained to the other event 2: signed, but not after the event 2 delivered.
	brokenChain := ch.Seal(bustest.Event("T1", 3))
	// T2's key signing T1's event on T1's topic.
	t2 := &bustest.Chain{Signer: f.Tables["T2"], Topic: ev[0].topic}
	wrongKey := t2.Seal(bustest.Event("T1", 1))
	// T1's event 1 sealed for the public topic, replayed on the secure topic.
	pub := f.NewChain("T1", tablebus.Public)
	wrongTopic := pub.Seal(bustest.Event("T1", 1))
	unsigned, _ := bustest.Event("T1", 1).Marshal()

	type step struct {
		m    *msg          // a message at time t0 + at
		tick time.Duration // or a tick at t0 + tick
		want []string
	}
	at := func(m msg, want ...string) step { return step{m: &m, want: want} }
	tick := func(d time.Duration, want ...string) step { return step{tick: d, want: want} }
	topic := ev[0].topic
	tests := []struct {
		name  string
		steps []step
	}{
		{"in order", []step{at(ev[0], "d1"), at(ev[1], "d2"), at(ev[2], "d3")}},
		{"duplicates dropped", []step{at(ev[0], "d1"), at(ev[0]), at(ev[1], "d2"), at(ev[0]), at(ev[1])}},
		{"reordered", []step{at(ev[2]), at(ev[1]), at(ev[0], "d1", "d2", "d3"), at(ev[3], "d4")}},
		{"gap replayed after the reorder timeout", []step{
			at(ev[0], "d1"), at(ev[2]), at(ev[4]), tick(100 * time.Millisecond), tick(300*time.Millisecond, "R2-2"),
			tick(time.Second), tick(1300*time.Millisecond, "R2-2"), at(ev[1], "d2", "d3"),
			tick(3*time.Second, "R4-4"), at(ev[3], "d4", "d5"), tick(10 * time.Second)}},
		{"gap alarm", []step{at(ev[0], "d1"), at(ev[2]), tick(300*time.Millisecond, "R2-2"), tick(31*time.Second, "R2-2", "A:gap"), tick(32 * time.Second), tick(33*time.Second, "R2-2")}},
		{"altered byte", []step{at(ev[0], "d1"), at(msg{topic, altered(ev[1].payload)}, "A:forged"), at(ev[1], "d2")}},
		{"unsigned", []step{at(msg{topic, unsigned}, "A:forged")}},
		{"truncated", []step{at(msg{topic, ev[0].payload[:len(ev[0].payload)-1]}, "A:forged")}},
		{"another table's key", []step{at(msg{topic, wrongKey}, "A:key-not-valid")}},
		{"signed for another topic", []step{at(msg{topic, wrongTopic}, "A:forged")}},
		{"equivocation after delivery", []step{at(ev[0], "d1"), at(ev[1], "d2"), at(msg{topic, equivocal}, "A:equivocation"), at(ev[2], "d3")}},
		{"equivocation while held", []step{at(ev[0], "d1"), at(ev[2]), at(ev[1], "d2", "d3"), at(ev[3], "d4")}},
		{"equivocation in the buffer", []step{at(ev[2]), at(msg{topic, equivocal}), at(ev[1], "A:equivocation"), at(ev[0], "d1", "d2", "A:chain")}},
		{"broken chain", []step{at(ev[0], "d1"), at(ev[1], "d2"), at(msg{topic, brokenChain}, "A:chain"), at(ev[2], "d3")}},
		{"foreign topic", []step{at(msg{"sabot/v1/T3/secure/events", ev[0].payload}, "A:foreign-topic"),
			at(msg{"other/T1/secure/events", ev[0].payload}, "A:foreign-topic"), at(msg{"sabot/v1/T1/public/events", ev[0].payload}, "A:foreign-topic")}},
		{"oversized", []step{at(msg{topic, make([]byte, tablebus.MaxPayload+1)}, "A:bad-payload")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := consumer.New(consumer.Options{ID: "engine.E1", Tables: []string{"T1", "T2"}, Feed: tablebus.Secure,
				Keyring: f.Keyring, From: map[string]uint64{"T1": 0}})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tc.steps {
				var got []string
				if s.m != nil {
					got = summary(c.Receive(s.m.topic, s.m.payload, t0))
				} else {
					got = summary(c.Tick(t0.Add(s.tick)))
				}
				if !slices.Equal(got, s.want) {
					t.Fatalf("step %d: got %v, want %v", i, got, s.want)
				}
			}
		})
	}
}

func TestConsumerStartsAtFirstEvent(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	ev := feed(f, 5)
	c, err := consumer.New(consumer.Options{ID: "display.x", Feed: tablebus.Secure, Keyring: f.Keyring})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range []int{2, 3, 1, 4} {
		got = append(got, summary(c.Receive(ev[i].topic, ev[i].payload, bustest.Epoch))...)
	}
	if want := []string{"d3", "d4", "d5"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s := c.Stats()["T1"]; s.Delivered != 3 || s.Duplicates != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func status(t *testing.T, f *bustest.Floor, st tablebus.Status) msg {
	t.Helper()
	topic := tablebus.Topics{Table: st.Table}.Status()
	st.V = tablebus.SchemaVersion
	if st.TS.IsZero() {
		st.TS = bustest.Epoch
	}
	p, err := tablebus.SealStatus(f.Tables[st.Table], topic, st)
	if err != nil {
		t.Fatal(err)
	}
	return msg{topic, p}
}

func TestConsumerStatusAndKeyring(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	ev := feed(f, 4)
	t0 := bustest.Epoch.Add(time.Hour)
	// No keyring pinned: messages wait for the first keyring (trust on first use of its root).
	c, err := consumer.New(consumer.Options{ID: "engine.E1", Feed: tablebus.Secure, Ack: consumer.AckDelivered, From: map[string]uint64{"T1": 0}})
	if err != nil {
		t.Fatal(err)
	}
	krTopic := tablebus.Topics{Table: "T1"}.Keyring()
	steps := []struct {
		m    msg
		want []string
	}{
		{status(t, f, tablebus.Status{Table: "T1", Online: true, Session: 3, Conn: 1, Seq: 3}), nil},
		{ev[0], nil},
		{msg{krTopic, f.Keyring.Raw()}, []string{"S:online:3.1", "d1"}},
		{ev[1], []string{"d2"}},
		// A will from an older connection, published late: ignored.
		{status(t, f, tablebus.Status{Table: "T1", Online: false, Session: 2, Conn: 9, Seq: 3}), nil},
		{status(t, f, tablebus.Status{Table: "T1", Online: false, Session: 3, Conn: 1, Seq: 4}), []string{"S:offline:3.1"}},
		// The birth of the dead connection, overtaken by its will: ignored.
		{status(t, f, tablebus.Status{Table: "T1", Online: true, Session: 3, Conn: 1, Seq: 4}), nil},
		{status(t, f, tablebus.Status{Table: "T1", Online: true, Session: 3, Conn: 2, Seq: 4}), []string{"S:online:3.2"}},
		// Another root's keyring: refused.
		{msg{krTopic, otherRoot(t)}, []string{"A:keyring"}},
	}
	for i, s := range steps {
		got := summary(c.Receive(s.m.topic, s.m.payload, t0))
		if !slices.Equal(got, s.want) {
			t.Fatalf("step %d: got %v, want %v", i, got, s.want)
		}
		if i == 3 {
			c.Commit("T1", 2)
		}
	}
	// The status says the daemon has events up to 4: after the reorder timeout, ask for 3–4;
	// and the ack of what was delivered.
	if got, want := summary(c.Tick(t0.Add(time.Second))), []string{"R3-4", "K2"}; !slices.Equal(got, want) {
		t.Fatalf("tick: got %v, want %v", got, want)
	}
	st := c.States()
	if len(st) != 1 || st[0].String() != "T1 daemon online (session 3.2, daemon at #4, delivered #2, missing 2)" {
		t.Fatalf("states %v", st)
	}
}

func otherRoot(t *testing.T) []byte {
	kr, err := tablebus.SignKeyring(tablebus.Keyring{Version: 5, Issued: bustest.Epoch}, bustest.Key("another root"))
	if err != nil {
		t.Fatal(err)
	}
	return kr.Raw()
}

// TestConsumerKeyRotation: the root adds a table's next key, the daemon switches to it, and a
// later keyring revokes the old one: events keep flowing, and the old key then alarms.
func TestConsumerKeyRotation(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	t0 := bustest.Epoch.Add(time.Hour)
	next := tablebus.NewSigner(bustest.Key("table T1 next"))
	old := f.Tables["T1"]
	entry := tablebus.KeyEntry{Kid: next.KeyID(), Pub: tablebus.EncodePub(next.Public()), Use: tablebus.UseEvents, Table: "T1", NotBefore: bustest.Epoch}
	v2, err := tablebus.SignKeyring(tablebus.Keyring{Version: 2, Issued: bustest.Epoch, Keys: append(slices.Clone(f.Keyring.Keys), entry)}, f.Root)
	if err != nil {
		t.Fatal(err)
	}
	v3, err := tablebus.SignKeyring(tablebus.Keyring{Version: 3, Issued: bustest.Epoch, Keys: append(slices.Clone(f.Keyring.Keys), entry), Revoked: []string{old.KeyID()}}, f.Root)
	if err != nil {
		t.Fatal(err)
	}
	ch := f.NewChain("T1", tablebus.Secure)
	seal := func(s *tablebus.Signer, n uint64) msg {
		ch.Signer = s
		return msg{ch.Topic, ch.Seal(bustest.Event("T1", n))}
	}
	refused := func(s *tablebus.Signer, n uint64) msg { // sealed without moving the chain
		prev := ch.Prev
		m := seal(s, n)
		ch.Prev = prev
		return m
	}
	kr := tablebus.Topics{Table: "T1"}.Keyring()
	c, err := consumer.New(consumer.Options{ID: "engine.E1", Feed: tablebus.Secure, Root: f.RootPub(), From: map[string]uint64{"T1": 0}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		m    msg
		want []string
	}{
		{msg{kr, f.Keyring.Raw()}, nil},
		{seal(old, 1), []string{"d1"}},
		{refused(next, 2), []string{"A:unknown-key"}}, // before the keyring that lists it
		{msg{kr, v2.Raw()}, nil},
		{seal(next, 2), []string{"d2"}},
		{seal(old, 3), []string{"d3"}},  // the old key is still valid in v2
		{msg{kr, f.Keyring.Raw()}, nil}, // an older keyring retained elsewhere: ignored
		{msg{kr, v3.Raw()}, nil},
		{refused(old, 4), []string{"A:revoked-key"}},
		{seal(next, 4), []string{"d4"}},
	}
	for i, s := range steps {
		if got := summary(c.Receive(s.m.topic, s.m.payload, t0)); !slices.Equal(got, s.want) {
			t.Fatalf("step %d: got %v, want %v", i, got, s.want)
		}
	}
	if c.Keyring().Version != 3 {
		t.Fatalf("keyring %v", c.Keyring())
	}
}

// ack is this consumer's acknowledgement of T1's events up to seq, as the broker keeps it.
func ack(t *testing.T, id string, seq uint64) msg {
	t.Helper()
	p, err := json.Marshal(tablebus.Ack{V: tablebus.SchemaVersion, Table: "T1", Consumer: id, Seq: seq, TS: bustest.Epoch})
	if err != nil {
		t.Fatal(err)
	}
	return msg{tablebus.Topics{Table: "T1"}.Ack(id), p}
}

// TestConsumerResume: a restarted consumer with Resume starts after its own retained
// acknowledgement, asks for what it missed, and acknowledges nothing it has not delivered.
func TestConsumerResume(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	ev := feed(f, 8)
	t0 := bustest.Epoch.Add(time.Hour)
	const id = "surveillance.S1"
	st := status(t, f, tablebus.Status{Table: "T1", Online: true, Session: 1, Conn: 1, Seq: 8})
	type step struct {
		m    *msg
		tick time.Duration
		want []string
	}
	at := func(m msg, want ...string) step { return step{m: &m, want: want} }
	tick := func(d time.Duration, want ...string) step { return step{tick: d, want: want} }
	for _, tc := range []struct {
		name   string
		resume bool
		steps  []step
	}{
		{"after its acknowledgement", true, []step{
			at(ack(t, id, 5)), at(st, "S:online:1.1"), at(ev[7]), tick(time.Second, "R6-7"),
			at(ev[5], "d6"), at(ev[6], "d7", "d8"), tick(2*time.Second, "K8"),
			// Its own acknowledgement coming back changes nothing; an event it resumed after is a
			// duplicate, which says the daemon may not have the acknowledgement: say it again.
			at(ack(t, id, 8)), at(ack(t, id, 2)), tick(3 * time.Second), at(ev[4]), tick(4*time.Second, "K8")}},
		{"status first", true, []step{
			at(st, "S:online:1.1"), at(ack(t, id, 6)), tick(time.Second, "R7-8"), at(ev[6], "d7"), at(ev[7], "d8")}},
		{"an event first starts the table", true, []step{
			at(ev[6], "d7"), at(ack(t, id, 2)), at(ev[7], "d8"), tick(time.Second, "K8")}},
		{"a cleared acknowledgement", true, []step{
			at(msg{tablebus.Topics{Table: "T1"}.Ack(id), nil}), at(ev[6], "d7"), tick(time.Second, "K7")}},
		{"another consumer's acknowledgement on this one's topic", true, []step{
			at(msg{tablebus.Topics{Table: "T1"}.Ack(id), ack(t, "surveillance.S2", 5).payload}, "A:bad-payload"), at(ev[6], "d7")}},
		{"without Resume the topic is not followed", false, []step{
			at(ack(t, id, 5), "A:foreign-topic"), at(ev[6], "d7"), tick(time.Second, "K7")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := consumer.New(consumer.Options{ID: id, Tables: []string{"T1"}, Feed: tablebus.Secure, Keyring: f.Keyring,
				Ack: consumer.AckDelivered, Resume: tc.resume})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tc.steps {
				var got []string
				if s.m != nil {
					got = summary(c.Receive(s.m.topic, s.m.payload, t0))
				} else {
					got = summary(c.Tick(t0.Add(s.tick)))
				}
				if !slices.Equal(got, s.want) {
					t.Fatalf("step %d: got %v, want %v", i, got, s.want)
				}
				for _, o := range got { // AckDelivered: Run commits what the handler took
					if o[0] == 'd' {
						var seq uint64
						fmt.Sscanf(o[1:], "%d", &seq)
						c.Commit("T1", seq)
					}
				}
			}
		})
	}
}

// TestConsumerFinalAcks: a consumer that stops acknowledges what it processed since its last
// acknowledgement at once, not AckEvery later; with nothing new, nothing.
func TestConsumerFinalAcks(t *testing.T) {
	f := bustest.NewFloor(t, "T1")
	ev := feed(f, 4)
	t0 := bustest.Epoch.Add(time.Hour)
	c, err := consumer.New(consumer.Options{ID: "engine.E1", Tables: []string{"T1"}, Feed: tablebus.Secure, Keyring: f.Keyring,
		Ack: consumer.AckCommitted, From: map[string]uint64{"T1": 0}})
	if err != nil {
		t.Fatal(err)
	}
	c.Receive(ev[0].topic, ev[0].payload, t0)
	c.Commit("T1", 1)
	if got := summary(c.Tick(t0)); !slices.Equal(got, []string{"K1"}) {
		t.Fatalf("tick: %v", got)
	}
	for _, m := range ev[1:] {
		c.Receive(m.topic, m.payload, t0)
	}
	c.Commit("T1", 3) // event 4 delivered, not committed
	if got := summary(c.Tick(t0.Add(time.Millisecond))); len(got) != 0 {
		t.Fatalf("tick within AckEvery: %v", got)
	}
	if got := summary(c.FinalAcks(t0.Add(2 * time.Millisecond))); !slices.Equal(got, []string{"K3"}) {
		t.Fatalf("final: %v", got)
	}
	if got := summary(c.FinalAcks(t0.Add(3 * time.Millisecond))); len(got) != 0 {
		t.Fatalf("final again: %v", got)
	}
}
