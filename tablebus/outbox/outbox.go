// Package outbox is the daemon's side of the feed. It stamps each event with the table's
// envelope (schema version, next sequence number, session), seals and journals it before
// anything else (the journal's fsync), hands it to in-process observers, and publishes the
// journal in sequence order to MQTT from a goroutine of its own, so that a slow or absent
// broker never stops the table. Nothing is published, event or status, that the journal's
// high-water mark does not cover (journal.Cover: one advance covers every event journaled
// since the last), so a journal found behind what was published refuses the next start.
//
// Delivery is decided by the consumers, never by paho's token (research/mqtt.md §2.2): each
// consumer that matters keeps its acknowledgement retained on sabot/v1/<table>/ack/<id>. After
// a restart the outbox starts publishing from the lowest required acknowledgement (and from
// what it had published itself, a mark kept in the journal); after a reconnection it publishes
// again from the lowest acknowledgement it tracks; when a tracked acknowledgement stops moving
// while events are outstanding it re-sends them; and it serves the consumers' replay requests
// for gaps from the journal, which keeps every event. The journal is never pruned: what the
// acknowledgements release is the obligation to re-send.
//
// The outbox also owns the table's birth and death (tablebus.Status, sealed, retained, with the
// will of each connection), publishes the root-signed keyring it was given, and runs the
// start-up probe.
package outbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// Bus is what the outbox needs of an MQTT connection (mqttbus.Client has it).
type Bus interface {
	Publish(ctx context.Context, topic string, payload []byte, qos byte, retain bool) error
	Subscribe(ctx context.Context, filter string, qos byte, h func(mqttbus.Message)) error
}

// asyncBus publishes without waiting (mqttbus.Client): the outbox keeps a window in flight.
type asyncBus interface {
	PublishAsync(topic string, payload []byte, qos byte, retain bool) *mqttbus.Pending
}

var (
	_ Bus      = (*mqttbus.Client)(nil)
	_ asyncBus = (*mqttbus.Client)(nil)
)

// Options configure an outbox.
type Options struct {
	Session uint64
	Logger  *slog.Logger
	// Signer seals events and statuses (the table's key). Nil publishes unsealed events: only
	// for tests of the shoe machine.
	Signer *tablebus.Signer
	// Keyring is the root-signed keyring, published retained on the table's keyring topic.
	Keyring []byte
	// Game goes into the status.
	Game string
	// Required are the consumers whose acknowledgements decide, after a restart, where
	// publishing starts (the engine, the surveillance recorder).
	Required []string
	// AckWait is how long Run waits at start for the required consumers' retained
	// acknowledgements (default 500 ms).
	AckWait time.Duration
	// Retransmit is how long a tracked acknowledgement may stay behind without moving before
	// the outstanding events are sent again; it doubles while nothing moves, up to a minute
	// (default 2 s).
	Retransmit time.Duration
	// Window is how many publishes may be in flight (default 64).
	Window int
	// ReplayChunk is how many events of a replay are published between live events (default
	// 256).
	ReplayChunk int
}

// Outbox journals and publishes one table's events.
type Outbox struct {
	j      *journal.Journal
	topics tablebus.Topics
	o      Options
	log    *slog.Logger

	emitMu    sync.Mutex // serialises Emit: the shoe loop and the outbox's own faults
	mu        sync.Mutex
	observers []*Observer
	wake      chan struct{}

	signer    atomic.Pointer[tablebus.Signer]
	keyring   atomic.Pointer[[]byte]
	next      atomic.Uint64 // the next seq to send on the in-order stream
	confirmed atomic.Uint64 // the last seq whose publishes paho completed, in order
	conn      atomic.Uint64 // connection attempts (the will's and the birth's Conn)

	cmu    sync.Mutex
	recent []journal.Record // the last events journaled, so the publisher need not read them back

	amu         sync.Mutex
	acks        map[string]ack
	replays     []span
	lastAsk     map[string]time.Time // each consumer's last replay request accepted
	connected   bool                 // a (re)connection to handle: birth, keyring, rewind
	keyringDue  bool                 // a new keyring to publish
	lastMove    time.Time
	retransmit  time.Duration
	lastTracked uint64
	pubDur      atomic.Int64 // time spent publishing (broker round trips), summed
	pubCount    atomic.Int64
}

