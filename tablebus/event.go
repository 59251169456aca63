package tablebus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// SchemaVersion is the version of the wire schema carried in every payload's "v".
const SchemaVersion = 1

// Type is an event's kind.
type Type string

// Event types of schema version 1. The README's "MQTT feed" section documents each one.
const (
	ShoeLoaded     Type = "shoe.loaded"     // new cards given to the shuffler: game, decks
	DecksVerified  Type = "decks.verified"  // every card read on load; ok, or the discrepancy
	Shuffled       Type = "shuffled"        // the shuffler shuffled: cards, by
	Cut            Type = "cut"             // the player's cut: at (cards moved from the front)
	CutCardPlaced  Type = "cutcard.placed"  // the stop card placed: behind (cards behind it)
	Burn           Type = "burn"            // a burned card: card (hidden when face down), face
	RoundOpened    Type = "round.opened"    // no more bets: bets
	CardDealt      Type = "card"            // a dealt card: card, to, face, pos
	Revealed       Type = "reveal"          // a face-down card turned up: card, ref (its event's seq)
	Decision       Type = "decision"        // a player's decision from the dealer terminal
	Guide          Type = "guide"           // the engine's guidance: need, say
	CutCardReached Type = "cutcard.reached" // the stop card came out: behind (cards behind it)
	RoundResult    Type = "round.result"    // the coup's result: result, hands
	RoundSettled   Type = "round.settled"   // every bet's net: settlements, net
	RoundVoided    Type = "round.voided"    // the round was voided: reason, by
	ShoeEnded      Type = "shoe.ended"      // accounting: dealt + burned + left = total
	Fault          Type = "fault"           // a fault: code, detail, hold
	FaultResolved  Type = "fault.resolved"  // the dealer resolved the fault: how, by
	DeviceStatus   Type = "device.status"   // a device's status
	TableAction    Type = "table.action"    // a between-rounds action on the game's state (the chemin de fer bank)
)

// Event is one message of a table's feed. Every event has the envelope (V … Type); the other
// fields belong to some types only and are omitted elsewhere.
type Event struct {
	V       int       `json:"v"`
	Seq     uint64    `json:"seq"`
	Type    Type      `json:"type"`
	Table   string    `json:"table"`
	Source  string    `json:"source"`
	Session uint64    `json:"session"`
	Shoe    string    `json:"shoe,omitempty"`
	Round   uint64    `json:"round,omitempty"`
	TS      time.Time `json:"ts"`

	Game    string             `json:"game,omitempty"`
	Decks   int                `json:"decks,omitempty"`
	Card    *card.Card         `json:"card,omitempty"`
	Face    *games.Face        `json:"face,omitempty"`
	To      *games.Place       `json:"to,omitempty"`
	Pos     int                `json:"pos,omitempty"`      // the card's position in the shoe, from 1
	Manual  *Manual            `json:"manual,omitempty"`   // a card entered by hand
	Ref     uint64             `json:"ref,omitempty"`      // the seq of the event this one refers to
	Count   int                `json:"count,omitempty"`    // cards: shuffled, to burn, …
	At      int                `json:"at,omitempty"`       // the cut: cards moved from front to back
	Behind  int                `json:"behind,omitempty"`   // cards behind the stop card
	By      string             `json:"by,omitempty"`       // who: "shuffler", "host", a dealer id
	Bets    []games.Bet        `json:"bets,omitempty"`     // round.opened
	Amount  int64              `json:"amount,omitempty"`   // table.action: cents
	Seat    int                `json:"seat,omitempty"`     // decision
	Hand    int                `json:"hand,omitempty"`     // decision
	Choice  string             `json:"decision,omitempty"` // decision
	Need    *games.Need        `json:"need,omitempty"`     // guide
	Say     []string           `json:"say,omitempty"`      // guide
	Result  string             `json:"result,omitempty"`   // round.result
	Hands   []games.Hand       `json:"hands,omitempty"`    // round.result
	Dealer  *games.Hand        `json:"dealer,omitempty"`   // round.result
	Detail  any                `json:"detail,omitempty"`   // round.result: game-specific
	Settle  []games.Settlement `json:"settlements,omitempty"`
	Net     *int64             `json:"net,omitempty"` // round.settled: players' total, cents
	OK      *bool              `json:"ok,omitempty"`  // decks.verified, shoe.ended
	Problem string             `json:"problem,omitempty"`
	Code    string             `json:"code,omitempty"`   // fault code
	Hold    bool               `json:"hold,omitempty"`   // fault: the round is held
	Reason  string             `json:"reason,omitempty"` // round.voided, fault.resolved
	Account *Accounting        `json:"accounting,omitempty"`
	Device  string             `json:"device,omitempty"`
	State   string             `json:"state,omitempty"`
	Hidden  bool               `json:"hidden,omitempty"` // public feed: this card is face down
	// EngineState is the game's state kept across rounds (the chemin de fer bank), on
	// shoe.loaded, shoe.ended and table.action: a restarted daemon restores its engine from it.
	EngineState json.RawMessage `json:"engine_state,omitempty"`

	// What the public feed shows of a round.result whose round dealt cards face down that were
	// never turned up (folded poker hands, unshown cards): set by the shoe machine, never on the
	// wire themselves (Public uses them).
	PublicHands  []games.Hand `json:"-"`
	PublicDealer *games.Hand  `json:"-"`
	HideDetail   bool         `json:"-"`

	// The seal (seal.go), present on the wire only: the previous payload's hash, the signing
	// key's id and the signature. Always the last three members of a wire payload.
	Prev string `json:"prev,omitempty"`
	Kid  string `json:"kid,omitempty"`
	Sig  string `json:"sig,omitempty"`
}

