package floor

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

// The pit's figures, computed from the tables' feeds (the same events the journals keep): per
// table and per hour, the rounds dealt, the drop (the bets placed and settled), the house's win
// and its hold (win over drop), the progressive bets (kept apart: they feed the floor's pools,
// not the table's result) and the prizes the controller paid, and the time each dealer dealt. A
// round counts in the hour it ended; a voided round pushes every bet (RULES.md §1) and counts
// as voided only. Money is integer cents; the hold is in basis points.
//
// The dealer of a round is the one who last signed a procedure at the table (the cut, the stop
// card, a manual entry or a void: the events' "by").

// PitRow is one table's figures for one hour (UTC).
type PitRow struct {
	Table  string    `json:"table"`
	Hour   time.Time `json:"hour"`
	Rounds int       `json:"rounds"` // settled
	Voided int       `json:"voided"`
	// Drop is what the settled bets staked, Win what the house won on them (−Σ net), both
	// without the progressive; HoldBP is Win/Drop in basis points (0 without drop).
	Drop   int64 `json:"drop"`
	Win    int64 `json:"win"`
	HoldBP int64 `json:"hold_bp"`
	// The progressive (RULES.md §7): the bets settled (the table's contributions to its pool,
	// void hands' returned bets apart) and the prizes its controller paid at this table.
	ProgBets  int   `json:"progressive_bets"`
	ProgDrop  int64 `json:"progressive_drop"`
	ProgPaid  int64 `json:"progressive_paid"`
	ProgPrize int   `json:"progressive_prizes"`
	// Dealers is the time each dealer dealt, in seconds (from a round's opening to its end).
	Dealers map[string]float64 `json:"dealers,omitempty"`
}

// Hold returns the hold as a percentage with two decimals ("12.34"), from the basis points.
func (r PitRow) Hold() string {
	bp := r.HoldBP
	sign := ""
	if bp < 0 {
		sign, bp = "-", -bp
	}
	return fmt.Sprintf("%s%d.%02d", sign, bp/100, bp%100)
}

// Pit accumulates the figures. Its methods are safe for concurrent use.
type Pit struct {
	mu     sync.Mutex
	rows   map[pitKey]*PitRow
	tables map[string]*pitTable
}

type pitKey struct {
	table string
	hour  time.Time
}

type pitTable struct {
	dealer  string
	opened  time.Time // the round in progress, zero between rounds
	round   uint64
	lastSeq uint64
}

// NewPit returns empty figures.
func NewPit() *Pit { return &Pit{rows: map[pitKey]*PitRow{}, tables: map[string]*pitTable{}} }

func (p *Pit) row(table string, at time.Time) *PitRow {
	k := pitKey{table, at.UTC().Truncate(time.Hour)}
	r, ok := p.rows[k]
	if !ok {
		r = &PitRow{Table: table, Hour: k.hour}
		p.rows[k] = r
	}
	return r
}

// Apply takes one event of a table's feed (secure or public: the figures use what both carry),
// once and in order; an event whose seq is not past the table's last is ignored.
func (p *Pit) Apply(e tablebus.Event) {
	if e.Source != "" && e.Source != tablebus.SourceTable {
		return // an engine's own stream
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.tables[e.Table]
	if !ok {
		t = &pitTable{}
		p.tables[e.Table] = t
	}
	if e.Seq != 0 && e.Seq <= t.lastSeq {
		return
	}
	t.lastSeq = e.Seq
	switch e.Type {
	case tablebus.Cut, tablebus.CutCardPlaced, tablebus.FaultResolved:
		if e.By != "" {
			t.dealer = e.By
		}
	case tablebus.RoundOpened:
		t.opened, t.round = e.TS, e.Round
	case tablebus.ProgressiveAward:
		r := p.row(e.Table, e.TS)
		for _, pp := range e.Payouts {
			r.ProgPaid += pp.Amount
			r.ProgPrize++
		}
	case tablebus.RoundSettled, tablebus.RoundVoided:
		r := p.row(e.Table, e.TS)
		if e.Type == tablebus.RoundVoided {
			if e.By != "" {
				t.dealer = e.By
			}
			r.Voided++ // every bet returned, the progressive's too: they feed nothing
		} else {
			r.Rounds++
			for _, s := range e.Settle {
				if s.Spot == "progressive" {
					// A void hand's progressive bet is returned (net 0) and feeds nothing.
					if s.Net != 0 {
						r.ProgBets++
						r.ProgDrop += s.Amount
					}
					continue
				}
				r.Drop += s.Amount
				r.Win -= s.Net
			}
		}
		if !t.opened.IsZero() && e.Round == t.round {
			d := t.dealer
			if d == "" {
				d = "(unknown)"
			}
			if r.Dealers == nil {
				r.Dealers = map[string]float64{}
			}
			r.Dealers[d] += e.TS.Sub(t.opened).Seconds()
		}
		t.opened = time.Time{}
	}
}

// Rows returns the figures for the hours of one day (UTC; the zero time: every day), by table
// then hour, with the hold worked out.
func (p *Pit) Rows(day time.Time) []PitRow {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []PitRow
	for _, r := range p.rows {
		if !day.IsZero() && !sameDay(r.Hour, day) {
			continue
		}
		c := *r
		c.Dealers = maps.Clone(r.Dealers)
		c.HoldBP = holdBP(c.Win, c.Drop)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Table != out[j].Table {
			return out[i].Table < out[j].Table
		}
		return out[i].Hour.Before(out[j].Hour)
	})
	return out
}

