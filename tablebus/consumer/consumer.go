package consumer

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
)

// AckMode says when the consumer acknowledges an event on its retained ack topic.
type AckMode int

const (
	// AckNone never acknowledges (displays, `sabot watch`).
	AckNone AckMode = iota
	// AckDelivered acknowledges an event once the handler has returned nil for it.
	AckDelivered
	// AckCommitted acknowledges only what the application passes to Commit (an engine that
	// has journaled its own results).
	AckCommitted
)

// Options configure a Consumer.
type Options struct {
	// ID is the consumer's id and MQTT user name (engine.E1, surveillance.S1, display.lobby):
	// it acknowledges on sabot/v1/<table>/ack/<ID> and asks for replays on …/replay/<ID>.
	ID string
	// Tables to follow; none follows every table.
	Tables []string
	// Feed is tablebus.Secure (engines, surveillance) or tablebus.Public (displays; default).
	Feed tablebus.Feed
	// Keyring is the pinned keyring (a file); a newer one signed by the same root, received
	// on a table's keyring topic, replaces it. Without one, the first valid keyring received
	// is used.
	Keyring *tablebus.Keyring
	// Root is the floor's root public key. Nil (with no Keyring) trusts the root of the first
	// keyring received, and says so in the log: development only.
	Root ed25519.PublicKey
	// From gives, per table, the highest sequence number already processed (a restarted
	// consumer); a table not listed starts at the first event received.
	From map[string]uint64
	// Ack says when events are acknowledged (default AckNone).
	Ack AckMode
	// Resume starts each table after this consumer's own acknowledgement, retained on
	// sabot/v1/<table>/ack/<ID> (a surveillance account may read it back; an engine keeps its
	// own mark and gives From), so that a restarted consumer asks for the events it missed
	// instead of acknowledging events it never saw. A table in From, or with no retained
	// acknowledgement, starts as it would without Resume.
	Resume bool
	// ResumeWait is how long Run waits at its start for the retained acknowledgements (default
	// 500 ms, as long as the daemon waits for its required consumers'); with Tables listed it
	// stops waiting when each table's has come.
	ResumeWait time.Duration
	// ReorderTimeout is how long a gap may stay open before the consumer asks for its
	// replay (Sparkplug's "Reorder Timeout"; default 300 ms).
	ReorderTimeout time.Duration
	// ReplayRetry is the first interval between repeated replay requests; it doubles up to
	// 8 times as much (default 1 s).
	ReplayRetry time.Duration
	// GapAlarm is how long a gap may stay unfilled before an alarm (default 30 s).
	GapAlarm time.Duration
	// AckEvery is the most often an ack is published per table (default 100 ms).
	AckEvery time.Duration
	// MaxPending bounds the events held out of order per table (default 100,000); beyond it
	// the furthest are dropped and come back by replay.
	MaxPending int
	// FutureSkew is how far an event's time may be ahead of the consumer's clock before an
	// alarm (default 2 min; the event is still delivered: old or new, the signature and the
	// sequence number decide).
	FutureSkew time.Duration
	Logger     *slog.Logger
}

// Delivery is one verified event, delivered once and in sequence order per table.
type Delivery struct {
	Table   string
	Seq     uint64
	Event   tablebus.Event
	Topic   string
	Payload []byte // the exact signed bytes
	KeyID   string
	Hash    tablebus.Hash // of Payload: the next event's prev
}

// Alarm codes.
const (
	AlarmForged       = "forged"        // unsigned, or the signature does not verify
	AlarmUnknownKey   = "unknown-key"   // signed by a key the keyring does not hold
	AlarmRevokedKey   = "revoked-key"   // signed by a revoked key
	AlarmKeyNotValid  = "key-not-valid" // a key used for another table or use, or out of its dates
	AlarmEquivocation = "equivocation"  // two different, validly signed payloads for one sequence number
	AlarmChain        = "chain"         // the event does not name the previous event's hash
	AlarmBadPayload   = "bad-payload"   // oversized, or not an event of the schema
	AlarmTopic        = "foreign-topic" // a topic outside the followed tables' trees
	AlarmGap          = "gap"           // events still missing after GapAlarm
	AlarmKeyring      = "keyring"       // a keyring that does not verify, or goes backwards
	AlarmFuture       = "future-dated"  // an event dated well ahead of this clock
	AlarmOverflow     = "overflow"      // too many events out of order: some dropped until replayed
	AlarmNoKeyring    = "no-keyring"    // events held because no keyring has arrived
)