type ack struct {
	seq uint64
	at  time.Time
}

type span struct {
	from, to uint64
	by       string // the consumer that asked ("" for the outbox's own retransmission)
}

// New returns an outbox writing to j for session, without a signer (the shoe machine's tests).
func New(j *journal.Journal, session uint64, log *slog.Logger) *Outbox {
	return NewWith(j, Options{Session: session, Logger: log})
}

// NewWith returns an outbox writing to j. With a signer, every event journaled from now on is
// sealed.
func NewWith(j *journal.Journal, o Options) *Outbox {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.AckWait, 500*time.Millisecond)
	def(&o.Retransmit, 2*time.Second)
	if o.Window <= 0 {
		o.Window = 64
	}
	if o.ReplayChunk <= 0 {
		o.ReplayChunk = 256
	}
	ob := &Outbox{j: j, topics: tablebus.Topics{Table: j.Table()}, o: o, log: o.Logger,
		wake: make(chan struct{}, 1), acks: map[string]ack{}, retransmit: o.Retransmit}
	if o.Signer != nil {
		ob.SetSigner(o.Signer)
	}
	if o.Keyring != nil {
		kr := o.Keyring
		ob.keyring.Store(&kr)
	}
	ob.next.Store(j.NextSeq())
	ob.confirmed.Store(j.NextSeq() - 1)
	return ob
}

// SetSigner makes s seal every event from the next one on (a key rotation).
func (o *Outbox) SetSigner(s *tablebus.Signer) {
	o.signer.Store(s)
	o.j.SetSealer(s)
}

// SetKeyring makes the outbox publish a new keyring (a rotation): retained, at once.
func (o *Outbox) SetKeyring(raw []byte) {
	o.keyring.Store(&raw)
	o.amu.Lock()
	o.keyringDue = true
	o.amu.Unlock()
	o.poke()
}

// Published returns the last sequence number whose publishing paho completed, in order.
func (o *Outbox) Published() uint64 { return o.confirmed.Load() }

// Session returns the session the outbox stamps.
func (o *Outbox) Session() uint64 { return o.o.Session }

// LastSeq returns the last journaled sequence number.
func (o *Outbox) LastSeq() uint64 { return o.j.NextSeq() - 1 }

// Journal returns the journal.
func (o *Outbox) Journal() *journal.Journal { return o.j }

// BrokerTime returns the time spent waiting for the broker's acknowledgements of publishes, and
// how many were waited for.
func (o *Outbox) BrokerTime() (time.Duration, int64) {
	return time.Duration(o.pubDur.Load()), o.pubCount.Load()
}