// Totals returns each table's figures over everything seen (Hour zero), by table.
func (p *Pit) Totals() []PitRow {
	by := map[string]*PitRow{}
	for _, r := range p.Rows(time.Time{}) {
		t, ok := by[r.Table]
		if !ok {
			t = &PitRow{Table: r.Table}
			by[r.Table] = t
		}
		t.add(r)
	}
	var out []PitRow
	for _, name := range slices.Sorted(maps.Keys(by)) {
		r := *by[name]
		r.HoldBP = holdBP(r.Win, r.Drop)
		out = append(out, r)
	}
	return out
}

func (t *PitRow) add(r PitRow) {
	t.Rounds += r.Rounds
	t.Voided += r.Voided
	t.Drop += r.Drop
	t.Win += r.Win
	t.ProgBets += r.ProgBets
	t.ProgDrop += r.ProgDrop
	t.ProgPaid += r.ProgPaid
	t.ProgPrize += r.ProgPrize
	for d, s := range r.Dealers {
		if t.Dealers == nil {
			t.Dealers = map[string]float64{}
		}
		t.Dealers[d] += s
	}
}

func sameDay(a, b time.Time) bool {
	a, b = a.UTC(), b.UTC()
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// holdBP is win/drop in basis points, rounded toward zero, in integers.
func holdBP(win, drop int64) int64 {
	if drop == 0 {
		return 0
	}
	return win * 10000 / drop
}

// reportLine is one line of a day's table report.
type pitLine struct {
	Table, Hour string
	r           PitRow
	dealers     string
}

// reportLines are a day's report: one line per table and hour, then each table's day, then the
// floor's ("ALL").
func reportLines(rows []PitRow) []pitLine {
	var out []pitLine
	line := func(r PitRow, hour string) {
		var ds []string
		for _, d := range slices.Sorted(maps.Keys(r.Dealers)) {
			ds = append(ds, fmt.Sprintf("%s=%ds", d, int64(r.Dealers[d])))
		}
		out = append(out, pitLine{Table: r.Table, Hour: hour, r: r, dealers: strings.Join(ds, " ")})
	}
	day := map[string]*PitRow{}
	floor := PitRow{Table: "ALL"}
	var order []string
	for _, r := range rows {
		line(r, r.Hour.UTC().Format("2006-01-02T15Z"))
		t, ok := day[r.Table]
		if !ok {
			t = &PitRow{Table: r.Table}
			day[r.Table] = t
			order = append(order, r.Table)
		}
		t.add(r)
		floor.add(r)
	}
	for _, name := range order {
		t := *day[name]
		t.HoldBP = holdBP(t.Win, t.Drop)
		line(t, "day")
	}
	floor.HoldBP = holdBP(floor.Win, floor.Drop)
	line(floor, "day")
	return out
}

// WriteCSV writes a day's table report: one line per table and hour, then each table's day, then
// the floor's day ("ALL"). Amounts in currency units with two decimals, exact (integer cents).
func WriteCSV(w io.Writer, rows []PitRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"table", "hour", "rounds", "voided", "drop", "win", "hold_pct", "progressive_bets", "progressive_drop",
		"progressive_prizes", "progressive_paid", "dealers"})
	for _, l := range reportLines(rows) {
		r := l.r
		cw.Write([]string{l.Table, l.Hour, strconv.Itoa(r.Rounds), strconv.Itoa(r.Voided), cents(r.Drop), cents(r.Win), r.Hold(),
			strconv.Itoa(r.ProgBets), cents(r.ProgDrop), strconv.Itoa(r.ProgPrize), cents(r.ProgPaid), l.dealers})
	}
	cw.Flush()
	return cw.Error()
}

// ApplyJournal applies every event of a table's journal, in order: the same figures the feed
// gives, from what the table wrote down.
func (p *Pit) ApplyJournal(ctx context.Context, j Journal) error {
	return j.Range(ctx, 1, 1<<62, func(r journal.Record) error {
		e, err := tablebus.Decode(r.Secure)
		if err != nil {
			return fmt.Errorf("floor: journal event %d: %w", r.Seq, err)
		}
		p.Apply(e)
		return nil
	})
}
