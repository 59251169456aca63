package tablebus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// SchemaVersion is the version of the wire schema carried in every payload's "v".
const SchemaVersion = 1

// Type is an event's kind.
type Type string

// Event types of schema version 1. The README's "MQTT feed" section documents each one.
const (
	ShoeLoaded     Type = "shoe.loaded"     // new cards given to the shuffler: game, decks
	DecksVerified  Type = "decks.verified"  // every card read on load; ok, or the discrepancy (missing, extra)
	Shuffled       Type = "shuffled"        // the shuffler shuffled: cards, by
	Cut            Type = "cut"             // the player's cut: at (cards moved from the front)
	CutCardPlaced  Type = "cutcard.placed"  // the stop card placed: behind (cards behind it)
	Burn           Type = "burn"            // a burned card: card (hidden when face down), face
	RoundOpened    Type = "round.opened"    // no more bets: bets
	CardDealt      Type = "card"            // a dealt card: card, to, face, pos
	Revealed       Type = "reveal"          // a face-down card turned up: card, pos
	Decision       Type = "decision"        // a player's decision from the dealer terminal; cards (hidden) it names
	Guide          Type = "guide"           // the engine's guidance: need, say
	CutCardReached Type = "cutcard.reached" // the stop card came out: behind (cards behind it)
	RoundResult    Type = "round.result"    // the coup's result: result, hands (down: hidden), unshown
	RoundSettled   Type = "round.settled"   // every bet's net: settlements, net
	RoundVoided    Type = "round.voided"    // the round was voided: reason, by
	ShoeEnded      Type = "shoe.ended"      // accounting: dealt + burned + left = total
	Fault          Type = "fault"           // a fault: code, problem, hold; card, cards, raw (hidden)
	FaultResolved  Type = "fault.resolved"  // the dealer resolved the fault: reason, by; card (hidden)
	DeviceStatus   Type = "device.status"   // a device's status
	TableAction    Type = "table.action"    // a between-rounds action on the game's state (the chemin de fer bank)
	// Table operations, each given at the dealer terminal and signed by who gave it.
	TableOpened     Type = "table.opened"      // the table opens for play: by (a supervisor)
	TableClosed     Type = "table.closed"      // the table closes: no more rounds until it opens; by
	DealerSignedIn  Type = "dealer.signed-in"  // a dealer signed in at the terminal: by
	DealerSignedOut Type = "dealer.signed-out" // and out: by, reason ("signed out", "inactive", "relieved")
	LimitsChanged   Type = "limits.changed"    // the table's limits: limits (every spot's), by, approved
	// The devices a table may lack: the cards left counted by the reading shoe (a table without
	// a shuffler's link), and a continuous shuffler's return of every round's cards.
	CardCounted   Type = "card.counted"   // a card left, read as the dealer passes it through the shoe: card (secure), count
	CardsReturned Type = "cards.returned" // a round's cards went back into the continuous shuffler: count
)