// Alarm is something a person must look at: a forged or altered event, equivocation, a gap
// that does not fill.
type Alarm struct {
	Code   string
	Table  string
	Seq    uint64 // 0 when not known
	Topic  string
	Detail string
	TS     time.Time // when the consumer raised it
}

func (a Alarm) String() string {
	s := fmt.Sprintf("%s: %s", strings.ToUpper(a.Code), a.Detail)
	if a.Table != "" {
		s = a.Table + " " + s
	}
	return s
}

// State is what the consumer knows of a table's daemon: its birth and death (the retained
// status), and how far the consumer has got.
type State struct {
	Table     string
	Known     bool // a status has been received
	Online    bool // the daemon is connected (false: dead, or stopped)
	Session   uint64
	Conn      uint64
	DaemonSeq uint64    // the last seq the daemon announced in its status
	Since     time.Time // the status's time
	Delivered uint64    // the highest sequence number delivered contiguously
	Missing   uint64    // events known to exist and not yet delivered
}

func (s State) String() string {
	st := "unknown"
	switch {
	case s.Known && s.Online:
		st = "online"
	case s.Known:
		st = "OFFLINE"
	}
	return fmt.Sprintf("%s daemon %s (session %d.%d, daemon at #%d, delivered #%d, missing %d)",
		s.Table, st, s.Session, s.Conn, s.DaemonSeq, s.Delivered, s.Missing)
}

// Output is one thing the consumer has to say; exactly one field is set.
type Output struct {
	Delivery *Delivery
	Alarm    *Alarm
	State    *State
	Replay   *tablebus.ReplayRequest // to publish on Topics.Replay(ID)
	Ack      *tablebus.Ack           // to publish, retained, on Topics.Ack(ID)
}

// Stats count what happened to one table's feed.
type Stats struct {
	Delivered  uint64 // events delivered
	Duplicates uint64 // identical copies dropped
	Rejected   uint64 // messages refused with an alarm
	Replays    uint64 // replay requests sent
	Pending    int    // events held out of order now
}

// Consumer verifies, deduplicates and reorders tables' feeds, and asks for the replay of gaps.
// Receive and Tick are its pure core (time is passed in); Run connects it to a broker. Its
// methods are safe for concurrent use.
type Consumer struct {
	o      Options
	log    *slog.Logger
	follow map[string]bool // nil: every table

	mu     sync.Mutex
	kr     *tablebus.Keyring
	root   ed25519.PublicKey
	held   []held // messages waiting for a keyring
	tables map[string]*table
}

type held struct {
	topic   string
	payload []byte
}

// recentLen is how many delivered payload hashes a table keeps to tell a duplicate from an
// equivocation.
const recentLen = 4096

type pending struct {
	op      tablebus.Opened
	topic   string
	payload []byte
	hash    tablebus.Hash
}

type table struct {
	id       string
	started  bool
	highest  uint64
	lastHash tablebus.Hash
	haveLast bool
	recent   [recentLen]struct {
		seq  uint64
		hash tablebus.Hash
	}
	pending    map[uint64]pending
	maxPend    uint64 // the highest sequence number in pending (0: none), kept so that no event costs a scan
	tailWant   uint64 // the daemon said it has events up to here
	gapSince   time.Time
	nextReplay time.Time
	retry      time.Duration
	gapAlarmed bool
	committed  uint64
	ackSent    uint64
	ackAt      time.Time
	reack      bool // a duplicate came: the daemon may not have our ack; say it again
	status     tablebus.Status
	haveStatus bool
	stats      Stats
}

