package tablebus

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// The progressive jackpot's wire (RULES.md §7). A table sends its side of it as events of its
// own feed, signed, journaled and re-sent like every other event:
//
//	progressive.bet    at the round's opening: the pool and the round's progressive bets
//	progressive.hand   once the round is dealt: each progressive bet with its final hand (Claims)
//	progressive.award  the controller's award as the table applies it (Payouts, Draw)
//	progressive.link   the table stops or resumes taking progressive bets (State open or closed)
//
// and a voided round's round.voided returns its bets. The floor's controller (sabot
// progressive serve) follows the tables' secure feeds, books each event once, and answers
// under its own tree, every message sealed (unchained) with its key from the keyring (use
// "progressive") under DomainProgressive:
//
//	sabot/v1/progressive/status/<pool>   retained: the controller serving the pool, online or
//	                                     offline (its MQTT last will)
//	sabot/v1/progressive/meter/<pool>    retained: the pool's meter (ProgressiveMeter)
//	sabot/v1/<table>/progressive/award   retained: the table's latest award (ProgressiveAward)
//
// The award is retained per table because a table has one round at a time awaiting it: a table
// that reconnects finds it there.

// The progressive event types of the table's feed.
const (
	ProgressiveBet   Type = "progressive.bet"   // the round's progressive bets: pool, bets
	ProgressiveHand  Type = "progressive.hand"  // each progressive bet's final hand: pool, claims (cards hidden)
	ProgressiveAward Type = "progressive.award" // the controller's award applied: pool, payouts, draw, by
	ProgressiveLink  Type = "progressive.link"  // the table takes progressive bets or not: pool, state, reason
)

// The states of a progressive.link.
const (
	LinkOpen   = "open"   // the controller is online: progressive bets are taken
	LinkClosed = "closed" // the controller is offline: no progressive bet is taken
)

// DomainProgressive is the signature domain of the controller's messages.
const DomainProgressive Domain = "sabot/v1 progressive"

// UseProgressive is a progressive controller's key in a keyring (Table "*", Name its id).
const UseProgressive = "progressive"

// ProgressiveRoot is the controller's tree: sabot/v1/progressive/…/<pool>. No table may be
// called "progressive" (ValidTable).
const ProgressiveRoot = Root + "/progressive"

// PoolTopics are one pool's topics.
type PoolTopics struct{ Pool string }

// Status is the controller's retained birth/death for the pool.
func (p PoolTopics) Status() string { return ProgressiveRoot + "/status/" + p.Pool }

// Meter is the pool's retained meter.
func (p PoolTopics) Meter() string { return ProgressiveRoot + "/meter/" + p.Pool }

// Award is where the controller answers table's progressive events, retained.
func (t Topics) Award() string { return Root + "/" + t.Table + "/progressive/award" }

// Awards is the filter of every table's awards.
const Awards = Root + "/+/progressive/award"

// Claim is one progressive bet with its final hand (progressive.hand): the cards are the seat's
// five (after draw poker's exchange; Go poker's with the two community cards). Folded: the
// seat gave up its hand (no prize, RULES.md §7); Void: a wrong number of cards (the bet is
// returned).
type Claim struct {
	Seat     int         `json:"seat"`
	Amount   int64       `json:"amount"`
	Cards    []card.Card `json:"cards,omitempty"`
	Category string      `json:"category,omitempty"`
	Folded   bool        `json:"folded,omitempty"`
	Void     bool        `json:"void,omitempty"`
}

// PrizePaid is one prize of an award: a hand's (Kind "hand", its Category and the Prize as the
// pool's table writes it, "100x" or "10%") or a random prize's (carta-magica,
// jugador-afortunado).
type PrizePaid struct {
	Seat     int    `json:"seat"`
	Kind     string `json:"kind"`
	Category string `json:"category,omitempty"`
	Prize    string `json:"prize,omitempty"`
	Amount   int64  `json:"amount"`
}

// PrizeDraw is a random prize the controller drew for a round (seed 002): its kind, the seat
// and, for a carta mágica, the card (on the secure feed only).
type PrizeDraw struct {
	Kind string     `json:"kind"`
	Seat int        `json:"seat"`
	Card *card.Card `json:"card,omitempty"`
}

// Award is the controller's answer to a table's progressive.hand: what the round's progressive
// bets won, or why it cannot be confirmed (Error: the table holds the round for a supervisor).
type Award struct {
	V          int    `json:"v"`
	Controller string `json:"controller"`
	Pool       string `json:"pool"`
	Table      string `json:"table"`
	Round      uint64 `json:"round"`
	Ref        uint64 `json:"ref"` // the progressive.hand's sequence number
	OK         bool   `json:"ok"`
	Error      string `json:"error,omitempty"`
	// Value is the main pool when the prizes were paid: what `sabot games round` takes as
	// progressive-pool to pay the round again.
	Value    int64       `json:"value"`
	Payouts  []PrizePaid `json:"payouts,omitempty"`
	Draw     *PrizeDraw  `json:"draw,omitempty"`
	Returned []Stake     `json:"returned,omitempty"` // void hands' bets, given back
	TS       time.Time   `json:"ts"`
	Kid      string      `json:"kid,omitempty"`
	Sig      string      `json:"sig,omitempty"`
}