func (o *Outbox) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Emit stamps evs, seals and journals them with the input that produced them (JSON; nil for
// none), and hands them to the observers, in order (shoe.Sink).
func (o *Outbox) Emit(ctx context.Context, input []byte, evs []tablebus.Event) error {
	o.emitMu.Lock()
	defer o.emitMu.Unlock()
	next := o.j.NextSeq()
	stamped := make([]tablebus.Event, len(evs))
	for i, e := range evs {
		e.V = tablebus.SchemaVersion
		e.Seq = next + uint64(i)
		e.Table = o.j.Table()
		e.Source = tablebus.SourceTable
		e.Session = o.o.Session
		stamped[i] = e
	}
	recs, err := o.j.AppendStep(input, stamped)
	if err != nil {
		return err
	}
	o.cmu.Lock()
	o.recent = append(o.recent, recs...)
	if len(o.recent) > 2*recentMax {
		o.recent = append([]journal.Record(nil), o.recent[len(o.recent)-recentMax:]...)
	}
	o.cmu.Unlock()
	o.mu.Lock()
	for _, ob := range o.observers {
		for _, e := range stamped {
			ob.push(e)
		}
	}
	o.mu.Unlock()
	o.poke()
	return nil
}

// recentMax is about how many journaled events the outbox keeps in memory for publishing.
const recentMax = 1024

// cached returns the records from..to if they are all in memory.
func (o *Outbox) cached(from, to uint64) ([]journal.Record, bool) {
	o.cmu.Lock()
	defer o.cmu.Unlock()
	if len(o.recent) == 0 || o.recent[0].Seq > from || o.recent[len(o.recent)-1].Seq < to {
		return nil, false
	}
	i := int(from - o.recent[0].Seq)
	return append([]journal.Record(nil), o.recent[i:i+int(to-from+1)]...), true
}

// Fault journals and publishes a fault the bus itself found (a refused command, a failed
// probe): it does not hold the table.
func (o *Outbox) Fault(ctx context.Context, code, problem string) error {
	return o.Emit(ctx, nil, []tablebus.Event{{Type: tablebus.Fault, Code: code, Problem: problem, TS: time.Now().UTC()}})
}

// Observe returns an in-process observer that receives every event emitted from now on, in
// order, without ever slowing the table (its queue grows instead).
func (o *Outbox) Observe() *Observer {
	ob := &Observer{ready: make(chan struct{}, 1)}
	o.mu.Lock()
	o.observers = append(o.observers, ob)
	o.mu.Unlock()
	return ob
}

// Observer is an unbounded in-order queue of events.
type Observer struct {
	mu    sync.Mutex
	q     []tablebus.Event
	ready chan struct{}
}

func (ob *Observer) push(e tablebus.Event) {
	ob.mu.Lock()
	ob.q = append(ob.q, e)
	ob.mu.Unlock()
	select {
	case ob.ready <- struct{}{}:
	default:
	}
}

// Next returns the next event, waiting for it until ctx is done.
func (ob *Observer) Next(ctx context.Context) (tablebus.Event, error) {
	for {
		ob.mu.Lock()
		if len(ob.q) > 0 {
			e := ob.q[0]
			ob.q = ob.q[1:]
			ob.mu.Unlock()
			return e, nil
		}
		ob.mu.Unlock()
		select {
		case <-ob.ready:
		case <-ctx.Done():
			return tablebus.Event{}, ctx.Err()
		}
	}
}

// status returns the sealed status message.
func (o *Outbox) status(online bool, conn uint64) []byte {
	st := tablebus.Status{V: tablebus.SchemaVersion, Table: o.j.Table(), Online: online, Session: o.o.Session,
		Conn: conn, Game: o.o.Game, Seq: o.coveredLast(), TS: time.Now().UTC()}
	signer := o.signer.Load()
	if signer == nil {
		b, _ := jsonMarshal(st)
		return b
	}
	b, err := tablebus.SealStatus(signer, o.topics.Status(), st)
	if err != nil {
		o.log.Error("sealing the status", "err", err)
	}
	return b
}

// coveredLast returns the last journaled seq after making the high-water mark cover it, or, if
// the mark cannot be advanced, the last seq it covers: a status never names an event the mark
// does not cover.
func (o *Outbox) coveredLast() uint64 {
	last := o.LastSeq()
	if err := o.j.Cover(last); err != nil {
		o.log.Error("advancing the high-water mark", "err", err)
		return min(last, o.j.Covered())
	}
	return last
}

// Will returns the will of the next connection attempt (mqttbus.Options.NextWill): the sealed
// offline status of that connection.
func (o *Outbox) Will() *mqttbus.Will {
	c := o.conn.Add(1)
	return &mqttbus.Will{Topic: o.topics.Status(), Payload: o.status(false, c), Retain: true}
}

// Connected tells the outbox a connection is up (mqttbus.Options.OnConnect): Run publishes the
// birth and the keyring, and publishes again from the lowest tracked acknowledgement. It does
// not block.
func (o *Outbox) Connected() {
	o.amu.Lock()
	o.connected = true
	o.amu.Unlock()
	o.poke()
}

// Offline publishes the offline status of the current connection: a clean stop.
func (o *Outbox) Offline(ctx context.Context, bus Bus) error {
	return bus.Publish(ctx, o.topics.Status(), o.status(false, o.conn.Load()), 1, true)
}

// Acks returns the acknowledgement of every consumer seen.
func (o *Outbox) Acks() map[string]uint64 {
	o.amu.Lock()
	defer o.amu.Unlock()
	out := map[string]uint64{}
	for id, a := range o.acks {
		out[id] = a.seq
	}
	return out
}

// Unacknowledged returns how many journaled events the required consumers have not all
// acknowledged (0 with none required).
func (o *Outbox) Unacknowledged() uint64 {
	o.amu.Lock()
	low, ok := o.lowest(time.Now(), true)
	o.amu.Unlock()
	if !ok {
		return 0
	}
	return o.LastSeq() - min(low, o.LastSeq())
}

// statusHeartbeat is how often the status is re-published when the sequence number has moved.
const statusHeartbeat = 10 * time.Second

// ackFresh is how long a consumer that is not required counts as tracked after its last ack.
const ackFresh = 10 * time.Second

// lowest returns the lowest acknowledgement of the required consumers (requiredOnly), or of the
// tracked ones: the required, and the others heard from recently. amu is held.
func (o *Outbox) lowest(now time.Time, requiredOnly bool) (uint64, bool) {
	var low uint64
	found := false
	see := func(s uint64) {
		if !found || s < low {
			low, found = s, true
		}
	}
	for _, id := range o.o.Required {
		see(o.acks[id].seq)
	}
	if !requiredOnly {
		for id, a := range o.acks {
			if !slices.Contains(o.o.Required, id) && now.Sub(a.at) < ackFresh {
				see(a.seq)
			}
		}
	}
	return low, found
}

// lowestFresh returns the lowest acknowledgement of the consumers heard from within ackFresh.
// amu is held.
func (o *Outbox) lowestFresh(now time.Time) (uint64, bool) {
	var low uint64
	found := false
	for _, a := range o.acks {
		if now.Sub(a.at) < ackFresh && (!found || a.seq < low) {
			low, found = a.seq, true
		}
	}
	return low, found
}

// handle takes an acknowledgement or a replay request.
func (o *Outbox) handle(m mqttbus.Message, now time.Time) {
	p, err := tablebus.ParseTopic(m.Topic)
	if err != nil || p.Table != o.j.Table() {
		o.log.Warn("ignoring a message outside the table's tree", "topic", m.Topic)
		return
	}
	o.amu.Lock()
	defer o.amu.Unlock()
	last := o.LastSeq()
	switch {
	case len(m.Payload) == 0:
		// A cleared retained ack.
	case len(p.Rest) > 4 && p.Rest[:4] == "ack/":
		a, err := tablebus.DecodeAck(m.Topic, m.Payload)
		if err != nil {
			o.log.Warn("refused an acknowledgement", "topic", m.Topic, "err", err)
			return
		}
		if a.Seq > last {
			o.log.Warn("refused an acknowledgement of events not yet journaled", "consumer", a.Consumer, "seq", a.Seq, "last", last)
			return
		}
		if old, ok := o.acks[a.Consumer]; !ok || a.Seq >= old.seq {
			o.acks[a.Consumer] = ack{seq: a.Seq, at: now}
		}
	case len(p.Rest) > 7 && p.Rest[:7] == "replay/":
		r, err := tablebus.DecodeReplay(m.Topic, m.Payload)
		if err != nil {
			o.log.Warn("refused a replay request", "topic", m.Topic, "err", err)
			return
		}
		to := min(r.To, last, r.From+maxReplaySpan-1)
		if r.From > to {
			return
		}
		if o.lastAsk == nil {
			o.lastAsk = map[string]time.Time{}
		}
		if t, ok := o.lastAsk[r.Consumer]; ok && now.Sub(t) < minReplayInterval {
			o.log.Debug("replay request too soon after the last one; dropped", "consumer", r.Consumer)
			return
		}
		o.lastAsk[r.Consumer] = now
		o.addReplay(span{r.From, to, r.Consumer})
		o.log.Debug("replay requested", "consumer", r.Consumer, "from", r.From, "to", to)
	default:
		o.log.Warn("ignoring a message on an unexpected topic", "topic", m.Topic)
	}
}

// The bounds on replays: the ranges queued, the events one request may ask for (a consumer with
// a longer gap asks again), and how often one consumer may ask. One consumer has at most one
// range queued, so no consumer can crowd out another's (a display flooding requests cannot
// delay an engine's gap repair), and no request can make the daemon re-send its whole journal.
const (
	maxReplays        = 64
	maxReplaySpan     = 10000
	minReplayInterval = time.Second
)

func (o *Outbox) addReplay(s span) {
	for i, r := range o.replays {
		if s.by != "" && r.by == s.by { // a consumer's new request replaces its last
			o.replays[i] = s
			return
		}
		if s.by == r.by && s.from <= r.to+1 && r.from <= s.to+1 { // overlapping or adjacent: merge
			o.replays[i] = span{min(r.from, s.from), max(r.to, s.to), r.by}
			return
		}
	}
	if len(o.replays) >= maxReplays {
		// Evict the oldest range of a consumer that is not required.
		for i, r := range o.replays {
			if !slices.Contains(o.o.Required, r.by) {
				o.replays = slices.Delete(o.replays, i, i+1)
				break
			}
		}
		if len(o.replays) >= maxReplays {
			return
		}
	}
	o.replays = append(o.replays, s)
}

// Run publishes until ctx is done: journaled events in sequence order on the secure and the
// public topic at QoS 1, the births, the replays. A failed publish is retried, with backoff,
// from the first event not confirmed: nothing journaled is ever skipped.
func (o *Outbox) Run(ctx context.Context, bus Bus) error {
	msgs := make(chan mqttbus.Message, 4096)
	handler := func(m mqttbus.Message) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	}
	for _, f := range []string{o.topics.Acks(), o.topics.Replays()} {
		for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, 5*time.Second) {
			err := bus.Subscribe(ctx, f, 1, handler)
			if err == nil {
				break
			}
			o.log.Warn("subscribing to the consumers' topic failed; retrying", "filter", f, "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
		}
	}
	if err := o.start(ctx, msgs); err != nil {
		return err
	}
	defer o.saveMarks()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	backoff := 100 * time.Millisecond
	lastSave, lastStatus, statusSeq := time.Now(), time.Now(), o.LastSeq()
	for {
		err := o.round(ctx, bus, msgs)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			o.next.Store(o.confirmed.Load() + 1)
			o.log.Warn("publishing the feed failed; retrying", "err", err, "from_seq", o.next.Load(), "in", backoff)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		if time.Since(lastSave) >= time.Second {
			o.saveMarks()
			lastSave = time.Now()
		}
		// The status is a heartbeat too: re-published with the last sequence number when it
		// has moved, so that a consumer that lost the table's last events (its own connection
		// dropped, the broker's queue overflowed) learns of them without waiting for the next
		// event, which may be hours away at a quiet table.
		if time.Since(lastStatus) >= statusHeartbeat {
			if last := o.LastSeq(); last != statusSeq && o.confirmed.Load() >= last {
				if err := bus.Publish(ctx, o.topics.Status(), o.status(true, o.conn.Load()), 1, true); err == nil {
					statusSeq = last
				}
			}
			lastStatus = time.Now()
		}
		if o.idle() {
			select {
			case <-ctx.Done():
				return nil
			case <-o.wake:
			case m := <-msgs:
				o.handle(m, time.Now())
			case <-tick.C:
				o.checkRetransmit(time.Now())
			}
		}
	}
}

