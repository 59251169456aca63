package tablebus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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

// Limit is a table's minimum and maximum stake on one spot, in cents (limits.changed, and the
// limits command; seed 003).
type Limit struct {
	Spot string `json:"spot"`
	Min  int64  `json:"min"`
	Max  int64  `json:"max"`
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
	// Returned counts the cards a continuous shuffler took back after each round: dealt +
	// burned + left − returned = want.
	Returned int `json:"returned,omitempty"`
	Total    int `json:"total"`
	Want     int `json:"want"`
}

// Msg is one line of the dealer's guidance as a code of the message catalogs (games/text, one
// per language) and its named arguments (guide's msgs): a terminal says it in the dealer's
// language, where say is English. Like say, it stays on the secure feed.
type Msg struct {
	Code string            `json:"code"`
	Args map[string]MsgArg `json:"args,omitempty"`
}

// MsgArg is one argument of a Msg: a number (a JSON number), a term said in the same language
// (a JSON object, a Msg) or words kept as they are in every language (a JSON string).
type MsgArg struct {
	Num  int64
	Term *Msg
	Text *string
}

// MarshalJSON writes the number, the term's object or the words' string.
func (a MsgArg) MarshalJSON() ([]byte, error) {
	switch {
	case a.Term != nil:
		return json.Marshal(a.Term)
	case a.Text != nil:
		return json.Marshal(*a.Text)
	}
	return strconv.AppendInt(nil, a.Num, 10), nil
}

// UnmarshalJSON reads a number (an integer), an object (strictly, as a Msg) or a string.
func (a *MsgArg) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*a = MsgArg{}
	switch {
	case len(b) == 0:
		return errors.New("tablebus: empty message argument")
	case b[0] == '{':
		var m Msg
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&m); err != nil {
			return fmt.Errorf("tablebus: message argument: %w", err)
		}
		if m.Code == "" {
			return errors.New("tablebus: message argument: a term without its code")
		}
		a.Term = &m
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("tablebus: message argument: %w", err)
		}
		a.Text = &s
	default:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return fmt.Errorf("tablebus: message argument %s: want an integer, a string or a term", b)
		}
		a.Num = n
	}
	return nil
}
