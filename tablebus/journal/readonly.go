package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/sabot-tables/sabot/tablebus"
)

// OpenReadOnly opens an existing journal without the right to change it (`sabot replay`, a
// surveillance analyst's copy): SQLite's read-only mode, no schema created, nothing written.
// The table is the journal's own.
func OpenReadOnly(path string) (*Journal, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	q := url.Values{}
	q.Add("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	j := &Journal{db: db, path: path}
	var res string
	if err := db.QueryRow("PRAGMA quick_check").Scan(&res); err != nil || res != "ok" {
		db.Close()
		if err == nil {
			err = fmt.Errorf("integrity check says %q", res)
		}
		return nil, fmt.Errorf("journal: %s: not a readable journal: %w", path, err)
	}
	if err := db.QueryRow("SELECT value FROM meta WHERE key = 'table'").Scan(&j.table); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal: %s: no table in its meta data: %w", path, err)
	}
	var last sql.NullInt64
	if err := db.QueryRow("SELECT MAX(seq) FROM events").Scan(&last); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal: %s: %w", path, err)
	}
	j.next.Store(uint64(last.Int64) + 1)
	return j, nil
}

// ShoeSteps returns the steps of one shoe, from the step that loaded it to the last step with
// its events, for a read-only replay of the shoe (shoe.Replay checks every event again).
func (j *Journal) ShoeSteps(ctx context.Context, shoe string) ([]Step, error) {
	first, last, err := j.ShoeRange(ctx, shoe)
	if err != nil {
		return nil, err
	}
	return j.steps(ctx, int64(first), int64(last))
}

// steps returns the steps that start between first and last, with all their events.
func (j *Journal) steps(ctx context.Context, first, last int64) ([]Step, error) {
	rows, err := j.db.QueryContext(ctx, "SELECT first_seq, last_seq, input FROM steps WHERE first_seq >= ? AND first_seq <= ? ORDER BY first_seq", first, last)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	type span struct {
		first, last int64
		input       []byte
	}
	var spans []span
	for rows.Next() {
		var s span
		if err := rows.Scan(&s.first, &s.last, &s.input); err != nil {
			rows.Close()
			return nil, fmt.Errorf("journal: %w", err)
		}
		spans = append(spans, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var steps []Step
	for _, s := range spans {
		st := Step{Input: s.input}
		if err := j.Range(ctx, uint64(s.first), uint64(s.last), func(r Record) error {
			st.Events = append(st.Events, r)
			return nil
		}); err != nil {
			return nil, err
		}
		if len(st.Events) != int(s.last-s.first+1) {
			return nil, fmt.Errorf("journal: events %d to %d of a step are missing", s.first, s.last)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// EngineState returns the game state (tablebus.Event.EngineState) of the last event at or
// before seq that carries one (a shoe's loading or end, a table action), or nil: what a restarted
// daemon gives back to its engine before replaying an open shoe.
func (j *Journal) EngineState(ctx context.Context, seq uint64) (json.RawMessage, error) {
	rows, err := j.db.QueryContext(ctx, "SELECT secure FROM events WHERE seq <= ? AND type IN (?, ?, ?) ORDER BY seq DESC",
		int64(min(seq, 1<<62)), string(tablebus.ShoeLoaded), string(tablebus.ShoeEnded), string(tablebus.TableAction))
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		var e struct {
			State json.RawMessage `json:"engine_state"`
		}
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("journal: a journaled event is not JSON: %w", err)
		}
		if len(e.State) > 0 {
			return e.State, nil
		}
	}
	return nil, rows.Err()
}

// LastOf returns the secure payload of the last event at or before seq whose type is one of
// types, or nil: the table's state kept across shoes (its limits, open or closed) that a
// restarted daemon gives back before replaying an open shoe.
func (j *Journal) LastOf(ctx context.Context, seq uint64, types ...tablebus.Type) ([]byte, error) {
	if len(types) == 0 {
		return nil, nil
	}
	q := "SELECT secure FROM events WHERE seq <= ? AND type IN (?" + strings.Repeat(", ?", len(types)-1) + ") ORDER BY seq DESC LIMIT 1"
	args := []any{int64(min(seq, 1<<62))}
	for _, t := range types {
		args = append(args, string(t))
	}
	var b []byte
	switch err := j.db.QueryRowContext(ctx, q, args...).Scan(&b); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("journal: %w", err)
	}
	return b, nil
}