// idle reports whether nothing is left to publish now.
func (o *Outbox) idle() bool {
	o.amu.Lock()
	defer o.amu.Unlock()
	return !o.connected && !o.keyringDue && len(o.replays) == 0 && o.next.Load() > o.LastSeq()
}

// start decides where publishing starts: the lowest of what the outbox had confirmed before
// (its mark) and the required consumers' acknowledgements (journaled, and retained on the
// broker).
func (o *Outbox) start(ctx context.Context, msgs chan mqttbus.Message) error {
	published, err := o.j.Mark("published")
	if err != nil {
		return err
	}
	acks, err := o.j.Marks("ack.")
	if err != nil {
		return err
	}
	now := time.Now()
	o.amu.Lock()
	for id, s := range acks {
		o.acks[id] = ack{seq: s, at: time.Time{}}
	}
	o.amu.Unlock()
	if len(o.o.Required) > 0 {
		// The retained acknowledgements come right after the subscription: wait for each
		// required consumer's, or AckWait.
		heard := map[string]bool{}
		deadline := time.NewTimer(o.o.AckWait)
		defer deadline.Stop()
	wait:
		for len(heard) < len(o.o.Required) {
			select {
			case <-ctx.Done():
				return nil
			case m := <-msgs:
				o.handle(m, time.Now())
				if p, err := tablebus.ParseTopic(m.Topic); err == nil {
					if id, ok := strings.CutPrefix(p.Rest, "ack/"); ok && slices.Contains(o.o.Required, id) {
						heard[id] = true
					}
				}
			case <-deadline.C:
				break wait
			}
		}
	}
	last := o.LastSeq()
	from := min(published, last) + 1
	o.amu.Lock()
	if low, ok := o.lowest(now, true); ok && low+1 < from {
		from = low + 1
	}
	o.lastMove = now
	o.amu.Unlock()
	o.next.Store(from)
	o.confirmed.Store(from - 1)
	if from <= last {
		o.log.Info("publishing the events not acknowledged or not published before", "from_seq", from, "last_seq", last)
	}
	return nil
}