// Stake is a seat's progressive bet (an award's returned bets).
type Stake struct {
	Seat   int   `json:"seat"`
	Amount int64 `json:"amount"`
}

// PoolStatus is the controller's retained birth/death for a pool; the offline copy is its last
// will.
type PoolStatus struct {
	V          int       `json:"v"`
	Pool       string    `json:"pool"`
	Controller string    `json:"controller"`
	Online     bool      `json:"online"`
	Session    uint64    `json:"session"`
	TS         time.Time `json:"ts"`
	Kid        string    `json:"kid,omitempty"`
	Sig        string    `json:"sig,omitempty"`
}

// Meter is a pool's meter, retained: what the table's prize display and the regulator read
// (RULES.md §7): the current value, the reserve, the contributions, the hits and the last win.
type Meter struct {
	V             int       `json:"v"`
	Pool          string    `json:"pool"`
	Controller    string    `json:"controller"`
	Value         int64     `json:"value"`
	Reserve       int64     `json:"reserve"`
	Contributions int64     `json:"contributions"`
	Turnover      int64     `json:"turnover"`
	Bets          int64     `json:"bets"`
	Hits          int64     `json:"hits"`
	Paid          int64     `json:"paid"`
	LastWin       *LastWin  `json:"last_win,omitempty"`
	Version       uint64    `json:"version"` // +1 per booking: keep the highest
	TS            time.Time `json:"ts"`
	Kid           string    `json:"kid,omitempty"`
	Sig           string    `json:"sig,omitempty"`
}

// LastWin is a meter's latest prize.
type LastWin struct {
	Table    string    `json:"table"`
	Round    uint64    `json:"round"`
	Seat     int       `json:"seat"`
	Kind     string    `json:"kind"`
	Category string    `json:"category,omitempty"`
	Amount   int64     `json:"amount"`
	At       time.Time `json:"at"`
}

// ProgressiveKey returns the entry of a progressive controller's key valid at time at.
func (k *Keyring) ProgressiveKey(kid string, at time.Time) (KeyEntry, error) {
	e, _, err := k.lookup(kid, UseProgressive, at)
	return e, err
}

// SealProgressive seals one of the controller's messages (an Award, a PoolStatus, a Meter) for
// topic: the message's JSON without kid and sig, then the unchained trailer.
func SealProgressive(s *Signer, topic string, v any) ([]byte, error) {
	switch m := v.(type) {
	case Award:
		m.Kid, m.Sig, m.V = "", "", SchemaVersion
		v = m
	case PoolStatus:
		m.Kid, m.Sig, m.V = "", "", SchemaVersion
		v = m
	case Meter:
		m.Kid, m.Sig, m.V = "", "", SchemaVersion
		v = m
	default:
		return nil, fmt.Errorf("tablebus: %T is not a progressive controller's message", v)
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("tablebus: %w", err)
	}
	return s.Seal(DomainProgressive, topic, body)
}

// OpenProgressive checks one of the controller's messages received on topic and decodes it into
// v (*Award, *PoolStatus or *Meter): the signature by a progressive key of the keyring, before
// anything else is read, then the strict schema, the key's dates at the message's time, and that
// the message belongs to its topic. It returns the key's entry (Name: the controller).
func OpenProgressive(kr *Keyring, topic string, payload []byte, v any) (KeyEntry, error) {
	if len(payload) > MaxPayload {
		return KeyEntry{}, fmt.Errorf("tablebus: progressive message of %d bytes exceeds %d", len(payload), MaxPayload)
	}
	s, err := ParseSeal(payload, false)
	if err != nil {
		return KeyEntry{}, err
	}
	ent, pub, err := kr.entry(s.KeyID, UseProgressive)
	if err != nil {
		return KeyEntry{}, err
	}
	if err := s.Verify(DomainProgressive, topic, pub); err != nil {
		return KeyEntry{}, err
	}
	if err := strict(payload, v); err != nil {
		return KeyEntry{}, fmt.Errorf("tablebus: bad progressive message: %w", err)
	}
	var ts time.Time
	var where, ctrl string
	switch m := v.(type) {
	case *Award:
		ts, where, ctrl = m.TS, Topics{Table: m.Table}.Award(), m.Controller
	case *PoolStatus:
		ts, where, ctrl = m.TS, PoolTopics{Pool: m.Pool}.Status(), m.Controller
	case *Meter:
		ts, where, ctrl = m.TS, PoolTopics{Pool: m.Pool}.Meter(), m.Controller
	default:
		return KeyEntry{}, fmt.Errorf("tablebus: %T is not a progressive controller's message", v)
	}
	if where != topic {
		return KeyEntry{}, fmt.Errorf("tablebus: progressive message for %s on %s", where, topic)
	}
	if ctrl != ent.Name {
		return KeyEntry{}, fmt.Errorf("%w: key %s belongs to %s, the message says %s", ErrKeyNotValid, s.KeyID, ent.Name, ctrl)
	}
	if err := ent.validAt(ts); err != nil {
		return KeyEntry{}, err
	}
	return ent, nil
}
