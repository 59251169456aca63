package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Loss is what AcceptLoss did: the record the daemon journals as the next event.
type Loss struct {
	From, To  uint64 // the events lost: after the journal's last, up to the highest seen
	Journal   uint64 // the journal's last event
	Session   uint64 // the highest session seen: the next is after it
	Abandoned string // the shoe left open, abandoned ("" none)
	Shoe      uint64 // the highest shoe number the lost events may have used
	Round     uint64 // the highest round number they may have used
}

// AcceptLoss makes a journal that is behind what was published (be, from CheckStart) go on
// past it, on the operator's word, without reusing any number the outside may hold: the next
// event gets the number after the highest seen, the next session (NewSession) the one after
// the highest seen, the shoe and round numbers jump past any the lost events may have used
// (those of the high-water mark, plus one for every event beyond what is known), a shoe left
// open is abandoned (its cards are not where the journal says), and the next event chains to
// the last published payloads the high-water mark records. Nothing is removed. Call it after
// Open and before KeepHighWater and NewSession; the caller journals the loss as the next event.
// Until that event is journaled, the journal is still behind: a start that stops before it
// refuses again.
func (j *Journal) AcceptLoss(ctx context.Context, be *BehindError) (Loss, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	head := *j.head.Load()
	l := Loss{Journal: head.Seq, From: head.Seq + 1, To: max(be.Seq, head.Seq), Session: max(be.Session, j.session.Load())}
	if l.To >= 1<<62 {
		return Loss{}, fmt.Errorf("journal: event #%d seen: beyond what a journal numbers; a forged acknowledgement or status?", l.To)
	}
	// What is known of the lost events' shoes and rounds: the mark's, if it is beyond the journal.
	known := head
	if be.Mark != nil && be.Mark.Seq >= head.Seq {
		known = *be.Mark
	}
	extra := l.To - known.Seq
	l.Shoe = shoeNumber(known.Shoe) + extra
	l.Round = known.Round + extra
	steps, _, _, err := j.OpenShoe(ctx)
	if err != nil {
		return Loss{}, err
	}
	if len(steps) > 0 {
		l.Abandoned = steps[0].Events[0].Shoe
	}
	tx, err := j.db.Begin()
	if err != nil {
		return Loss{}, fmt.Errorf("journal: %w", err)
	}
	defer tx.Rollback()
	for k, v := range map[string]uint64{"floor.shoe": l.Shoe, "floor.round": l.Round, "abandon": l.To + 1, "session": l.Session} {
		cur, err := metaUint(tx, k)
		if err != nil {
			return Loss{}, err
		}
		if _, err := tx.Exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
			k, strconv.FormatUint(max(cur, v), 10)); err != nil {
			return Loss{}, fmt.Errorf("journal: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Loss{}, fmt.Errorf("journal: %w", err)
	}
	j.session.Store(l.Session)
	j.next.Store(l.To + 1)
	head.Seq, head.Round = l.To, max(head.Round, l.Round)
	if be.Mark != nil && be.Mark.Seq == l.To {
		// Chain on from the payloads the consumers hold.
		j.prevSecure, j.prevPublic = be.Mark.Secure, be.Mark.Public
		head.Secure, head.Public, head.Shoe = be.Mark.Secure, be.Mark.Public, be.Mark.Shoe
	}
	j.head.Store(&head)
	return l, nil
}

// metaUint reads a number kept in meta (0 when absent).
func metaUint(q interface {
	QueryRow(string, ...any) *sql.Row
}, key string) (uint64, error) {
	var v string
	err := q.QueryRow("SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("journal: %s: %w", key, err)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("journal: damaged %s %q", key, v)
	}
	return n, nil
}

// shoeNumber returns the number of a shoe id (T1-000012: 12), 0 if it has none.
func shoeNumber(id string) uint64 {
	i := strings.LastIndexByte(id, '-')
	n, err := strconv.ParseUint(id[i+1:], 10, 64)
	if err != nil {
		return 0
	}
	return n
}
