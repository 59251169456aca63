package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/sabot-tables/sabot/games/progressive"

	_ "modernc.org/sqlite" // the SQLite driver, pure Go
)

// ErrConflict is returned when a round is settled twice with different bets: the ledger holds
// the first and refuses the second.
var ErrConflict = errors.New("ledger: round already settled with different bets")

const schemaVersion = 1

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pools (
	pool    TEXT PRIMARY KEY,
	config  TEXT NOT NULL,  -- progressive.Config, JSON
	state   TEXT NOT NULL,  -- progressive.State, JSON
	updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
	table_id TEXT NOT NULL,
	round    TEXT NOT NULL,
	pool     TEXT NOT NULL,
	at       TEXT NOT NULL,
	request  TEXT NOT NULL,  -- sha256 of the round as given
	result   TEXT NOT NULL,  -- progressive.Result, JSON
	PRIMARY KEY (table_id, round)
);
CREATE TABLE IF NOT EXISTS bets (
	table_id TEXT NOT NULL,
	round    TEXT NOT NULL,
	seat     INTEGER NOT NULL,
	pool     TEXT NOT NULL,
	amount   INTEGER NOT NULL,
	PRIMARY KEY (table_id, round, seat)   -- one bet updates a pool once
);
CREATE TABLE IF NOT EXISTS entries (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	pool     TEXT NOT NULL,
	table_id TEXT NOT NULL,
	round    TEXT NOT NULL,
	seat     INTEGER NOT NULL,    -- 0: the round or the house
	kind     TEXT NOT NULL,       -- feed, commission, prize, carta-magica, jugador-afortunado, refill, draw, config
	account  TEXT NOT NULL,       -- main, a reserve, house
	amount   INTEGER NOT NULL,    -- cents into (+) or out of (-) the account
	detail   TEXT NOT NULL,
	at       TEXT NOT NULL
);
`

// Ledger is one progressive pool's durable state.
type Ledger struct {
	db   *sql.DB
	path string
	cfg  progressive.Config
	rng  io.Reader
}

// Open opens (creating if needed) the ledger at path for the pool cfg describes. A new pool
// starts at its base (progressive.Config.Start); an existing one keeps its state, and a changed
// configuration is stored and recorded as an entry. rng is where the random prizes are drawn
// from: nil for crypto/rand.Reader.
func Open(path string, cfg progressive.Config, rng io.Reader) (*Ledger, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	l := &Ledger{db: db, path: path, cfg: cfg, rng: rng}
	if err := l.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("ledger: %s: %w", path, err)
	}
	return l, nil
}

func (l *Ledger) init() error {
	var res string
	if err := l.db.QueryRow("PRAGMA quick_check").Scan(&res); err != nil {
		return fmt.Errorf("not a readable ledger: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("damaged ledger: integrity check says %q", res)
	}
	var mode string
	if err := l.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		return fmt.Errorf("journal mode %q, want wal: %v", mode, err)
	}
	if _, err := l.db.Exec(schema); err != nil {
		return fmt.Errorf("creating the schema: %w", err)
	}
	tx, err := l.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version string
	switch err := tx.QueryRow("SELECT value FROM meta WHERE key = 'version'").Scan(&version); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.Exec("INSERT INTO meta (key, value) VALUES ('version', ?)", fmt.Sprint(schemaVersion)); err != nil {
			return err
		}
	case err != nil:
		return err
	case version != fmt.Sprint(schemaVersion):
		return fmt.Errorf("layout version %s, this build reads %d", version, schemaVersion)
	}
	cfgJSON, err := json.Marshal(l.cfg)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	var stored string
	switch err := tx.QueryRow("SELECT config FROM pools WHERE pool = ?", l.cfg.Pool).Scan(&stored); {
	case errors.Is(err, sql.ErrNoRows):
		st, err := json.Marshal(l.cfg.Start())
		if err != nil {
			return err
		}
		if _, err := tx.Exec("INSERT INTO pools (pool, config, state, updated) VALUES (?, ?, ?, ?)", l.cfg.Pool, cfgJSON, st, now); err != nil {
			return err
		}
		if err := entry(tx, l.cfg.Pool, "", "", 0, "seed", "main", l.cfg.Base, "the house seeds the main pool with its base", now); err != nil {
			return err
		}
	case err != nil:
		return err
	case stored != string(cfgJSON):
		if _, err := tx.Exec("UPDATE pools SET config = ?, updated = ? WHERE pool = ?", cfgJSON, now, l.cfg.Pool); err != nil {
			return err
		}
		if err := entry(tx, l.cfg.Pool, "", "", 0, "config", "main", 0, "configuration changed from "+stored, now); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func entry(tx *sql.Tx, pool, table, round string, seat int, kind, account string, amount int64, detail, at string) error {
	_, err := tx.Exec(`INSERT INTO entries (pool, table_id, round, seat, kind, account, amount, detail, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, pool, table, round, seat, kind, account, amount, detail, at)
	return err
}