// Event is one message of a table's feed. Every event has the envelope (V … Type); the other
// fields belong to some types only and are omitted elsewhere.
//
// A card's identity travels only in the typed card fields (Card, Cards, Missing, Extra, a
// Hand's Cards), never in words: Problem, Reason, Say and Result name no card, on either feed
// (shoe's TestFreeTextNamesNoCard). Which of those fields the public feed carries is decided
// by their place in the structure alone (Public).
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

	Game   string     `json:"game,omitempty"`
	Decks  int        `json:"decks,omitempty"`
	Card   *card.Card `json:"card,omitempty"` // public only with face "up"
	Face   *Face      `json:"face,omitempty"`
	To     *Place     `json:"to,omitempty"`
	Pos    int        `json:"pos,omitempty"`    // the card's position in the shoe, from 1
	Manual *Manual    `json:"manual,omitempty"` // a card entered by hand
	Ref    uint64     `json:"ref,omitempty"`    // the seq of the event this one refers to
	Count  int        `json:"count,omitempty"`  // cards: shuffled, to burn, exchanged, …
	At     int        `json:"at,omitempty"`     // the cut: cards moved from front to back
	Behind int        `json:"behind,omitempty"` // cards behind the stop card
	By     string     `json:"by,omitempty"`     // who: "shuffler", "host", a dealer id
	// Approved names the supervisor who approved what By did (a void, a manual entry after a
	// foreign card, a limits change, a new shoe from the terminal).
	Approved string  `json:"approved,omitempty"`
	Bets     []Bet   `json:"bets,omitempty"`   // round.opened
	Limits   []Limit `json:"limits,omitempty"` // limits.changed
	Amount   int64   `json:"amount,omitempty"` // table.action: cents
	Seat     int     `json:"seat,omitempty"`   // decision
	Hand     int     `json:"hand,omitempty"`   // decision
	Choice   string  `json:"decision,omitempty"`
	// Cards are the cards an event names besides the one it deals: a draw-poker exchange's
	// thrown cards (decision), the cards a misread's frames saw (fault). Never public.
	Cards  []card.Card `json:"cards,omitempty"`
	Need   *Need       `json:"need,omitempty"` // guide
	Say    []string    `json:"say,omitempty"`  // guide: in English
	Msgs   []Msg       `json:"msgs,omitempty"` // guide: the same lines as message codes (any language)
	Result string      `json:"result,omitempty"`
	Hands  []Hand      `json:"hands,omitempty"`  // round.result
	Dealer *Hand       `json:"dealer,omitempty"` // round.result
	// Unshown counts the round's cards dealt face down and never turned up (round.result): the
	// public feed then leaves out Detail, which may name them (draw poker's discards).
	Unshown int             `json:"unshown,omitempty"`
	Detail  json.RawMessage `json:"detail,omitempty"` // round.result, table.action: the game's own object
	Settle  []Settlement    `json:"settlements,omitempty"`
	Net     *int64          `json:"net,omitempty"` // round.settled: players' total, cents
	OK      *bool           `json:"ok,omitempty"`  // decks.verified, shoe.ended
	// Attested: no device read the cards loaded, the dealer attested N complete decks
	// (shoe.loaded); the shoe's count verifies them.
	Attested bool   `json:"attested,omitempty"`
	Problem  string `json:"problem,omitempty"`
	// Missing and Extra are the cards a composition lacks or has too many of, once per card
	// (decks.verified, shoe.ended and their faults). Never public.
	Missing []card.Card `json:"missing,omitempty"`
	Extra   []card.Card `json:"extra,omitempty"`
	// Raw is a device's damaged line, quoted as it came (a misread fault). Never public.
	Raw     string      `json:"raw,omitempty"`
	Code    string      `json:"code,omitempty"`   // fault code
	Hold    bool        `json:"hold,omitempty"`   // fault: the round is held
	Reason  string      `json:"reason,omitempty"` // round.voided, fault.resolved
	Account *Accounting `json:"accounting,omitempty"`
	Device  string      `json:"device,omitempty"`
	State   string      `json:"state,omitempty"`
	// Hidden, on the public feed only: the event carries a card identity there that the public
	// feed leaves out (a face-down card, a fault's card, an exchange's cards, …).
	Hidden bool `json:"hidden,omitempty"`
	// The progressive events (progressive.go): the pool, the hands claimed (their cards never
	// public), the prizes paid and the random prize drawn (its card never public).
	Pool    string      `json:"pool,omitempty"`
	Claims  []Claim     `json:"claims,omitempty"`
	Payouts []PrizePaid `json:"payouts,omitempty"`
	Draw    *PrizeDraw  `json:"draw,omitempty"`
	// EngineState is the game's state kept across rounds (the chemin de fer bank), on
	// shoe.loaded, shoe.ended and table.action: a restarted daemon restores its engine from it.
	EngineState json.RawMessage `json:"engine_state,omitempty"`

	// The seal (seal.go), present on the wire only: the previous payload's hash, the signing
	// key's id and the signature. Always the last three members of a wire payload.
	Prev string `json:"prev,omitempty"`
	Kid  string `json:"kid,omitempty"`
	Sig  string `json:"sig,omitempty"`
}