// saveMarks keeps what was published and acknowledged in the journal (a second's worth is
// published again after a crash: consumers drop duplicates).
func (o *Outbox) saveMarks() {
	old, _ := o.j.Mark("published")
	if c := o.confirmed.Load(); c != old {
		if err := o.j.SetMark("published", c); err != nil {
			o.log.Warn("saving the published mark", "err", err)
		}
	}
	for id, s := range o.Acks() {
		if old, _ := o.j.Mark("ack." + id); old != s {
			if err := o.j.SetMark("ack."+id, s); err != nil {
				o.log.Warn("saving an acknowledgement", "err", err)
			}
		}
	}
}

// checkRetransmit re-sends the outstanding events when the lowest tracked acknowledgement has
// not moved for the retransmit interval.
func (o *Outbox) checkRetransmit(now time.Time) {
	o.amu.Lock()
	defer o.amu.Unlock()
	// Only consumers heard from recently count: a required consumer that is down (or named in
	// --require-ack but never heard) decides where publishing starts after a restart, but must
	// not make the daemon re-send its backlog to everyone for ever.
	low, ok := o.lowestFresh(now)
	conf := o.confirmed.Load()
	if !ok || low >= conf {
		o.lastMove, o.retransmit, o.lastTracked = now, o.o.Retransmit, low
		return
	}
	if low != o.lastTracked {
		o.lastMove, o.retransmit, o.lastTracked = now, o.o.Retransmit, low
		return
	}
	if now.Sub(o.lastMove) < o.retransmit {
		return
	}
	o.log.Info("acknowledgement not moving: sending the outstanding events again", "acked", low, "published", conf)
	o.addReplay(span{low + 1, conf, ""})
	o.lastMove, o.retransmit = now, min(2*o.retransmit, time.Minute)
	o.poke()
}