// Close closes the database.
func (l *Ledger) Close() error { return l.db.Close() }

// String names the ledger for logs.
func (l *Ledger) String() string {
	return fmt.Sprintf("progressive ledger %s (%s)", l.cfg.Pool, l.path)
}

// State returns the pool's state as last committed.
func (l *Ledger) State(ctx context.Context) (progressive.State, error) {
	var st progressive.State
	var s string
	if err := l.db.QueryRowContext(ctx, "SELECT state FROM pools WHERE pool = ?", l.cfg.Pool).Scan(&s); err != nil {
		return st, fmt.Errorf("ledger: pool %s: %w", l.cfg.Pool, err)
	}
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		return st, fmt.Errorf("ledger: pool %s: state: %w", l.cfg.Pool, err)
	}
	return st, nil
}

// Settle applies one table round to the pool, once (see the package comment), at time at. The
// round's random prize is drawn here: a Round that brings its own Draw is refused.
func (l *Ledger) Settle(ctx context.Context, r progressive.Round, at time.Time) (progressive.Result, error) {
	if r.Draw != nil {
		return progressive.Result{}, fmt.Errorf("%w: the ledger draws the random prizes itself", progressive.ErrRound)
	}
	if err := r.Check(); err != nil {
		return progressive.Result{}, err
	}
	req, err := json.Marshal(r)
	if err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: %w", err)
	}
	sum := sha256.Sum256(req)
	digest := hex.EncodeToString(sum[:])
	tx, err := l.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one writer at a time
	if err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: %w", err)
	}
	defer tx.Rollback()
	var prevDigest, prevResult, prevPool string
	switch err := tx.QueryRowContext(ctx, "SELECT request, result, pool FROM rounds WHERE table_id = ? AND round = ?", r.Table, r.Round).
		Scan(&prevDigest, &prevResult, &prevPool); {
	case err == nil:
		if prevDigest != digest || prevPool != l.cfg.Pool {
			return progressive.Result{}, fmt.Errorf("%w: table %s round %s", ErrConflict, r.Table, r.Round)
		}
		var res progressive.Result
		if err := json.Unmarshal([]byte(prevResult), &res); err != nil {
			return res, fmt.Errorf("ledger: recorded result of table %s round %s: %w", r.Table, r.Round, err)
		}
		return res, nil
	case !errors.Is(err, sql.ErrNoRows):
		return progressive.Result{}, fmt.Errorf("ledger: %w", err)
	}
	var stJSON string
	if err := tx.QueryRowContext(ctx, "SELECT state FROM pools WHERE pool = ?", l.cfg.Pool).Scan(&stJSON); err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: pool %s: %w", l.cfg.Pool, err)
	}
	var st progressive.State
	if err := json.Unmarshal([]byte(stJSON), &st); err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: pool %s: state: %w", l.cfg.Pool, err)
	}
	var seats []int
	for _, b := range r.Bets {
		if !b.Void {
			seats = append(seats, b.Seat)
		}
	}
	if r.Draw, err = l.cfg.Draw(l.rng, seats); err != nil {
		return progressive.Result{}, err
	}
	next, res, err := l.cfg.Settle(st, r)
	if err != nil {
		return progressive.Result{}, err
	}
	now := at.UTC().Format(time.RFC3339Nano)
	pool := l.cfg.Pool
	for _, b := range r.Bets {
		if _, err := tx.ExecContext(ctx, "INSERT INTO bets (table_id, round, seat, pool, amount) VALUES (?, ?, ?, ?, ?)",
			r.Table, r.Round, b.Seat, pool, b.Amount); err != nil {
			return progressive.Result{}, fmt.Errorf("ledger: table %s round %s seat %d: %w", r.Table, r.Round, b.Seat, err)
		}
	}
	var errs []error
	add := func(seat int, kind, account string, amount int64, detail string) {
		if amount != 0 || kind == "draw" {
			errs = append(errs, entry(tx, pool, r.Table, r.Round, seat, kind, account, amount, detail, now))
		}
	}
	for _, f := range res.Feeds {
		if f.Returned {
			continue
		}
		add(f.Seat, "feed", "main", f.Main, fmt.Sprintf("bet %d", f.Amount))
		for _, rv := range l.cfg.Reserves {
			add(f.Seat, "feed", rv.Name, f.Reserves[rv.Name], fmt.Sprintf("bet %d", f.Amount))
		}
		add(f.Seat, "commission", "house", f.Commission, fmt.Sprintf("bet %d", f.Amount))
	}
	if d := res.Draw; d != nil {
		add(d.Seat, "draw", "main", 0, d.String())
	}
	for _, p := range res.Payouts {
		kind := "prize"
		detail := p.Category.String() + " " + p.Prize.String()
		if p.Kind != "hand" {
			kind, detail = p.Kind, res.Draw.String()
		}
		for _, src := range p.From {
			add(p.Seat, kind, src.Pool, -src.Amount, detail)
		}
	}
	for _, src := range res.Refill {
		add(0, "refill", src.Pool, -src.Amount, "main pool back to its base")
		add(0, "refill", "main", src.Amount, "from "+src.Pool)
	}
	if err := errors.Join(errs...); err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: %w", err)
	}
	resJSON, err := json.Marshal(res)
	if err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: %w", err)
	}
	nextJSON, err := json.Marshal(next)
	if err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO rounds (table_id, round, pool, at, request, result) VALUES (?, ?, ?, ?, ?, ?)",
		r.Table, r.Round, pool, now, digest, resJSON); err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE pools SET state = ?, updated = ? WHERE pool = ?", nextJSON, now, pool); err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return progressive.Result{}, fmt.Errorf("ledger: commit: %w", err)
	}
	return res, nil
}

