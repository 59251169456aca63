package tablebus

// This file is the one place where the game engines' types (package games) become the feed's
// wire types (wire.go) and back: no other file of this package imports games
// (TestOnlyGamesGoImportsGames), so a change to a game type cannot change a payload unseen.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// FaceOf returns the wire face of a game's face.
func FaceOf(f games.Face) Face {
	if f == games.FaceDown {
		return FaceDown
	}
	return FaceUp
}

// Game returns the face as the engines write it.
func (f Face) Game() games.Face {
	if f == FaceDown {
		return games.FaceDown
	}
	return games.FaceUp
}

// PlaceOf returns the wire place of a game's place.
func PlaceOf(p games.Place) Place { return Place{Name: p.Name, Seat: p.Seat, Hand: p.Hand} }

// Game returns the place as the engines write it.
func (p Place) Game() games.Place { return games.Place{Name: p.Name, Seat: p.Seat, Hand: p.Hand} }

// String says the place in the dealer's words: "banker", "box 2 hand 2".
func (p Place) String() string { return p.Game().String() }

// BetsOf returns the wire bets of a round's bets.
func BetsOf(bs []games.Bet) []Bet {
	if bs == nil {
		return nil
	}
	out := make([]Bet, len(bs))
	for i, b := range bs {
		out[i] = Bet{Seat: b.Seat, Spot: b.Spot, Amount: b.Amount}
	}
	return out
}

// GameBets returns wire bets as the engines take them.
func GameBets(bs []Bet) []games.Bet {
	if bs == nil {
		return nil
	}
	out := make([]games.Bet, len(bs))
	for i, b := range bs {
		out[i] = games.Bet{Seat: b.Seat, Spot: b.Spot, Amount: b.Amount}
	}
	return out
}

// LimitsOf returns the wire limits of a table's limits.
func LimitsOf(ls []games.Limit) []Limit {
	if ls == nil {
		return nil
	}
	out := make([]Limit, len(ls))
	for i, l := range ls {
		out[i] = Limit{Spot: l.Spot, Min: l.Min, Max: l.Max}
	}
	return out
}

// GameLimits returns wire limits as the engines take them.
func GameLimits(ls []Limit) []games.Limit {
	if ls == nil {
		return nil
	}
	out := make([]games.Limit, len(ls))
	for i, l := range ls {
		out[i] = games.Limit{Spot: l.Spot, Min: l.Min, Max: l.Max}
	}
	return out
}

// NeedOf returns the wire need of what a game waits for. Options that name cards (draw
// poker's exchanges) go to Exchanges, with "exchange" once in Options where the first was.
func NeedOf(n games.Need) Need {
	w := Need{Kind: NeedKind(n.Kind), To: PlaceOf(n.To), Face: FaceOf(n.Face), Seat: n.Seat, Hand: n.Hand}
	for _, o := range n.Options {
		d, cards := SplitDecision(o)
		if cards == nil {
			w.Options = append(w.Options, o)
			continue
		}
		if w.Exchanges == nil {
			w.Options = append(w.Options, d)
		}
		w.Exchanges = append(w.Exchanges, cards)
	}
	return w
}

// Game returns the need as the engines write it, each exchange an option again.
func (n Need) Game() games.Need {
	g := games.Need{Kind: games.NeedKind(n.Kind), To: n.To.Game(), Face: n.Face.Game(), Seat: n.Seat, Hand: n.Hand}
	for _, o := range n.Options {
		if o != exchange || n.Exchanges == nil {
			g.Options = append(g.Options, o)
			continue
		}
		for _, cs := range n.Exchanges {
			g.Options = append(g.Options, Event{Choice: exchange, Cards: cs}.GameDecision())
		}
	}
	return g
}

// String says the need in the dealer's words: "card to banker", "decision from seat 2: H S".
func (n Need) String() string { return n.Game().String() }

// HandOf returns the wire hand of an outcome's hand, with no card marked down.
func HandOf(h games.Hand) Hand {
	return Hand{Seat: h.Seat, Hand: h.Hand, Name: h.Name, Cards: append([]card.Card(nil), h.Cards...), Total: h.Total,
		Category: h.Category, Outcome: h.Outcome}
}

// Game returns the hand as the engines write it (Down has no place there).
func (h Hand) Game() games.Hand {
	return games.Hand{Seat: h.Seat, Hand: h.Hand, Name: h.Name, Cards: append([]card.Card(nil), h.Cards...), Total: h.Total,
		Category: h.Category, Outcome: h.Outcome}
}

// SettlementsOf returns the wire settlements of an outcome's.
func SettlementsOf(ss []games.Settlement) []Settlement {
	if ss == nil {
		return nil
	}
	out := make([]Settlement, len(ss))
	for i, s := range ss {
		out[i] = Settlement{Seat: s.Seat, Spot: s.Spot, Hand: s.Hand, Amount: s.Amount, Net: s.Net}
	}
	return out
}

