// Package games defines what every game engine is to the rest of Sabot: a pure, synchronous
// machine that is told the round's bets, asked what it needs next (a card to a place, a burn, a
// player's decision, or nothing), fed cards and decisions, and asked for the round's outcome.
//
// The same engine serves three callers: the shoe loop in the daemon (which uses Need to know where
// each card goes and whether it is dealt face down), the bus consumer that runs as
// `sabot engine`, and PlayRound, the `sabot games round` contract of RULES.md §8. Engines do no
// I/O, read no clock and start no goroutines.
//
// Money is integer cents everywhere (int64). No payout is ever computed in floating point.
package games

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Engine is one table's game. Implementations live in games/<family> and are made by
// games/catalog.New. An engine keeps state across rounds where the game has some (the chemin de
// fer bank); Begin resets everything that belongs to one round.
type Engine interface {
	// Game returns the game id of RULES.md ("punto-banco", "blackjack", …).
	Game() string
	// Rules returns the preset in force ("classic", …), or "" where the game has none.
	Rules() string
	// Begin starts a round with the bets on the layout; bets are validated against the
	// spots the game knows and the table's limits. Bets may be empty.
	Begin(bets []Bet) error
	// Need says what the round needs next. It is NeedDone once the round is complete.
	Need() Need
	// Card applies the next card that left the shoe, where Need asked for a card. A card the
	// rules do not allow here is a *RuleError and leaves the engine unchanged.
	Card(c card.Card) (Step, error)
	// Burn applies a burn the round asked for (NeedBurn). c is card.None where the burn was not
	// recorded (RULES.md §8: round inputs list cards with burns removed).
	Burn(c card.Card) (Step, error)
	// Decide applies a decision of the seat Need asked (RULES.md §8 codes: "H", "S", "bet", …).
	Decide(seat int, decision string) (Step, error)
	// Outcome returns the settled round once Need is NeedDone.
	Outcome() (*Outcome, error)
}

// Explainer is implemented by an engine that can say why a decision was never asked for, e.g.
// a blackjack split ace that received another ace ("split aces are not resplit"). PlayRound adds
// the reason to its error.
type Explainer interface {
	Unasked(seat int, decision string) string
}

// Bet is a stake on one spot of the layout, in integer cents.
type Bet struct {
	Seat   int    `json:"seat"`
	Spot   string `json:"spot"`
	Amount int64  `json:"amount"`
}

// Face says whether a card is dealt face up or face down (RULES.md §1 "Hidden cards").
type Face uint8

// The two faces.
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
		return fmt.Errorf("games: unknown face %q", b)
	}
	return nil
}

// Place is where a card goes: a named house hand ("player", "banker", "dealer", "noir", "rouge",
// "board") with Seat 0, or a seat's box ("box") with the hand index within it (splits).
type Place struct {
	Name string `json:"name"`
	Seat int    `json:"seat,omitempty"`
	Hand int    `json:"hand,omitempty"`
}

func (p Place) String() string {
	if p.Seat == 0 {
		return p.Name
	}
	if p.Hand == 0 {
		return fmt.Sprintf("%s %d", p.Name, p.Seat)
	}
	return fmt.Sprintf("%s %d hand %d", p.Name, p.Seat, p.Hand+1)
}

// NeedKind is the kind of thing a round waits for.
type NeedKind uint8

// What a round can wait for.
const (
	NeedDone     NeedKind = iota // the round is complete: call Outcome
	NeedCard                     // the next card from the shoe, to Need.To, face Need.Face
	NeedBurn                     // a card burned inside the round (hold'em streets)
	NeedDecision                 // a decision from Need.Seat, one of Need.Options
)

func (k NeedKind) String() string {
	switch k {
	case NeedDone:
		return "done"
	case NeedCard:
		return "card"
	case NeedBurn:
		return "burn"
	case NeedDecision:
		return "decision"
	}
	return fmt.Sprintf("NeedKind(%d)", uint8(k))
}

// MarshalText writes the kind's name.
func (k NeedKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *NeedKind) UnmarshalText(b []byte) error {
	for _, x := range []NeedKind{NeedDone, NeedCard, NeedBurn, NeedDecision} {
		if x.String() == string(b) {
			*k = x
			return nil
		}
	}
	return fmt.Errorf("games: unknown need %q", b)
}