// New returns a consumer.
func New(o Options) (*Consumer, error) {
	if o.Feed == "" {
		o.Feed = tablebus.Public
	}
	if o.Feed != tablebus.Public && o.Feed != tablebus.Secure {
		return nil, fmt.Errorf("consumer: feed %q, want secure or public", o.Feed)
	}
	if err := tablebus.ValidConsumer(o.ID); err != nil {
		return nil, fmt.Errorf("consumer: %w", err)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReorderTimeout, 300*time.Millisecond)
	def(&o.ReplayRetry, time.Second)
	def(&o.GapAlarm, 30*time.Second)
	def(&o.AckEvery, 100*time.Millisecond)
	def(&o.FutureSkew, 2*time.Minute)
	def(&o.ResumeWait, 500*time.Millisecond)
	if o.MaxPending <= 0 {
		o.MaxPending = 100_000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Consumer{o: o, log: o.Logger.With("consumer", o.ID), kr: o.Keyring, root: o.Root, tables: map[string]*table{}}
	if len(o.Tables) > 0 {
		c.follow = map[string]bool{}
		for _, t := range o.Tables {
			if err := tablebus.ValidTable(t); err != nil {
				return nil, fmt.Errorf("consumer: %w", err)
			}
			c.follow[t] = true
		}
	}
	if c.root == nil && c.kr != nil {
		c.root = mustRoot(c.kr)
	}
	if c.kr != nil && c.root != nil && tablebus.KeyIDOf(c.root) != c.kr.RootID() {
		return nil, fmt.Errorf("consumer: the keyring is signed by root %s, not the pinned root %s", c.kr.RootID(), tablebus.KeyIDOf(c.root))
	}
	for t, seq := range o.From {
		if err := tablebus.ValidTable(t); err != nil {
			return nil, fmt.Errorf("consumer: %w", err)
		}
		tb := c.table(t)
		tb.started, tb.highest, tb.committed, tb.ackSent = true, seq, seq, seq
	}
	return c, nil
}

func mustRoot(kr *tablebus.Keyring) ed25519.PublicKey {
	root, _ := decodePub(kr.Root)
	return root
}

func decodeB64(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }

// ID returns the consumer's id.
func (c *Consumer) ID() string { return c.o.ID }

// Feed returns the feed the consumer follows.
func (c *Consumer) Feed() tablebus.Feed { return c.o.Feed }

// Filters returns the MQTT topic filters the consumer needs, keyrings and statuses first.
func (c *Consumer) Filters() []string {
	tables := c.o.Tables
	if len(tables) == 0 {
		tables = []string{"+"}
	}
	var out []string
	for _, t := range tables {
		tp := tablebus.Topics{Table: t}
		out = append(out, tp.Keyring(), tp.Status(), tp.Events(c.o.Feed))
	}
	return out
}

// ResumeFilters returns the topic filters of the consumer's own acknowledgements, which Run
// reads before the others (Options.Resume; none without it).
func (c *Consumer) ResumeFilters() []string {
	if !c.o.Resume {
		return nil
	}
	tables := c.o.Tables
	if len(tables) == 0 {
		tables = []string{"+"}
	}
	var out []string
	for _, t := range tables {
		out = append(out, tablebus.Topics{Table: t}.Ack(c.o.ID))
	}
	return out
}

func (c *Consumer) table(id string) *table {
	t := c.tables[id]
	if t == nil {
		t = &table{id: id, pending: map[uint64]pending{}}
		c.tables[id] = t
	}
	return t
}

// Keyring returns the keyring in use (nil before the first).
func (c *Consumer) Keyring() *tablebus.Keyring {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kr
}

// Stats returns each table's counters.
func (c *Consumer) Stats() map[string]Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]Stats{}
	for id, t := range c.tables {
		s := t.stats
		s.Pending = len(t.pending)
		out[id] = s
	}
	return out
}

// States returns what the consumer knows of every table, sorted by table.
func (c *Consumer) States() []State {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []State
	for _, t := range c.tables {
		out = append(out, t.state())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out
}

func (t *table) state() State {
	s := State{Table: t.id, Known: t.haveStatus, Online: t.status.Online, Session: t.status.Session,
		Conn: t.status.Conn, DaemonSeq: t.status.Seq, Since: t.status.TS, Delivered: t.highest}
	if w := t.want(); w > t.highest {
		s.Missing = w - t.highest
	}
	return s
}

// want is the highest sequence number known to exist.
func (t *table) want() uint64 { return max(t.tailWant, t.maxPend) }

// dropPending removes seq from pending, keeping maxPend (a scan only when the highest goes).
func (t *table) dropPending(seq uint64) {
	delete(t.pending, seq)
	if seq == t.maxPend {
		t.maxPend = 0
		for s := range t.pending {
			t.maxPend = max(t.maxPend, s)
		}
	}
}

// Commit records that the application has processed table's events up to seq (AckCommitted).
func (c *Consumer) Commit(table string, seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.table(table)
	if seq > t.committed && seq <= t.highest {
		t.committed = seq
	}
}

// Receive takes one MQTT message (topic and payload) received at now, and returns what
// follows from it, in order.
func (c *Consumer) Receive(topic string, payload []byte, now time.Time) []Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.receive(topic, payload, now, nil)
}