// Manual records a card entered by hand (RULES.md §1 "Misread": who and when).
type Manual struct {
	Dealer string    `json:"dealer"`
	At     time.Time `json:"at"`
}

// Accounting is the end-of-shoe count (RULES.md §1 "Counting").
type Accounting struct {
	Dealt  int `json:"dealt"`
	Burned int `json:"burned"`
	Left   int `json:"left"`
	Total  int `json:"total"`
	Want   int `json:"want"`
}

// Source names for Event.Source.
const SourceTable = "table" // the table's daemon

// Public returns the event as the public feed may carry it (RULES.md §1 "Hidden cards"): a
// face-down card loses its identity and is marked hidden. Every other event is unchanged.
// A hidden card's identity reaches the public feed only in a later Revealed event.
func (e Event) Public() Event {
	if e.Face != nil && *e.Face == games.FaceDown && e.Card != nil {
		e.Card = nil
		e.Hidden = true
	}
	switch e.Type {
	case Guide:
		// Guidance never names cards, but it must not say more about hidden ones either: keep
		// only what the dealer does next.
		e.Say = nil
	case Fault:
		// A fault's words may name a card (a foreign card, a card out of turn, the raw line of
		// a misread): the public feed keeps the code and whether the round is held.
		e.Problem = ""
		e.Card = nil
	case FaultResolved:
		e.Reason, _, _ = strings.Cut(e.Reason, " of ") // "manual entry of Kd" → "manual entry"
		e.Reason, _, _ = strings.Cut(e.Reason, ":")    // "void: …" → "void"
	case Decision:
		// Draw poker's exchange names the closed cards thrown: only their number is public.
		if rest, ok := strings.CutPrefix(e.Choice, "exchange:"); ok {
			n := 0
			if rest != "" {
				n = strings.Count(rest, ",") + 1
			}
			e.Choice = fmt.Sprintf("exchange:%d", n)
		}
	case RoundResult:
		if e.PublicHands != nil {
			e.Hands = e.PublicHands
		}
		if e.PublicDealer != nil {
			e.Dealer = e.PublicDealer
		}
		if e.HideDetail {
			e.Detail = nil
		}
	}
	e.PublicHands, e.PublicDealer, e.HideDetail = nil, nil, false
	return e
}

// Marshal encodes the event as compact JSON with the fields in a fixed order, without its seal:
// the body that the journal keeps and that a Signer seals into the wire payload.
func (e Event) Marshal() ([]byte, error) {
	e.Prev, e.Kid, e.Sig = "", "", ""
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("tablebus: encoding %s event %d: %w", e.Type, e.Seq, err)
	}
	return b, nil
}

// MaxPayload is the largest payload a consumer accepts.
const MaxPayload = 64 << 10

// Decode reads one event payload strictly: a known schema version, a known type, no trailing
// data, no unknown fields, and a table, sequence number and timestamp present.
func Decode(b []byte) (Event, error) {
	var e Event
	if len(b) > MaxPayload {
		return e, fmt.Errorf("tablebus: payload of %d bytes exceeds %d", len(b), MaxPayload)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&e); err != nil {
		return Event{}, fmt.Errorf("tablebus: bad event payload: %w", err)
	}
	if d.More() {
		return Event{}, fmt.Errorf("tablebus: bad event payload: data after the event")
	}
	switch {
	case e.V != SchemaVersion:
		return Event{}, fmt.Errorf("tablebus: schema version %d, want %d", e.V, SchemaVersion)
	case !knownTypes[e.Type]:
		return Event{}, fmt.Errorf("tablebus: unknown event type %q", e.Type)
	case e.Table == "" || e.Seq == 0 || e.TS.IsZero():
		return Event{}, fmt.Errorf("tablebus: event without table, seq or ts")
	}
	return e, nil
}

var knownTypes = map[Type]bool{
	ShoeLoaded: true, DecksVerified: true, Shuffled: true, Cut: true, CutCardPlaced: true, Burn: true,
	RoundOpened: true, CardDealt: true, Revealed: true, Decision: true, Guide: true, CutCardReached: true,
	RoundResult: true, RoundSettled: true, RoundVoided: true, ShoeEnded: true, Fault: true,
	FaultResolved: true, DeviceStatus: true, TableAction: true,
}