// GameSettlements returns wire settlements as the engines write them.
func GameSettlements(ss []Settlement) []games.Settlement {
	if ss == nil {
		return nil
	}
	out := make([]games.Settlement, len(ss))
	for i, s := range ss {
		out[i] = games.Settlement{Seat: s.Seat, Spot: s.Spot, Hand: s.Hand, Amount: s.Amount, Net: s.Net}
	}
	return out
}

// ResultOf returns the round.result and round.settled events of an outcome (without the
// envelope). The outcome's Detail, whatever its game type, goes on the wire as the JSON object
// it marshals to.
func ResultOf(o *games.Outcome) (result, settled Event, err error) {
	result = Event{Type: RoundResult, Game: o.Game, Result: o.Result}
	if o.Hands != nil {
		result.Hands = make([]Hand, len(o.Hands))
		for i, h := range o.Hands {
			result.Hands[i] = HandOf(h)
		}
	}
	if o.Dealer != nil {
		d := HandOf(*o.Dealer)
		result.Dealer = &d
	}
	if o.Detail != nil {
		b, err := json.Marshal(o.Detail)
		if err != nil {
			return Event{}, Event{}, fmt.Errorf("tablebus: the %s outcome's detail: %w", o.Game, err)
		}
		if string(b) != "null" {
			result.Detail = b
		}
	}
	net := o.Net()
	settled = Event{Type: RoundSettled, Settle: SettlementsOf(o.Settlements), Net: &net}
	return result, settled, nil
}

// DetailOf returns what a game reports beside a table action (the chemin de fer bank after
// it) as the JSON object the feed carries.
func DetailOf(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil, err
	}
	return b, nil
}

// exchange is the one decision of RULES.md §8 that names cards: draw poker's "exchange:Kd,3c"
// throws the named closed cards ("exchange:" keeps all five).
const exchange = "exchange"

// SplitDecision returns a decision as the feed carries it: the decision without the cards it
// names, and those cards (a typed field the public feed leaves out). "exchange:Kd,3c" is
// "exchange" with Kd and 3c; every other decision is itself, with no cards.
func SplitDecision(d string) (string, []card.Card) {
	verb, list, ok := strings.Cut(d, ":")
	if !ok || !strings.EqualFold(verb, exchange) {
		return d, nil
	}
	cs, err := card.ParseList(list)
	if err != nil {
		return d, nil // not an exchange an engine accepts; never published as such
	}
	if cs == nil {
		cs = []card.Card{}
	}
	return exchange, cs
}

// GameDecision returns a decision event's decision as the engines take it: SplitDecision's
// inverse.
func (e Event) GameDecision() string {
	if e.Choice != exchange {
		return e.Choice
	}
	s := make([]string, len(e.Cards))
	for i, c := range e.Cards {
		s[i] = c.String()
	}
	return exchange + ":" + strings.Join(s, ",")
}

// MsgOf returns the wire form of a guidance message.
func MsgOf(m games.Msg) Msg {
	w := Msg{Code: m.Code}
	if len(m.Args) > 0 {
		w.Args = make(map[string]MsgArg, len(m.Args))
		for k, a := range m.Args {
			switch a.Kind {
			case games.ArgTerm:
				t := MsgOf(*a.Term)
				w.Args[k] = MsgArg{Term: &t}
			case games.ArgText:
				s := a.Text
				w.Args[k] = MsgArg{Text: &s}
			default:
				w.Args[k] = MsgArg{Num: a.Num}
			}
		}
	}
	return w
}

// MsgsOf returns the wire form of guidance messages.
func MsgsOf(ms []games.Msg) []Msg {
	if ms == nil {
		return nil
	}
	out := make([]Msg, len(ms))
	for i, m := range ms {
		out[i] = MsgOf(m)
	}
	return out
}

// Game returns the message as the engines write it, to be said with games.Text.
func (m Msg) Game() games.Msg {
	g := games.Msg{Code: m.Code}
	if len(m.Args) > 0 {
		g.Args = make(map[string]games.Arg, len(m.Args))
		for k, a := range m.Args {
			switch {
			case a.Term != nil:
				t := a.Term.Game()
				g.Args[k] = games.Arg{Kind: games.ArgTerm, Term: &t}
			case a.Text != nil:
				g.Args[k] = games.Arg{Kind: games.ArgText, Text: *a.Text}
			default:
				g.Args[k] = games.Arg{Kind: games.ArgNum, Num: a.Num}
			}
		}
	}
	return g
}

// ClaimsOf maps an engine's progressive claims to the wire's (progressive.hand).
func ClaimsOf(cs []games.Claim) []Claim {
	out := make([]Claim, len(cs))
	for i, c := range cs {
		out[i] = Claim{Seat: c.Seat, Amount: c.Amount, Cards: c.Cards, Category: c.Category, Folded: c.Folded, Void: c.Void}
	}
	return out
}