// Need is what the round waits for next.
type Need struct {
	Kind    NeedKind `json:"kind"`
	To      Place    `json:"to,omitzero"`       // NeedCard: where the card goes
	Face    Face     `json:"face,omitempty"`    // NeedCard: face up or down
	Seat    int      `json:"seat,omitempty"`    // NeedDecision: whose decision
	Hand    int      `json:"hand,omitempty"`    // NeedDecision: which of the seat's hands
	Options []string `json:"options,omitempty"` // NeedDecision: the decisions the rules allow
}

// String says the need in the dealer's words: "card to banker", "decision from seat 2: H S D".
func (n Need) String() string {
	switch n.Kind {
	case NeedCard:
		s := "card to " + n.To.String()
		if n.Face == FaceDown {
			s += " face down"
		}
		return s
	case NeedBurn:
		return "burn a card"
	case NeedDecision:
		s := fmt.Sprintf("decision from seat %d", n.Seat)
		if n.Hand > 0 {
			s += fmt.Sprintf(" hand %d", n.Hand+1)
		}
		if len(n.Options) > 0 {
			s += ": " + strings.Join(optionWords(n.Options), " ")
		}
		return s
	}
	return "round complete"
}

// optionWords says the options without the cards any of them names (draw poker's
// "exchange:Kd,3c"): those are said once by their verb, "exchange:…". Words name no card: a
// card's identity travels on the feed only in a card field (RULES.md §1 "Hidden cards").
func optionWords(opts []string) []string {
	var out []string
	said := map[string]bool{}
	for _, o := range opts {
		verb, arg, ok := strings.Cut(o, ":")
		if _, err := card.ParseList(arg); !ok || err != nil {
			out = append(out, o)
			continue
		}
		if !said[verb] {
			said[verb] = true
			out = append(out, verb+":…")
		}
	}
	return out
}

// Step is what an engine says after a card or a decision.
type Step struct {
	// Say is the dealer's guidance, e.g. "player draws", "banker stands on 6", as message
	// codes (Msg): Text says them in a language, String in English.
	Say []Msg `json:"-"`
	// Reveal lists cards of this round, by their index among the round's cards (burns
	// included, from 0), that are now turned face up at the table.
	Reveal []int `json:"reveal,omitempty"`
}

// Hand is one hand in an outcome: a house hand by Name, or a seat's hand.
type Hand struct {
	Seat     int         `json:"seat,omitempty"`
	Hand     int         `json:"hand"`
	Name     string      `json:"name,omitempty"`
	Cards    []card.Card `json:"cards"`
	Total    int         `json:"total"`
	Category string      `json:"category,omitempty"` // poker: the hand's category name
	Outcome  string      `json:"outcome,omitempty"`  // "win", "lose", "push", "bust", "blackjack", …
}

// Settlement is what one bet won or lost. Net is positive when the player wins, negative when the
// player loses, 0 on a push; surrender and commission are included (RULES.md §8).
type Settlement struct {
	Seat   int    `json:"seat"`
	Spot   string `json:"spot"`
	Hand   int    `json:"hand"`
	Amount int64  `json:"amount"`
	Net    int64  `json:"net"`
}

// Outcome is a complete round, in the shape RULES.md §8 gives for `sabot games round`.
type Outcome struct {
	Game        string       `json:"game"`
	Rules       string       `json:"rules,omitempty"`
	CardsUsed   int          `json:"cards_used"`
	Dealer      *Hand        `json:"dealer,omitempty"`
	Hands       []Hand       `json:"hands"`
	Settlements []Settlement `json:"settlements"`
	Result      string       `json:"result"`
	// Detail holds what only one game reports (a chemin de fer bank, progressive prizes);
	// it must marshal to a JSON object.
	Detail any `json:"detail,omitempty"`
}

// Net returns the sum of every settlement's net: what the players won (positive) or lost.
func (o *Outcome) Net() int64 {
	var n int64
	for _, s := range o.Settlements {
		n += s.Net
	}
	return n
}

// RuleError is a card or a decision the rules do not allow, or a bet the table refuses. It names
// the seat (0 for the house or the table), what was refused and the rule that refuses it.
type RuleError struct {
	Game string
	Seat int
	What string // the card, decision or bet refused, e.g. "D", "5h", "tie 500"
	Rule string // why, citing the rule: "double only on 9, 10 or 11 (RULES.md §4 retiro)"
}

func (e *RuleError) Error() string {
	if e.Seat > 0 {
		return fmt.Sprintf("%s: seat %d: %s: %s", e.Game, e.Seat, e.What, e.Rule)
	}
	return fmt.Sprintf("%s: %s: %s", e.Game, e.What, e.Rule)
}