// Source names for Event.Source.
const SourceTable = "table" // the table's daemon

// Public returns the event as the public feed carries it (RULES.md §1 "Hidden cards"). It
// works on the structure alone, never on words, and is a function of the secure payload (the
// public form of a decoded secure payload is the public payload):
//
//   - Card is kept only where the event shows it face up (a face-up card or burn, a reveal);
//     anywhere else (a face-down card, a fault's card, a card entered by hand) it goes, and
//     Hidden says so.
//   - Cards, Missing and Extra (cards named but not shown), a Need's Exchanges (the closed
//     cards a seat may throw) and Raw (a device's own bytes) never reach the public feed.
//   - In a round.result, the cards a Hand marks Down go with the hand's total and category,
//     and Detail goes when any card of the round stayed face down (Unshown).
//   - Words that could tell about hidden cards in other ways (a fault's problem, the
//     dealer's guidance in words or codes, which say totals) stay on the secure feed.
//
// A hidden card's identity reaches the public feed only in a later Revealed event.
func (e Event) Public() Event {
	if e.Card != nil && (e.Face == nil || *e.Face != FaceUp) {
		e.Card, e.Hidden = nil, true
	}
	if len(e.Cards)+len(e.Missing)+len(e.Extra) > 0 {
		e.Hidden = true
	}
	e.Cards, e.Missing, e.Extra = nil, nil, nil
	e.Raw = ""
	if len(e.Claims) > 0 {
		// A claim's hand may be a folded one, whose cards go to the discards unseen.
		cs := make([]Claim, len(e.Claims))
		for i, c := range e.Claims {
			c.Cards, c.Category = nil, ""
			cs[i] = c
		}
		e.Claims, e.Hidden = cs, true
	}
	if e.Draw != nil && e.Draw.Card != nil {
		d := *e.Draw
		d.Card, e.Draw, e.Hidden = nil, &d, true
	}
	if e.Need != nil && len(e.Need.Exchanges) > 0 {
		n := *e.Need
		n.Exchanges, e.Need, e.Hidden = nil, &n, true
	}
	switch e.Type {
	case Guide, ProgressiveLink:
		e.Say, e.Msgs = nil, nil
	case Fault:
		e.Problem = ""
	}
	if e.Hands != nil {
		hs := make([]Hand, len(e.Hands))
		for i, h := range e.Hands {
			hs[i] = h.public()
			e.Hidden = e.Hidden || len(h.Down) > 0
		}
		e.Hands = hs
	}
	if e.Dealer != nil {
		d := e.Dealer.public()
		e.Hidden = e.Hidden || len(e.Dealer.Down) > 0
		e.Dealer = &d
	}
	if e.Unshown > 0 {
		e.Detail, e.Hidden = nil, true
	}
	return e
}

// public returns the hand without the cards it marks Down, and without what they would tell.
func (h Hand) public() Hand {
	if len(h.Down) == 0 {
		return h
	}
	var cs []card.Card
	for i, c := range h.Cards {
		if !slices.Contains(h.Down, i) {
			cs = append(cs, c)
		}
	}
	h.Cards, h.Down, h.Total, h.Category = cs, nil, 0, ""
	return h
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

// types are the event types of schema version 1, in the README's order.
var types = []Type{ShoeLoaded, DecksVerified, Shuffled, Cut, CutCardPlaced, Burn, RoundOpened, CardDealt, Revealed,
	Decision, Guide, CutCardReached, RoundResult, RoundSettled, RoundVoided, ShoeEnded, Fault, TableAction,
	FaultResolved, ProgressiveBet, ProgressiveHand, ProgressiveAward, ProgressiveLink, TableOpened, TableClosed, DealerSignedIn,
	DealerSignedOut, LimitsChanged, CardCounted, CardsReturned, DeviceStatus}

var knownTypes = func() map[Type]bool {
	m := map[Type]bool{}
	for _, t := range types {
		m[t] = true
	}
	return m
}()

// Types returns the event types of schema version 1.
func Types() []Type { return append([]Type(nil), types...) }