// Round returns the recorded result of a table's round, and whether there is one.
func (l *Ledger) Round(ctx context.Context, table, round string) (progressive.Result, bool, error) {
	var s string
	var res progressive.Result
	switch err := l.db.QueryRowContext(ctx, "SELECT result FROM rounds WHERE table_id = ? AND round = ?", table, round).Scan(&s); {
	case errors.Is(err, sql.ErrNoRows):
		return res, false, nil
	case err != nil:
		return res, false, fmt.Errorf("ledger: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	if err := dec.Decode(&res); err != nil {
		return res, false, fmt.Errorf("ledger: recorded result of table %s round %s: %w", table, round, err)
	}
	return res, true, nil
}

// Balance returns the sum of the entries of one account ("main", a reserve, "house"): for main and
// the reserves it equals what the state says they hold, which Verify checks.
func (l *Ledger) Balance(ctx context.Context, account string) (int64, error) {
	var n sql.NullInt64
	if err := l.db.QueryRowContext(ctx, "SELECT SUM(amount) FROM entries WHERE pool = ? AND account = ?", l.cfg.Pool, account).Scan(&n); err != nil {
		return 0, fmt.Errorf("ledger: %w", err)
	}
	return n.Int64, nil
}

// Verify checks that the entries add up to the state: the main pool and each reserve.
func (l *Ledger) Verify(ctx context.Context) error {
	st, err := l.State(ctx)
	if err != nil {
		return err
	}
	check := func(account string, want int64) error {
		got, err := l.Balance(ctx, account)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("ledger: pool %s: the %s entries add up to %d, the state says %d", l.cfg.Pool, account, got, want)
		}
		return nil
	}
	if err := check("main", st.Main); err != nil {
		return err
	}
	for name, v := range st.Reserves {
		if err := check(name, v); err != nil {
			return err
		}
	}
	return nil
}