// round does one round of work: a (re)connection's birth, live events, a replay chunk.
func (o *Outbox) round(ctx context.Context, bus Bus, msgs chan mqttbus.Message) error {
	for drained := false; !drained; {
		select {
		case m := <-msgs:
			o.handle(m, time.Now())
		default:
			drained = true
		}
	}
	o.amu.Lock()
	conn, krDue := o.connected, o.keyringDue
	o.connected, o.keyringDue = false, false
	o.amu.Unlock()
	if krDue && !conn {
		if kr := o.keyring.Load(); kr != nil {
			if err := bus.Publish(ctx, o.topics.Keyring(), *kr, 1, true); err != nil {
				o.amu.Lock()
				o.keyringDue = true
				o.amu.Unlock()
				return err
			}
		}
	}
	if conn {
		if err := o.birth(ctx, bus); err != nil {
			o.amu.Lock()
			o.connected = true
			o.amu.Unlock()
			return err
		}
	}
	if err := o.publishLive(ctx, bus, 256); err != nil {
		return err
	}
	o.amu.Lock()
	var r span
	if len(o.replays) > 0 {
		r = o.replays[0]
		end := min(r.to, r.from+uint64(o.o.ReplayChunk)-1)
		if end >= r.to {
			o.replays = o.replays[1:]
		} else {
			o.replays[0].from = end + 1
		}
		r.to = end
	}
	o.amu.Unlock()
	if r.from == 0 {
		return nil
	}
	return o.publishRange(ctx, bus, r.from, r.to, nil)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// birth publishes the keyring and the online status of the current connection, and rewinds
// the in-order stream to the lowest tracked acknowledgement (paho's tokens do not say what
// reached the broker before the connection broke).
func (o *Outbox) birth(ctx context.Context, bus Bus) error {
	if kr := o.keyring.Load(); kr != nil && len(*kr) > 0 {
		if err := bus.Publish(ctx, o.topics.Keyring(), *kr, 1, true); err != nil {
			return err
		}
	}
	if err := bus.Publish(ctx, o.topics.Status(), o.status(true, o.conn.Load()), 1, true); err != nil {
		return err
	}
	o.amu.Lock()
	low, ok := o.lowest(time.Now(), false)
	o.amu.Unlock()
	if ok && low+1 < o.next.Load() {
		o.log.Info("connected: publishing again from the lowest acknowledgement", "from_seq", low+1, "published", o.confirmed.Load())
		o.next.Store(low + 1)
		o.confirmed.Store(low)
	}
	return nil
}

// publishLive publishes the in-order stream, at most limit events.
func (o *Outbox) publishLive(ctx context.Context, bus Bus, limit uint64) error {
	from, last := o.next.Load(), o.LastSeq()
	if from > last {
		return nil
	}
	to := min(last, from+limit-1)
	if err := o.publishRange(ctx, bus, from, to, func(seq uint64) {
		o.confirmed.Store(seq)
	}); err != nil {
		return err
	}
	// A number up to LastSeq that the journal does not hold was lost on the operator's word
	// (journal.AcceptLoss): no event will ever carry it, and a chunk of such numbers alone
	// must not stop the stream there.
	if o.next.Load() <= to {
		o.next.Store(to + 1)
		o.confirmed.Store(to)
	}
	return nil
}

// publishRange publishes events from..to on both feeds with a window in flight; done is
// called, in order, for each event whose publishes completed.
func (o *Outbox) publishRange(ctx context.Context, bus Bus, from, to uint64, done func(uint64)) error {
	live := done != nil
	ab, async := bus.(asyncBus)
	type inflight struct {
		seq  uint64
		p    [2]*mqttbus.Pending
		sent time.Time
	}
	var win []inflight
	settle := func(f inflight) error {
		for _, p := range f.p {
			if err := p.Wait(ctx); err != nil {
				return fmt.Errorf("outbox: event %d: %w", f.seq, err)
			}
		}
		o.pubDur.Add(int64(time.Since(f.sent)))
		o.pubCount.Add(1)
		if done != nil {
			done(f.seq)
		}
		return nil
	}
	// Nothing goes out that the high-water mark does not cover (journal.Cover): a journal
	// found behind the mark at the next start refuses to start rather than give these
	// numbers to other events.
	if err := o.j.Cover(to); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	// Read first, publish after: the journal has one connection, which the table's next
	// append must not wait for while the broker answers.
	recs, ok := o.cached(from, to)
	if !ok {
		if err := o.j.Range(ctx, from, to, func(r journal.Record) error {
			recs = append(recs, r)
			return nil
		}); err != nil {
			return err
		}
	}
	var err error
	for _, r := range recs {
		err = func() error {
			if live {
				o.next.Store(r.Seq + 1)
			}
			if !async {
				t := time.Now()
				if err := bus.Publish(ctx, o.topics.Events(tablebus.Secure), r.SecureWire, 1, false); err != nil {
					return fmt.Errorf("outbox: event %d: %w", r.Seq, err)
				}
				if err := bus.Publish(ctx, o.topics.Events(tablebus.Public), r.PublicWire, 1, false); err != nil {
					return fmt.Errorf("outbox: event %d: %w", r.Seq, err)
				}
				o.pubDur.Add(int64(time.Since(t)))
				o.pubCount.Add(1)
				if done != nil {
					done(r.Seq)
				}
				return nil
			}
			win = append(win, inflight{seq: r.Seq, sent: time.Now(), p: [2]*mqttbus.Pending{
				ab.PublishAsync(o.topics.Events(tablebus.Secure), r.SecureWire, 1, false),
				ab.PublishAsync(o.topics.Events(tablebus.Public), r.PublicWire, 1, false)}})
			if len(win) >= o.o.Window {
				f := win[0]
				win = win[1:]
				return settle(f)
			}
			return nil
		}()
		if err != nil {
			break
		}
	}
	for _, f := range win {
		if err != nil {
			break
		}
		err = settle(f)
	}
	return err
}

// ErrProbe is returned by Probe when what the daemon publishes does not come back.
var ErrProbe = errors.New("outbox: the broker accepted the probe but did not deliver it back (an ACL that denies this account, or a broker that drops messages): consumers will not receive this table's feed")

// Probe publishes a random nonce on each feed's probe topic and waits, up to timeout, to
// receive it back: MQTT 3.1.1 acknowledges a publish the ACL denies (research/mqtt.md §3.1), so
// this is the only way to know at start that the table's feed reaches the broker.
func (o *Outbox) Probe(ctx context.Context, bus Bus, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nonce := make([]byte, 16)
	rand.Read(nonce)
	want := hex.EncodeToString(nonce)
	got := make(chan string, 4)
	feeds := []tablebus.Feed{tablebus.Secure, tablebus.Public}
	for _, f := range feeds {
		topic := o.topics.Probe(string(f))
		err := bus.Subscribe(ctx, topic, 1, func(m mqttbus.Message) {
			if string(m.Payload) == want {
				select {
				case got <- m.Topic:
				default:
				}
			}
		})
		if err != nil {
			return fmt.Errorf("outbox: probe: %w", err)
		}
	}
	for _, f := range feeds {
		if err := bus.Publish(ctx, o.topics.Probe(string(f)), []byte(want), 1, false); err != nil {
			return fmt.Errorf("outbox: probe: %w", err)
		}
	}
	seen := map[string]bool{}
	for len(seen) < len(feeds) {
		select {
		case t := <-got:
			seen[t] = true
		case <-ctx.Done():
			var missing []string
			for _, f := range feeds {
				if !seen[o.topics.Probe(string(f))] {
					missing = append(missing, o.topics.Probe(string(f)))
				}
			}
			return fmt.Errorf("%w (not back after %v: %v)", ErrProbe, timeout, missing)
		}
	}
	return nil
}