// OutOfTurn is the RuleError for a card dealt where the rules allow none (RULES.md §4 "card out
// of turn"; §2 "dealer error").
func OutOfTurn(game string, c card.Card, why string) *RuleError {
	return &RuleError{Game: game, What: c.String(), Rule: "card out of turn: " + why}
}

// Persistent is an engine that keeps state across rounds and shoes (the chemin de fer bank). The
// shoe machine publishes its Snapshot with every shoe's loading and end and every table action,
// so that a restarted daemon can Restore it before replaying the open shoe.
type Persistent interface {
	Snapshot() (json.RawMessage, error)
	Restore(json.RawMessage) error
}

// Action is a between-rounds action from the dealer terminal on state a game keeps across rounds
// (the chemin de fer bank of seed 000): see catalog.Manage.
type Action struct {
	Action string `json:"action"`
	Seat   int    `json:"seat,omitempty"`
	Amount int64  `json:"amount,omitempty"`
}

// Limit is a table's minimum and maximum stake on one spot, in cents (seed 003).
type Limit struct {
	Spot string `json:"spot"`
	Min  int64  `json:"min"`
	Max  int64  `json:"max"`
}

// Layout is an engine that tells the dealer terminal the spots of its layout and the table's
// limits, and takes new limits between rounds (a supervisor's limits change). Every engine of
// the catalog is one.
type Layout interface {
	// Spots returns the spots a bet is placed on before the deal, in the layout's order.
	Spots() []string
	// Limits returns the limits in force, spot by spot (seed 003); a spot without one takes
	// any positive amount.
	Limits() []Limit
	// SetLimits replaces the limits from the next round on: each names one of Spots, once,
	// with 0 < min ≤ max. A refused set changes nothing.
	SetLimits([]Limit) error
}

// WithLimits returns c with limits ls, checked against the game's spots (Layout.SetLimits).
func (c Config) WithLimits(ls []Limit, spots []string) (Config, error) {
	seen := map[string]bool{}
	for _, l := range ls {
		switch {
		case !slices.Contains(spots, l.Spot):
			return c, &RuleError{Game: c.Game, What: "limits " + l.Spot, Rule: fmt.Sprintf("not a spot of the layout (%s)", strings.Join(spots, ", "))}
		case seen[l.Spot]:
			return c, &RuleError{Game: c.Game, What: "limits " + l.Spot, Rule: "the spot's limit is given twice"}
		case l.Min <= 0 || l.Max < l.Min:
			return c, &RuleError{Game: c.Game, What: fmt.Sprintf("limits %s %d–%d", l.Spot, l.Min, l.Max), Rule: "a limit is 0 < minimum ≤ maximum, in cents"}
		}
		seen[l.Spot] = true
	}
	c.Limits = slices.Clone(ls)
	return c, nil
}

// Config is a table's game configuration.
type Config struct {
	Game  string // game id of RULES.md
	Rules string // preset; "" for the game's default
	Decks int    // 0 for the game's default
	// Limits per spot; a spot without a limit accepts any positive amount.
	Limits []Limit
	// Options holds game-specific settings by name (e.g. "tie31": "prison" in trente et
	// quarante); each engine documents its own and rejects names it does not know.
	Options map[string]string
}

// Limit returns the limit for spot and whether there is one.
func (c Config) Limit(spot string) (Limit, bool) {
	for _, l := range c.Limits {
		if l.Spot == spot {
			return l, true
		}
	}
	return Limit{}, false
}

// CheckBet validates one bet's seat, amount and limit; engines call it from Begin after checking
// the spot is one of theirs.
func (c Config) CheckBet(b Bet) error {
	what := fmt.Sprintf("%s %d", b.Spot, b.Amount)
	if b.Seat <= 0 {
		return &RuleError{Game: c.Game, What: what, Rule: "a bet must name its seat (box) 1 or above"}
	}
	if b.Amount <= 0 {
		return &RuleError{Game: c.Game, Seat: b.Seat, What: what, Rule: "a bet must be a positive amount of cents"}
	}
	if l, ok := c.Limit(b.Spot); ok && (b.Amount < l.Min || b.Amount > l.Max) {
		return &RuleError{Game: c.Game, Seat: b.Seat, What: what,
			Rule: fmt.Sprintf("outside the table's %s limit %d–%d (seed 003)", b.Spot, l.Min, l.Max)}
	}
	return nil
}
