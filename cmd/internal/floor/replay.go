package floor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

// Journal is what the replay reads of a table's journal; *journal.Journal is one.
type Journal interface {
	Shoes(ctx context.Context) ([]string, error)
	ShoeRange(ctx context.Context, shoe string) (first, last uint64, err error)
	Range(ctx context.Context, from, to uint64, fn func(journal.Record) error) error
}

var _ Journal = (*journal.Journal)(nil)

// RoundSummary is one round of a shoe in the replay's round list.
type RoundSummary struct {
	Round   uint64    `json:"round"`
	At      time.Time `json:"at"`
	Result  string    `json:"result"` // "" for a round the journal holds no end of
	Summary string    `json:"summary"`
	Cards   int       `json:"cards"`
	Faults  int       `json:"faults,omitempty"`
}

// Frame is one step of a replay: the event, said in words, and the table as it stood after it.
type Frame struct {
	Seq     uint64    `json:"seq"`
	Type    string    `json:"type"`
	At      time.Time `json:"at"`
	Caption string    `json:"caption"`
	Table   TableView `json:"table"`
}

// Replay is a past round, card by card (RULES.md §1 "Discards": a disputed round is reviewed by
// a read-only replay).
type Replay struct {
	Table  string  `json:"table"`
	Shoe   string  `json:"shoe"`
	Round  uint64  `json:"round"`
	Frames []Frame `json:"frames"`
}

// ErrNoRound is returned by ReplayRound for a round the shoe does not hold.
var ErrNoRound = errors.New("floor: no such round")

func decode(r journal.Record, public bool) (tablebus.Event, error) {
	b := r.Secure
	if public {
		b = r.Public
	}
	e, err := tablebus.Decode(b)
	if err != nil {
		return e, fmt.Errorf("floor: journal event %d: %w", r.Seq, err)
	}
	return e, nil
}

// Rounds lists a shoe's rounds from the journal, in order.
func Rounds(ctx context.Context, j Journal, shoe string) ([]RoundSummary, error) {
	first, last, err := j.ShoeRange(ctx, shoe)
	if err != nil {
		return nil, err
	}
	out := []RoundSummary{}
	t := newTable("replay")
	err = j.Range(ctx, first, last, func(r journal.Record) error {
		if r.Round == 0 {
			return nil
		}
		e, err := decode(r, false)
		if err != nil {
			return err
		}
		t.setGame(e.Game)
		if len(out) == 0 || out[len(out)-1].Round != r.Round {
			out = append(out, RoundSummary{Round: r.Round, At: r.TS})
		}
		s := &out[len(out)-1]
		switch e.Type {
		case tablebus.CardDealt:
			s.Cards++
		case tablebus.Fault:
			s.Faults++
		case tablebus.RoundResult:
			t.v.Recent = t.v.Recent[:0]
			t.result(e)
			s.Result, s.Summary = e.Result, t.v.Recent[0].Summary
		case tablebus.RoundVoided:
			s.Result, s.Summary = "voided", "voided: "+e.Reason
		}
		return nil
	})
	return out, err
}

// shown says which events make a frame of the replay: what changes the layout or the strip;
// guidance makes one where it says more than where the next card goes.
var shown = map[tablebus.Type]bool{
	tablebus.RoundOpened: true, tablebus.CardDealt: true, tablebus.Burn: true, tablebus.Revealed: true,
	tablebus.Decision: true, tablebus.Fault: true, tablebus.FaultResolved: true, tablebus.RoundResult: true,
	tablebus.RoundSettled: true, tablebus.RoundVoided: true, tablebus.CutCardReached: true,
}

// ReplayRound rebuilds one round of a shoe from the journal: the table as it stood before the
// round (the shoe's progress and roads), then one frame per event of the round. public replays
// the public feed's payloads (face-down cards without their identity).
func ReplayRound(ctx context.Context, j Journal, tableID, shoe string, round uint64, public bool) (Replay, error) {
	first, last, err := j.ShoeRange(ctx, shoe)
	if err != nil {
		return Replay{}, err
	}
	t := newTable(tableID)
	rp := Replay{Table: tableID, Shoe: shoe, Round: round, Frames: []Frame{}}
	var ver uint64
	seen := false
	err = j.Range(ctx, first, last, func(r journal.Record) error {
		if r.Round > round {
			return errStop
		}
		e, err := decode(r, public)
		if err != nil {
			return err
		}
		t.apply(e)
		// The guidance that follows the round (its events carry no round) says the engine's
		// last word on it: "banker wins 7 to 5".
		after := seen && r.Round == 0 && e.Type == tablebus.Guide
		if r.Round != round && !after || !shown[e.Type] && tablebus.Describe(e) == "" {
			return nil // only frames that change the layout, the strip or what the dealer is told
		}
		seen = true
		ver++
		t.v.Version = ver
		rp.Frames = append(rp.Frames, Frame{Seq: e.Seq, Type: string(e.Type), At: e.TS, Caption: tablebus.Describe(e), Table: t.view()})
		if after {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return Replay{}, err
	}
	if len(rp.Frames) == 0 {
		return Replay{}, fmt.Errorf("%w %d in shoe %s", ErrNoRound, round, shoe)
	}
	return rp, nil
}

var errStop = errors.New("stop")
