package floor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/shoe"
)

// Kind is what an alert is about: the kinds issue 10 lists for the alert strip.
type Kind string

// The alert kinds.
const (
	KindMisread   Kind = "misread"         // a card read without confidence (RULES.md §1 "Misread")
	KindOutOfTurn Kind = "out-of-turn"     // a card where the rules allow none (RULES.md §4 "card out of turn")
	KindTableau   Kind = "tableau"         // a baccarat card against the tableau: a dealer error (RULES.md §2)
	KindForeign   Kind = "foreign-card"    // a card the shoe cannot contain (RULES.md §1 "Deck verification")
	KindForged    Kind = "forged-event"    // an event that failed verification: forged, altered or replayed
	KindDevice    Kind = "device-fault"    // the shuffler, the reading shoe or their links
	KindOffline   Kind = "daemon-offline"  // the table's daemon is dead (its last will) or stopped
	KindProcedure Kind = "shoe-procedure"  // deck check, stop card, accounting: the other RULES.md §1 faults
	KindEngine    Kind = "engine-alarm"    // a separate engine disagrees with the table's account
	KindFeed      Kind = "feed"            // events missing from the feed, or a payload refused
	KindStalled   Kind = "daemon-stalled"  // the daemon's loops stopped answering (the watchdog)
	KindWatch     Kind = "connection-lost" // this view lost its own connection to the feed
)

// Severity orders alerts on the strip: critical ones first and in red.
type Severity string

// The two severities.
const (
	Critical Severity = "critical"
	Warning  Severity = "warning"
)

var kindTitles = map[Kind]string{
	KindMisread:   "Misread",
	KindOutOfTurn: "Card out of turn",
	KindTableau:   "Dealer error against the tableau",
	KindForeign:   "Foreign card",
	KindForged:    "Forged event",
	KindDevice:    "Device fault",
	KindOffline:   "Daemon offline",
	KindProcedure: "Shoe procedure",
	KindEngine:    "Engine alarm",
	KindFeed:      "Feed problem",
	KindStalled:   "Daemon stalled",
	KindWatch:     "Connection lost",
}

// Title is the kind in the words of the alert strip.
func (k Kind) Title() string {
	if t, ok := kindTitles[k]; ok {
		return t
	}
	return string(k)
}

func (k Kind) severity() Severity {
	switch k {
	case KindMisread, KindFeed, KindDevice, KindAdvantage:
		return Warning
	}
	return Critical
}

// deviceCodes are the device fault codes of cmd/sabotd that do not name their device: a device
// error of the shoe loop, and the shuffler's own events (devices.go watchShuffler).
var deviceCodes = map[string]bool{"device": true, "jam": true, "door-open": true, "misfeed": true, "count-mismatch": true}

// faultKind classifies a table's fault code (shoe/machine.go's Fault* codes and the device
// codes of cmd/sabotd) for a game family.
func faultKind(code, family string) Kind {
	switch code {
	case shoe.FaultMisread:
		return KindMisread
	case shoe.FaultOutOfTurn:
		if family == familyBaccarat {
			// RULES.md §2: the baccarat tableau is fixed; a card it does not call for is the
			// dealer's error, not a player's.
			return KindTableau
		}
		return KindOutOfTurn
	case shoe.FaultForeign:
		return KindForeign
	case shoe.FaultDeck, shoe.FaultCutCard, shoe.FaultUnexpected, shoe.FaultCardWhenHeld,
		shoe.FaultAccounting, shoe.FaultCount:
		return KindProcedure
	}
	if deviceCodes[code] || strings.HasPrefix(code, "shoe-") || strings.HasPrefix(code, "shuffler") ||
		strings.HasPrefix(code, "camera") || strings.HasPrefix(code, "reader") {
		return KindDevice
	}
	return KindProcedure
}

