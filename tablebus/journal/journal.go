// Package journal is the table's durable event journal: every event is written to SQLite (WAL,
// synchronous=FULL, so each append is on disk when Append returns) before it is published. The
// journal gives the daemon its next sequence number after a restart, lets a consumer's gap be
// replayed, and keeps every shoe for `sabot replay`.
//
// The journal belongs to one table: opening it for another table is an error, and it is never
// rewritten: events are only appended.
//
// SQLite reads a journal whose write-ahead log was cut short, damaged or deleted as a shorter
// journal, without a word, and its next write drops what it could not read: a daemon started
// on it would give other events the numbers consumers already hold. So the daemon keeps a
// high-water mark beside the journal (HighWater, advanced before each publish), and before it
// opens the journal for writing, CheckStart compares the journal, read without changing any of
// its files, with the mark and with what the broker and the consumers hold; a journal behind
// any of them is refused. AcceptLoss goes on past a loss the operator accepts, reusing no
// number.
package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the SQLite driver, pure Go

	"github.com/sabot-tables/sabot/tablebus"
)

// schemaVersion is the journal's own layout version, kept in its meta table. Version 2 added
// the sealed wire payloads (secure_wire, public_wire); a version 1 journal is upgraded in place
// when opened for writing, its old events keeping no wire payload (their wire form is their body).
const schemaVersion = 2

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
	seq    INTEGER PRIMARY KEY,
	type   TEXT NOT NULL,
	shoe   TEXT NOT NULL,
	round  INTEGER NOT NULL,
	ts     TEXT NOT NULL,
	secure BLOB NOT NULL,
	public BLOB NOT NULL,
	secure_wire BLOB,
	public_wire BLOB
);
CREATE INDEX IF NOT EXISTS events_shoe ON events (shoe, round);
CREATE INDEX IF NOT EXISTS events_type ON events (type);
CREATE TABLE IF NOT EXISTS steps (
	first_seq INTEGER PRIMARY KEY,
	last_seq  INTEGER NOT NULL,
	input     BLOB
);
`

// Journal is an open journal. Its methods are safe for concurrent use.
type Journal struct {
	db    *sql.DB
	path  string
	table string
	mu    sync.Mutex    // serialises Append
	next  atomic.Uint64 // the next seq

	sealer     Sealer
	prevSecure tablebus.Hash // the hash of the last secure wire payload: the next one's prev
	prevPublic tablebus.Hash
	wireOnce   sync.Once
	hasWire    bool

	sealNanos, commitNanos, appends atomic.Int64

	head    atomic.Pointer[Mark] // the last event journaled (its Session unset)
	session atomic.Uint64        // the session counter as last read or set
	hw      atomic.Pointer[HighWater]
	hwMu    sync.Mutex // serialises advancing the high-water mark
}

// Sealer seals an event body into its wire payload (a *tablebus.Signer).
type Sealer interface {
	SealChained(d tablebus.Domain, topic string, prev tablebus.Hash, body []byte) ([]byte, error)
}

// SetSealer makes every event appended from now on sealed, on each feed, chained to the
// previous payload of that feed. Call it before the first Append.
func (j *Journal) SetSealer(s Sealer) {
	j.mu.Lock()
	j.sealer = s
	j.mu.Unlock()
}

// Timing is the time the journal spent, summed over every append since it was opened.
type Timing struct {
	Appends int64         // AppendStep calls
	Seal    time.Duration // signing the payloads
	Commit  time.Duration // the SQLite commit: the fsync of the WAL
}

// Timing returns the time spent sealing and committing so far.
func (j *Journal) Timing() Timing {
	return Timing{Appends: j.appends.Load(), Seal: time.Duration(j.sealNanos.Load()), Commit: time.Duration(j.commitNanos.Load())}
}

func (j *Journal) wire() bool {
	j.wireOnce.Do(func() {
		rows, err := j.db.Query("SELECT name FROM pragma_table_info('events')")
		if err != nil {
			return
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if rows.Scan(&n) == nil && n == "secure_wire" {
				j.hasWire = true
			}
		}
	})
	return j.hasWire
}

// ErrOtherTable is returned by Open for a journal that belongs to another table.
var ErrOtherTable = errors.New("journal: the journal belongs to another table")

// Open opens (creating if needed) the journal at path for table. A journal of another table, of
// an unknown layout version, or one that fails SQLite's integrity check is an error, and the file
// is left as it is.
func Open(path, table string) (*Journal, error) {
	if err := tablebus.ValidTable(table); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	j := &Journal{db: db, path: path, table: table}
	if err := j.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal: %s: %w", path, err)
	}
	return j, nil
}

func (j *Journal) init() error {
	var res string
	if err := j.db.QueryRow("PRAGMA quick_check").Scan(&res); err != nil {
		return fmt.Errorf("not a readable journal: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("damaged journal: integrity check says %q", res)
	}
	if _, err := j.db.Exec(schema); err != nil {
		return fmt.Errorf("creating the schema: %w", err)
	}
	if !j.wire() {
		// A version 1 journal: add the wire payloads.
		for _, c := range []string{"secure_wire", "public_wire"} {
			if _, err := j.db.Exec("ALTER TABLE events ADD COLUMN " + c + " BLOB"); err != nil {
				return fmt.Errorf("upgrading the journal: %w", err)
			}
		}
		j.hasWire = true
	}
	tx, err := j.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	meta := map[string]string{}
	rows, err := tx.Query("SELECT key, value FROM meta")
	if err != nil {
		return err
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return err
		}
		meta[k] = v
	}
	rows.Close()
	if len(meta) == 0 {
		for k, v := range map[string]string{"table": j.table, "version": strconv.Itoa(schemaVersion), "session": "0"} {
			if _, err := tx.Exec("INSERT INTO meta (key, value) VALUES (?, ?)", k, v); err != nil {
				return err
			}
		}
	} else {
		if meta["table"] != j.table {
			return fmt.Errorf("%w: it is table %q's, not %q's", ErrOtherTable, meta["table"], j.table)
		}
		switch meta["version"] {
		case strconv.Itoa(schemaVersion):
		case "1":
			if _, err := tx.Exec("UPDATE meta SET value = ? WHERE key = 'version'", strconv.Itoa(schemaVersion)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("journal layout version %q, this build reads %d", meta["version"], schemaVersion)
		}
	}
	var last sql.NullInt64
	if err := tx.QueryRow("SELECT MAX(seq) FROM events").Scan(&last); err != nil {
		return err
	}
	j.next.Store(uint64(last.Int64) + 1)
	head := &Mark{Table: j.table, Seq: uint64(last.Int64)}
	if last.Valid {
		var sec, pub, secW, pubW []byte
		if err := tx.QueryRow("SELECT secure, public, secure_wire, public_wire FROM events WHERE seq = ?", last.Int64).Scan(&sec, &pub, &secW, &pubW); err != nil {
			return err
		}
		j.prevSecure, j.prevPublic = tablebus.HashOf(orBody(secW, sec)), tablebus.HashOf(orBody(pubW, pub))
		head.Secure, head.Public = j.prevSecure, j.prevPublic
		var round sql.NullInt64
		if err := tx.QueryRow("SELECT MAX(round) FROM events").Scan(&round); err != nil {
			return err
		}
		head.Round = uint64(round.Int64)
		err := tx.QueryRow("SELECT shoe FROM events WHERE shoe != '' ORDER BY seq DESC LIMIT 1").Scan(&head.Shoe)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	j.head.Store(head)
	var session string
	if err := tx.QueryRow("SELECT value FROM meta WHERE key = 'session'").Scan(&session); err != nil {
		return fmt.Errorf("reading the session: %w", err)
	}
	n, err := strconv.ParseUint(session, 10, 64)
	if err != nil {
		return fmt.Errorf("damaged session counter %q", session)
	}
	j.session.Store(n)
	return tx.Commit()
}

// orBody returns the wire payload, or the body for an event journaled without one.
func orBody(wire, body []byte) []byte {
	if wire == nil {
		return body
	}
	return wire
}

// Path returns the journal's file.
func (j *Journal) Path() string { return j.path }

// String describes the journal.
func (j *Journal) String() string { return fmt.Sprintf("journal %s (table %s)", j.path, j.table) }

// Table returns the journal's table id.
func (j *Journal) Table() string { return j.table }

// NextSeq returns the sequence number the next event must carry.
func (j *Journal) NextSeq() uint64 { return j.next.Load() }

// NewSession increments and returns the session counter: once per daemon start.
func (j *Journal) NewSession() (uint64, error) {
	tx, err := j.db.Begin()
	if err != nil {
		return 0, fmt.Errorf("journal: %w", err)
	}
	defer tx.Rollback()
	var s string
	if err := tx.QueryRow("SELECT value FROM meta WHERE key = 'session'").Scan(&s); err != nil {
		return 0, fmt.Errorf("journal: reading the session: %w", err)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("journal: damaged session counter %q", s)
	}
	n++
	if _, err := tx.Exec("UPDATE meta SET value = ? WHERE key = 'session'", strconv.FormatUint(n, 10)); err != nil {
		return 0, fmt.Errorf("journal: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("journal: %w", err)
	}
	j.session.Store(n)
	// The new session is in the high-water mark before anything of it is published.
	if err := j.advance(); err != nil {
		return 0, err
	}
	return n, nil
}

// Record is one journaled event with its exact payloads.
type Record struct {
	Seq    uint64
	Type   tablebus.Type
	Shoe   string
	Round  uint64
	TS     time.Time
	Secure []byte // the event's body (Event.Marshal): what a restarted machine replays
	Public []byte // the public feed's body (Event.Public().Marshal)
	// The exact payloads published on each feed: the body sealed and chained (seal.go), or the
	// body itself for an event journaled without a sealer.
	SecureWire []byte
	PublicWire []byte
}

// Append writes one event durably (a step without an input).
func (j *Journal) Append(e tablebus.Event) (Record, error) {
	rs, err := j.AppendStep(nil, []tablebus.Event{e})
	if err != nil {
		return Record{}, err
	}
	return rs[0], nil
}

// AppendStep writes, in one transaction, the events one input produced and the input itself
// (nil for events that no input produced, such as the guidance at start). The events must carry
// the next sequence numbers and the journal's table. When AppendStep returns, they are on disk.
func (j *Journal) AppendStep(input []byte, evs []tablebus.Event) ([]Record, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	next := j.next.Load()
	recs := make([]Record, len(evs))
	for i, e := range evs {
		if e.Table != j.table {
			return nil, fmt.Errorf("%w: event for table %q", ErrOtherTable, e.Table)
		}
		if e.Seq != next+uint64(i) {
			return nil, fmt.Errorf("journal: event seq %d, the next is %d", e.Seq, next+uint64(i))
		}
		sec, err := e.Marshal()
		if err != nil {
			return nil, err
		}
		pub, err := e.Public().Marshal()
		if err != nil {
			return nil, err
		}
		recs[i] = Record{Seq: e.Seq, Type: e.Type, Shoe: e.Shoe, Round: e.Round, TS: e.TS, Secure: sec, Public: pub, SecureWire: sec, PublicWire: pub}
	}
	// Seal each feed's payloads in order, chained to the last journaled payload of the feed.
	t0 := time.Now()
	prevS, prevP := j.prevSecure, j.prevPublic
	topics := tablebus.Topics{Table: j.table}
	for i := range recs {
		r := &recs[i]
		if j.sealer != nil {
			var err error
			if r.SecureWire, err = j.sealer.SealChained(tablebus.DomainEvent, topics.Events(tablebus.Secure), prevS, r.Secure); err != nil {
				return nil, fmt.Errorf("journal: sealing event %d: %w", r.Seq, err)
			}
			if r.PublicWire, err = j.sealer.SealChained(tablebus.DomainEvent, topics.Events(tablebus.Public), prevP, r.Public); err != nil {
				return nil, fmt.Errorf("journal: sealing event %d: %w", r.Seq, err)
			}
		}
		prevS, prevP = tablebus.HashOf(r.SecureWire), tablebus.HashOf(r.PublicWire)
	}
	t1 := time.Now()
	tx, err := j.db.Begin()
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer tx.Rollback()
	for _, r := range recs {
		var secW, pubW []byte
		if j.sealer != nil {
			secW, pubW = r.SecureWire, r.PublicWire
		}
		_, err = tx.Exec("INSERT INTO events (seq, type, shoe, round, ts, secure, public, secure_wire, public_wire) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			int64(r.Seq), string(r.Type), r.Shoe, int64(r.Round), r.TS.UTC().Format(time.RFC3339Nano), r.Secure, r.Public, secW, pubW)
		if err != nil {
			return nil, fmt.Errorf("journal: appending event %d: %w", r.Seq, err)
		}
	}
	if _, err := tx.Exec("INSERT INTO steps (first_seq, last_seq, input) VALUES (?, ?, ?)",
		int64(recs[0].Seq), int64(recs[len(recs)-1].Seq), input); err != nil {
		return nil, fmt.Errorf("journal: appending step %d: %w", recs[0].Seq, err)
	}
	t2 := time.Now()
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("journal: commit: %w", err)
	}
	j.sealNanos.Add(int64(t1.Sub(t0)))
	j.commitNanos.Add(int64(time.Since(t2)))
	j.appends.Add(1)
	j.prevSecure, j.prevPublic = prevS, prevP
	head := *j.head.Load()
	for _, r := range recs {
		head.Round = max(head.Round, r.Round)
		if r.Shoe != "" {
			head.Shoe = r.Shoe
		}
	}
	head.Seq, head.Secure, head.Public = recs[len(recs)-1].Seq, prevS, prevP
	j.head.Store(&head)
	j.next.Store(next + uint64(len(recs)))
	return recs, nil
}

// Step is one journaled input and the events it produced.
type Step struct {
	Input  []byte // nil: events that no input produced
	Events []Record
}

// OpenShoe returns the steps of the last shoe if it has not ended (from the step that loaded
// it), with the number of shoes and the last round number before it; a restarted daemon
// replays them to stand where it stood. With no shoe open it returns no steps and the counters
// of the whole journal.
func (j *Journal) OpenShoe(ctx context.Context) (steps []Step, shoesBefore int, roundBefore uint64, err error) {
	var loaded, ended sql.NullInt64
	if err := j.db.QueryRowContext(ctx, "SELECT MAX(seq) FROM events WHERE type = ?", string(tablebus.ShoeLoaded)).Scan(&loaded); err != nil {
		return nil, 0, 0, fmt.Errorf("journal: %w", err)
	}
	if err := j.db.QueryRowContext(ctx, "SELECT MAX(seq) FROM events WHERE type = ?", string(tablebus.ShoeEnded)).Scan(&ended); err != nil {
		return nil, 0, 0, fmt.Errorf("journal: %w", err)
	}
	abandon, err := metaUint(j.db, "abandon") // a shoe open when the operator accepted a loss (AcceptLoss)
	if err != nil {
		return nil, 0, 0, err
	}
	if !loaded.Valid || (ended.Valid && ended.Int64 > loaded.Int64) || uint64(loaded.Int64) < abandon {
		n, r, err := j.Counters(ctx)
		return nil, n, r, err
	}
	from := loaded.Int64
	if shoesBefore, roundBefore, err = j.counters(ctx, from); err != nil {
		return nil, 0, 0, err
	}
	steps, err = j.steps(ctx, from, 1<<62)
	if err != nil {
		return nil, 0, 0, err
	}
	if len(steps) == 0 || steps[0].Events[0].Seq != uint64(from) {
		return nil, 0, 0, fmt.Errorf("journal: the step that loaded the shoe at event %d is missing", from)
	}
	return steps, shoesBefore, roundBefore, nil
}

// Range calls fn for every event with from ≤ seq ≤ to, in order, stopping at fn's first error.
func (j *Journal) Range(ctx context.Context, from, to uint64, fn func(Record) error) error {
	q := "SELECT seq, type, shoe, round, ts, secure, public, NULL, NULL FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq"
	if j.wire() {
		q = "SELECT seq, type, shoe, round, ts, secure, public, secure_wire, public_wire FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq"
	}
	rows, err := j.db.QueryContext(ctx, q, int64(from), int64(min(to, 1<<62)))
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Record
		var seq, round int64
		var typ, ts string
		if err := rows.Scan(&seq, &typ, &r.Shoe, &round, &ts, &r.Secure, &r.Public, &r.SecureWire, &r.PublicWire); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		r.SecureWire, r.PublicWire = orBody(r.SecureWire, r.Secure), orBody(r.PublicWire, r.Public)
		r.Seq, r.Round, r.Type = uint64(seq), uint64(round), tablebus.Type(typ)
		if r.TS, err = time.Parse(time.RFC3339Nano, ts); err != nil {
			return fmt.Errorf("journal: event %d: bad timestamp %q", seq, ts)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Shoes lists the shoe ids in the journal, oldest first.
func (j *Journal) Shoes(ctx context.Context) ([]string, error) {
	rows, err := j.db.QueryContext(ctx, "SELECT shoe FROM events WHERE shoe != '' GROUP BY shoe ORDER BY MIN(seq)")
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// ShoeRange returns the first and last seq of a shoe's events, or an error if the journal has none.
func (j *Journal) ShoeRange(ctx context.Context, shoe string) (first, last uint64, err error) {
	var a, b sql.NullInt64
	if err := j.db.QueryRowContext(ctx, "SELECT MIN(seq), MAX(seq) FROM events WHERE shoe = ?", shoe).Scan(&a, &b); err != nil {
		return 0, 0, fmt.Errorf("journal: %w", err)
	}
	if !a.Valid {
		return 0, 0, fmt.Errorf("journal: no shoe %q in %s", shoe, j.path)
	}
	return uint64(a.Int64), uint64(b.Int64), nil
}

// Counters returns how many shoes the journal holds and the highest round number in it: a
// restarted daemon numbers its next shoe and round after them.
// The shoe number is the highest of the shoes' count, their numbers (T1-000012: 12) and the
// floor a loss accepted set (AcceptLoss): numbers the lost events may have used are not used
// again.
func (j *Journal) Counters(ctx context.Context) (shoes int, lastRound uint64, err error) {
	return j.counters(ctx, 1<<62)
}

// counters returns Counters for the events before seq.
func (j *Journal) counters(ctx context.Context, before int64) (shoes int, lastRound uint64, err error) {
	var r sql.NullInt64
	if err := j.db.QueryRowContext(ctx, "SELECT MAX(round) FROM events WHERE seq < ?", before).Scan(&r); err != nil {
		return 0, 0, fmt.Errorf("journal: %w", err)
	}
	rows, err := j.db.QueryContext(ctx, "SELECT DISTINCT shoe FROM events WHERE shoe != '' AND seq < ?", before)
	if err != nil {
		return 0, 0, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	var top uint64
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return 0, 0, fmt.Errorf("journal: %w", err)
		}
		shoes++
		top = max(top, shoeNumber(id))
	}
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("journal: %w", err)
	}
	fs, err := metaUint(j.db, "floor.shoe")
	if err != nil {
		return 0, 0, err
	}
	fr, err := metaUint(j.db, "floor.round")
	if err != nil {
		return 0, 0, err
	}
	return int(max(uint64(shoes), top, fs)), max(uint64(r.Int64), fr), nil
}

// Mark returns the value of a named mark (0 if never set): the outbox's published sequence
// number, the consumers' acknowledgements ("ack.<consumer>"), an engine's resume point.
func (j *Journal) Mark(name string) (uint64, error) {
	var v string
	err := j.db.QueryRow("SELECT value FROM meta WHERE key = ?", "mark."+name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("journal: mark %s: %w", name, err)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("journal: damaged mark %s %q", name, v)
	}
	return n, nil
}

// SetMark sets a named mark, durably.
func (j *Journal) SetMark(name string, v uint64) error {
	_, err := j.db.Exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		"mark."+name, strconv.FormatUint(v, 10))
	if err != nil {
		return fmt.Errorf("journal: mark %s: %w", name, err)
	}
	return nil
}

// Marks returns every mark whose name starts with prefix, without the prefix.
func (j *Journal) Marks(prefix string) (map[string]uint64, error) {
	rows, err := j.db.Query("SELECT key, value FROM meta WHERE substr(key, 1, length(?1)) = ?1", "mark."+prefix)
	if err != nil {
		return nil, fmt.Errorf("journal: marks: %w", err)
	}
	defer rows.Close()
	out := map[string]uint64{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("journal: marks: %w", err)
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("journal: damaged mark %s %q", k, v)
		}
		out[k[len("mark."+prefix):]] = n
	}
	return out, rows.Err()
}

// Close closes the journal and its high-water mark.
func (j *Journal) Close() error {
	if h := j.hw.Load(); h != nil {
		h.Close()
	}
	return j.db.Close()
}

// Session returns the session counter: the daemon's current session once NewSession has run.
func (j *Journal) Session() uint64 { return j.session.Load() }

// head returns the mark of the last event journaled, in the current session.
func (j *Journal) headMark() Mark {
	m := *j.head.Load()
	m.Session = j.session.Load()
	return m
}

// KeepHighWater makes the journal keep its high-water mark (HighWaterPath): created from the
// journal when there is none, advanced with every new session (NewSession) and before every
// publish (Cover). The journal records that it keeps one, so that a mark deleted later is
// missed (CheckStart). A mark ahead of the journal is an error wrapping ErrBehind: CheckStart,
// run before the journal was opened for writing, says so in full and changes nothing.
func (j *Journal) KeepHighWater() error {
	head := j.headMark()
	path := HighWaterPath(j.path)
	h, err := OpenHighWater(path, head)
	if err != nil {
		return err
	}
	cur := h.Mark()
	switch {
	case cur.ahead(head):
		h.Close()
		return fmt.Errorf("%w: the high-water mark %s says #%d (session %d), the journal ends at #%d (session %d)", ErrBehind, path, cur.Seq, cur.Session, head.Seq, head.Session)
	case cur.Seq == head.Seq && cur.Seq > 0 && (cur.Secure != head.Secure || cur.Public != head.Public):
		h.Close()
		return fmt.Errorf("%w: event #%d is not the one the high-water mark %s records as published", ErrBehind, cur.Seq, path)
	}
	if err := h.Advance(head); err != nil {
		h.Close()
		return err
	}
	if _, err := j.db.Exec("INSERT INTO meta (key, value) VALUES ('hwm', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", filepath.Base(path)); err != nil {
		h.Close()
		return fmt.Errorf("journal: %w", err)
	}
	j.hw.Store(h)
	return nil
}

// Cover makes the high-water mark cover event seq before it is published: a mark below seq is
// advanced, durably, to the last event journaled, so that one advance covers every event
// journaled meanwhile. Without a kept mark it does nothing.
func (j *Journal) Cover(seq uint64) error {
	h := j.hw.Load()
	if h == nil || h.Mark().Seq >= seq {
		return nil
	}
	return j.advance()
}

// Covered returns the highest seq the high-water mark covers, or the last journaled without
// a kept mark.
func (j *Journal) Covered() uint64 {
	if h := j.hw.Load(); h != nil {
		return h.Mark().Seq
	}
	return j.NextSeq() - 1
}

// HighWater returns the kept high-water mark, or nil.
func (j *Journal) HighWater() *HighWater { return j.hw.Load() }

// advance moves the high-water mark on to the last event journaled and the current session.
func (j *Journal) advance() error {
	h := j.hw.Load()
	if h == nil {
		return nil
	}
	j.hwMu.Lock()
	defer j.hwMu.Unlock()
	m := j.headMark()
	if !m.ahead(h.Mark()) {
		return nil
	}
	return h.Advance(m)
}