func (c *Consumer) alarm(out []Output, now time.Time, code, table string, seq uint64, topic, format string, a ...any) []Output {
	al := &Alarm{Code: code, Table: table, Seq: seq, Topic: topic, Detail: fmt.Sprintf(format, a...), TS: now}
	if t := c.tables[table]; t != nil {
		t.stats.Rejected++
	}
	c.log.Error("ALARM "+code, "table", table, "seq", seq, "topic", topic, "detail", al.Detail)
	return append(out, Output{Alarm: al})
}

func (c *Consumer) receive(topic string, payload []byte, now time.Time, out []Output) []Output {
	p, err := tablebus.ParseTopic(topic)
	if err == nil && tablebus.ValidTable(p.Table) != nil {
		// No table has that id (a role account's name, say): nothing of a table's feed, and
		// nothing to raise an alarm about for every message a misconfigured broker lets by.
		c.log.Debug("dropped a message outside any table's tree", "topic", topic)
		return out
	}
	if err != nil || (c.follow != nil && !c.follow[p.Table]) {
		return c.alarm(out, now, AlarmTopic, p.Table, 0, topic, "a message on a topic this consumer does not follow")
	}
	if len(payload) > tablebus.MaxPayload {
		return c.alarm(out, now, AlarmBadPayload, p.Table, 0, topic, "payload of %d bytes exceeds %d", len(payload), tablebus.MaxPayload)
	}
	switch p.Rest {
	case "public/keyring":
		return c.keyring(p.Table, topic, payload, now, out)
	case "public/status":
		if len(payload) == 0 {
			return out // a cleared retained status
		}
		if c.kr == nil {
			return c.hold(topic, payload, p.Table, now, out)
		}
		return c.status(p.Table, topic, payload, now, out)
	case string(c.o.Feed) + "/events":
		if c.kr == nil {
			return c.hold(topic, payload, p.Table, now, out)
		}
		return c.event(p.Table, topic, payload, now, out)
	case "ack/" + c.o.ID:
		if c.o.Resume {
			return c.resume(p.Table, topic, payload, now, out)
		}
	}
	return c.alarm(out, now, AlarmTopic, p.Table, 0, topic, "a message on a topic this consumer does not follow")
}

func (c *Consumer) hold(topic string, payload []byte, table string, now time.Time, out []Output) []Output {
	if len(c.held) >= c.o.MaxPending {
		return c.alarm(out, now, AlarmNoKeyring, table, 0, topic, "no keyring has arrived; %d messages held, this one dropped", len(c.held))
	}
	c.held = append(c.held, held{topic: topic, payload: slices.Clone(payload)})
	return out
}

func (c *Consumer) keyring(table, topic string, payload []byte, now time.Time, out []Output) []Output {
	if len(payload) == 0 {
		return out
	}
	kr, err := tablebus.ParseKeyring(payload, c.root)
	if err != nil {
		return c.alarm(out, now, AlarmKeyring, table, 0, topic, "keyring refused: %v", err)
	}
	switch {
	case c.kr == nil:
		if c.root == nil {
			c.root, _ = decodePub(kr.Root)
			c.log.Warn("no root key pinned: trusting the root of the first keyring received (development only; give the root's public key in production)",
				"root", kr.RootID(), "topic", topic)
		}
	case kr.Version < c.kr.Version:
		return out // an older keyring retained on another table's topic
	case kr.Version == c.kr.Version:
		if string(kr.Raw()) != string(c.kr.Raw()) {
			return c.alarm(out, now, AlarmKeyring, table, 0, topic, "two different keyrings with version %d", kr.Version)
		}
		return out
	}
	c.kr = kr
	c.log.Info("keyring in use", "keyring", kr.String(), "from", topic)
	hs := c.held
	c.held = nil
	for _, h := range hs {
		out = c.receive(h.topic, h.payload, now, out)
	}
	return out
}

func decodePub(s string) (ed25519.PublicKey, error) {
	b, err := decodeB64(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, errors.New("consumer: not a public key")
	}
	return b, nil
}

// openAlarm names the alarm for an OpenEvent or OpenStatus error.
func openAlarm(err error) string {
	switch {
	case errors.Is(err, tablebus.ErrUnsigned), errors.Is(err, tablebus.ErrBadSignature):
		return AlarmForged
	case errors.Is(err, tablebus.ErrUnknownKey):
		return AlarmUnknownKey
	case errors.Is(err, tablebus.ErrRevokedKey):
		return AlarmRevokedKey
	case errors.Is(err, tablebus.ErrKeyNotValid):
		return AlarmKeyNotValid
	}
	return AlarmBadPayload
}