// Alert is one entry of the alert strip. It stays on the strip until somebody acknowledges it,
// whatever happened at the table since (Resolved says what did).
type Alert struct {
	ID       uint64    `json:"id"`
	Table    string    `json:"table"`
	Kind     Kind      `json:"kind"`
	Title    string    `json:"title"`
	Severity Severity  `json:"severity"`
	Text     string    `json:"text"`
	Code     string    `json:"code,omitempty"`  // the fault code, where the alert is a fault event
	Round    uint64    `json:"round,omitempty"` // the round it happened in
	Seq      uint64    `json:"seq,omitempty"`   // the event that raised it
	At       time.Time `json:"at"`
	Count    int       `json:"count"`              // the same alert raised this many times before acknowledgement
	Resolved string    `json:"resolved,omitempty"` // what the table did about it: "manual entry of 4s by d-117"
	AckBy    string    `json:"ack_by,omitempty"`
	AckAt    time.Time `json:"ack_at,omitzero"`
}

// Open reports whether the alert waits for an acknowledgement.
func (a *Alert) Open() bool { return a.AckBy == "" }

// keep is how many acknowledged alerts the book keeps for the history.
const keep = 100

// alertBook holds a floor's alerts: every open one, and the last acknowledged ones.
type alertBook struct {
	next   uint64
	alerts []*Alert // oldest first
}

// raise adds an alert, or counts it again on an open alert of the same table, kind, round and
// text.
func (b *alertBook) raise(a Alert) *Alert {
	for _, x := range b.alerts {
		if x.Open() && x.Table == a.Table && x.Kind == a.Kind && x.Round == a.Round && x.Text == a.Text {
			x.Count++
			x.At, x.Seq = a.At, a.Seq
			return x
		}
	}
	b.next++
	a.ID, a.Count = b.next, 1
	a.Title, a.Severity = a.Kind.Title(), a.Kind.severity()
	b.alerts = append(b.alerts, &a)
	b.trim()
	return &a
}

// resolve notes on the table's open alerts with the code what the table did about them.
func (b *alertBook) resolve(table, code, how string) bool {
	changed := false
	for _, x := range b.alerts {
		if x.Open() && x.Table == table && x.Code == code && x.Resolved == "" {
			x.Resolved = how
			changed = true
		}
	}
	return changed
}

// Errors of Ack.
var (
	ErrNoAlert = errors.New("floor: no such alert")
	ErrNoName  = errors.New("floor: an acknowledgement needs the name of who acknowledges")
)

func (b *alertBook) ack(id uint64, by string, at time.Time) error {
	by = strings.TrimSpace(by)
	if by == "" {
		return ErrNoName
	}
	if len(by) > 64 {
		return fmt.Errorf("floor: the name %.20q… is longer than 64 characters", by)
	}
	for _, x := range b.alerts {
		if x.ID == id {
			if !x.Open() {
				return nil // acknowledged already: the first acknowledgement stands
			}
			x.AckBy, x.AckAt = by, at
			b.trim()
			return nil
		}
	}
	return fmt.Errorf("%w %d", ErrNoAlert, id)
}

// trim drops the oldest acknowledged alerts beyond keep.
func (b *alertBook) trim() {
	acked := 0
	for _, x := range b.alerts {
		if !x.Open() {
			acked++
		}
	}
	if acked <= keep {
		return
	}
	out := b.alerts[:0]
	for _, x := range b.alerts {
		if !x.Open() && acked > keep {
			acked--
			continue
		}
		out = append(out, x)
	}
	b.alerts = out
}

// list returns copies of the alerts: open ones first (critical before warnings, newest first),
// then the acknowledged ones, newest first.
func (b *alertBook) list() []Alert {
	out := make([]Alert, 0, len(b.alerts))
	for i := len(b.alerts) - 1; i >= 0; i-- {
		out = append(out, *b.alerts[i])
	}
	rank := func(a *Alert) int {
		switch {
		case a.Open() && a.Severity == Critical:
			return 0
		case a.Open():
			return 1
		}
		return 2
	}
	// A stable insertion sort keeps newest-first within each group; lists are short.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && rank(&out[j]) < rank(&out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
