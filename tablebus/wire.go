package tablebus

import (
	"fmt"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// The feed's own types for what its events carry (schema version 1). They belong to the wire,
// not to the game engines: games.go maps the engines' types to them and back, in that one
// file, so that a change in games/ never changes a payload by accident. Each marshals exactly
// as the README's event table says; cards are card.Card (RULES.md §0 notation).

// Face says whether a card is dealt face up or face down (RULES.md §1 "Hidden cards").
type Face uint8

// The two faces. The zero value is FaceUp (omitted from a Need).
const (
	FaceUp Face = iota
	FaceDown
)

func (f Face) String() string {
	if f == FaceDown {
		return "down"
	}
	return "up"
}

// MarshalText writes "up" or "down".
func (f Face) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads "up" or "down".
func (f *Face) UnmarshalText(b []byte) error {
	switch string(b) {
	case "up":
		*f = FaceUp
	case "down":
		*f = FaceDown
	default:
		return fmt.Errorf("tablebus: unknown face %q", b)
	}
	return nil
}

// Place is where a card goes: a house hand by name ("player", "banker", "dealer", "noir",
// "rouge", "board"), or a seat's box ("box") with the hand's index within it (splits).
type Place struct {
	Name string `json:"name"`
	Seat int    `json:"seat,omitempty"`
	Hand int    `json:"hand,omitempty"`
}

// Bet is a stake on one spot of the layout, in cents (round.opened, and the bets command).
type Bet struct {
	Seat   int    `json:"seat"`
	Spot   string `json:"spot"`
	Amount int64  `json:"amount"`
}

// NeedKind is what a round waits for (guide's need).
type NeedKind uint8

// What a round can wait for.
const (
	NeedDone NeedKind = iota
	NeedCard
	NeedBurn
	NeedDecision
)

var needNames = [...]string{"done", "card", "burn", "decision"}

func (k NeedKind) String() string {
	if int(k) < len(needNames) {
		return needNames[k]
	}
	return fmt.Sprintf("NeedKind(%d)", uint8(k))
}

// MarshalText writes the kind's name.
func (k NeedKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *NeedKind) UnmarshalText(b []byte) error {
	for i, n := range needNames {
		if n == string(b) {
			*k = NeedKind(i)
			return nil
		}
	}
	return fmt.Errorf("tablebus: unknown need %q", b)
}

// Need is what the round waits for next (guide).
type Need struct {
	Kind    NeedKind `json:"kind"`
	To      Place    `json:"to,omitzero"`       // card: where it goes
	Face    Face     `json:"face,omitempty"`    // card: "down" when dealt face down
	Seat    int      `json:"seat,omitempty"`    // decision: whose
	Hand    int      `json:"hand,omitempty"`    // decision: which of the seat's hands
	Options []string `json:"options,omitempty"` // decision: what the rules allow, in words
	// Exchanges are the exchanges a draw-poker seat may make: the closed cards each would
	// throw (RULES.md §8 "exchange:Kd,3c"); Options says "exchange" once in their place.
	// Never public.
	Exchanges [][]card.Card `json:"exchanges,omitempty"`
}

// Hand is one hand of a round.result: a house hand by Name, or a seat's hand.
type Hand struct {
	Seat     int         `json:"seat,omitempty"`
	Hand     int         `json:"hand"`
	Name     string      `json:"name,omitempty"`
	Cards    []card.Card `json:"cards"`
	Total    int         `json:"total"`
	Category string      `json:"category,omitempty"` // poker: the hand's category name
	Outcome  string      `json:"outcome,omitempty"`  // "win", "lose", "push", "bust", …
	// Down marks the cards still face down when the round ended (folded or unshown poker
	// hands), by their index in Cards: secure feed only. The public feed leaves those cards
	// out, and with them the hand's Total and Category (what they would tell).
	Down []int `json:"down,omitempty"`
}

// Settlement is what one bet won or lost, in cents: Net > 0 when the player wins.
type Settlement struct {
	Seat   int    `json:"seat"`
	Spot   string `json:"spot"`
	Hand   int    `json:"hand"`
	Amount int64  `json:"amount"`
	Net    int64  `json:"net"`
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