func (c *Consumer) status(table, topic string, payload []byte, now time.Time, out []Output) []Output {
	st, err := tablebus.OpenStatus(c.kr, topic, payload)
	if err != nil {
		return c.alarm(out, now, openAlarm(err), table, 0, topic, "status refused: %v", err)
	}
	t := c.table(table)
	if t.haveStatus && st.Before(t.status) {
		return out // a will overtaken by a rebirth: stale
	}
	if t.haveStatus && st.Session == t.status.Session && st.Conn == t.status.Conn && st.Online && !t.status.Online {
		return out // the birth of a connection whose death we already hold
	}
	t.status, t.haveStatus = st, true
	if t.started && st.Seq > t.tailWant {
		t.tailWant = st.Seq
		c.openGap(t, now)
	}
	s := t.state()
	return append(out, Output{State: &s})
}

// resume starts table after the consumer's own retained acknowledgement (Options.Resume). A
// table already started ignores it: it is this consumer's acknowledgement coming back, or
// the table started from From or from an event that came first.
func (c *Consumer) resume(table, topic string, payload []byte, now time.Time, out []Output) []Output {
	if len(payload) == 0 {
		return out // a cleared retained acknowledgement
	}
	if t := c.tables[table]; t != nil && t.started {
		return out
	}
	a, err := tablebus.DecodeAck(topic, payload)
	if err != nil {
		return c.alarm(out, now, AlarmBadPayload, table, 0, topic, "acknowledgement refused: %v", err)
	}
	t := c.table(table)
	t.started, t.highest, t.committed, t.ackSent = true, a.Seq, a.Seq, a.Seq
	c.log.Info("resuming after this consumer's acknowledgement", "table", table, "seq", a.Seq)
	if t.haveStatus && t.status.Seq > t.tailWant {
		t.tailWant = t.status.Seq
		c.openGap(t, now)
	}
	return out
}

func (c *Consumer) openGap(t *table, now time.Time) {
	if t.want() > t.highest && t.gapSince.IsZero() {
		t.gapSince, t.nextReplay, t.retry, t.gapAlarmed = now, now.Add(c.o.ReorderTimeout), c.o.ReplayRetry, false
	}
}

func (t *table) recentHash(seq uint64) (tablebus.Hash, bool) {
	r := &t.recent[seq%recentLen]
	return r.hash, r.seq == seq
}

func (c *Consumer) event(table, topic string, payload []byte, now time.Time, out []Output) []Output {
	op, err := tablebus.OpenEvent(c.kr, topic, payload)
	if err != nil {
		return c.alarm(out, now, openAlarm(err), table, 0, topic, "event refused: %v", err)
	}
	e := op.Event
	t := c.table(table)
	h := tablebus.HashOf(payload)
	if e.TS.After(now.Add(c.o.FutureSkew)) {
		out = c.alarm(out, now, AlarmFuture, table, e.Seq, topic, "event %d is dated %s, %v ahead of this clock",
			e.Seq, e.TS.Format(time.RFC3339Nano), e.TS.Sub(now).Round(time.Millisecond))
	}
	if t.started && e.Seq <= t.highest {
		if old, ok := t.recentHash(e.Seq); ok && old != h {
			return c.alarm(out, now, AlarmEquivocation, table, e.Seq, topic,
				"event %d received again with different bytes, both signed by %s: the first was delivered", e.Seq, op.Seal.KeyID)
		}
		t.stats.Duplicates++
		t.reack = true
		return out
	}
	if p, ok := t.pending[e.Seq]; ok {
		if p.hash != h {
			return c.alarm(out, now, AlarmEquivocation, table, e.Seq, topic,
				"event %d received twice with different bytes, both signed by %s", e.Seq, op.Seal.KeyID)
		}
		t.stats.Duplicates++
		return out
	}
	if !t.started {
		t.started, t.highest, t.committed, t.ackSent = true, e.Seq-1, e.Seq-1, e.Seq-1
		if t.haveStatus && t.status.Seq > t.tailWant {
			t.tailWant = t.status.Seq
		}
	}
	pe := pending{op: op, topic: topic, payload: slices.Clone(payload), hash: h}
	if e.Seq != t.highest+1 {
		if len(t.pending) >= c.o.MaxPending {
			far := t.maxPend
			if e.Seq > far {
				return c.alarm(out, now, AlarmOverflow, table, e.Seq, topic, "%d events held out of order; event %d dropped until replayed", len(t.pending), e.Seq)
			}
			t.dropPending(far)
		}
		t.pending[e.Seq] = pe
		t.maxPend = max(t.maxPend, e.Seq)
		c.openGap(t, now)
		return out
	}
	out = c.deliver(t, pe, now, out)
	for {
		p, ok := t.pending[t.highest+1]
		if !ok {
			break
		}
		t.dropPending(t.highest + 1)
		before := t.highest
		out = c.deliver(t, p, now, out)
		if t.highest == before {
			break // refused: the rest waits for a replay
		}
	}
	if t.want() <= t.highest {
		t.gapSince = time.Time{}
		if t.tailWant < t.highest {
			t.tailWant = t.highest
		}
	} else if len(t.pending) > 0 {
		t.gapSince = time.Time{}
		c.openGap(t, now)
	}
	return out
}

// deliver hands over the next event after checking the chain.
func (c *Consumer) deliver(t *table, p pending, now time.Time, out []Output) []Output {
	seq := p.op.Event.Seq
	if t.haveLast && p.op.Seal.Prev != t.lastHash {
		return c.alarm(out, now, AlarmChain, t.id, seq, p.topic,
			"event %d names previous hash %s, but event %d's hash is %s: not delivered", seq, p.op.Seal.Prev, seq-1, t.lastHash)
	}
	t.highest, t.lastHash, t.haveLast = seq, p.hash, true
	r := &t.recent[seq%recentLen]
	r.seq, r.hash = seq, p.hash
	t.stats.Delivered++
	return append(out, Output{Delivery: &Delivery{Table: t.id, Seq: seq, Event: p.op.Event, Topic: p.topic,
		Payload: p.payload, KeyID: p.op.Seal.KeyID, Hash: p.hash}})
}

// FinalAcks returns the acknowledgements of what was committed and not yet acknowledged,
// whatever AckEvery says: what a consumer that stops publishes last.
func (c *Consumer) FinalAcks(now time.Time) []Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.o.Ack == AckNone {
		return nil
	}
	var out []Output
	ids := make([]string, 0, len(c.tables))
	for id := range c.tables {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if t := c.tables[id]; t.started && t.committed > t.ackSent {
			out = append(out, Output{Ack: &tablebus.Ack{V: tablebus.SchemaVersion, Table: id, Consumer: c.o.ID, Seq: t.committed, TS: now.UTC()}})
			t.ackSent = t.committed
		}
	}
	return out
}

// Tick runs the consumer's timers at now: replay requests for open gaps, gap alarms, and the
// acknowledgements due.
func (c *Consumer) Tick(now time.Time) []Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Output
	ids := make([]string, 0, len(c.tables))
	for id := range c.tables {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t := c.tables[id]
		if !t.gapSince.IsZero() && t.want() > t.highest {
			if !now.Before(t.nextReplay) {
				to := t.tailWant
				if len(t.pending) > 0 {
					lo := uint64(0)
					for s := range t.pending {
						if lo == 0 || s < lo {
							lo = s
						}
					}
					to = lo - 1
				}
				if to < t.highest+1 {
					to = t.highest + 1
				}
				out = append(out, Output{Replay: &tablebus.ReplayRequest{V: tablebus.SchemaVersion, Table: id,
					Consumer: c.o.ID, From: t.highest + 1, To: to, TS: now.UTC()}})
				t.stats.Replays++
				t.nextReplay = now.Add(t.retry)
				t.retry = min(2*t.retry, 8*c.o.ReplayRetry)
			}
			if !t.gapAlarmed && now.Sub(t.gapSince) >= c.o.GapAlarm {
				t.gapAlarmed = true
				out = c.alarm(out, now, AlarmGap, id, t.highest+1, "",
					"events %d to %d still missing after %v of replay requests", t.highest+1, t.want(), now.Sub(t.gapSince).Round(time.Second))
			}
		}
		if c.o.Ack != AckNone && t.started && (t.committed > t.ackSent || t.reack) && !now.Before(t.ackAt) {
			out = append(out, Output{Ack: &tablebus.Ack{V: tablebus.SchemaVersion, Table: id, Consumer: c.o.ID, Seq: t.committed, TS: now.UTC()}})
			t.ackSent, t.ackAt, t.reack = t.committed, now.Add(c.o.AckEvery), false
		}
	}
	return out
}
