package games

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Msg is one line of the dealer's guidance as a code of the message catalogs and its named
// arguments: the engines say nothing in any language, and Text renders a Msg in one
// (games/text/<lang>.txt, one catalog per language). "player wins 7 to 5" is
//
//	M("bac.wins", T("side", M("place.player")), N("a", 7), N("b", 5))
//
// Arguments name no card (RULES.md §1 "Hidden cards"): a card's identity travels in card fields.
type Msg struct {
	Code string
	Args map[string]Arg
}

// ArgKind is what an argument holds.
type ArgKind uint8

// The kinds of argument.
const (
	ArgNum  ArgKind = iota // a number, written as it is (a seat, a total, cents)
	ArgTerm                // a word or phrase, itself a Msg rendered in the same language
	ArgText                // words kept as they are in every language (a device's own message, an id)
)

// Arg is one argument of a Msg.
type Arg struct {
	Kind ArgKind
	Num  int64
	Term *Msg
	Text string
}

// A NamedArg is an argument with its name, as M takes them.
type NamedArg struct {
	Name string
	Arg  Arg
}

// N is a number argument.
func N[T ~int | ~int64](name string, v T) NamedArg {
	return NamedArg{name, Arg{Kind: ArgNum, Num: int64(v)}}
}

// T is a term argument: words of the catalog, in the language of the whole line.
func T(name string, m Msg) NamedArg { return NamedArg{name, Arg{Kind: ArgTerm, Term: &m}} }

// S is a text argument, the same in every language (a device's own words).
func S(name, text string) NamedArg { return NamedArg{name, Arg{Kind: ArgText, Text: text}} }

// M returns the message code with its arguments.
func M(code string, args ...NamedArg) Msg {
	m := Msg{Code: code}
	if len(args) > 0 {
		m.Args = make(map[string]Arg, len(args))
		for _, a := range args {
			m.Args[a.Name] = a.Arg
		}
	}
	return m
}

// String renders the message in English (the feed's "say").
func (m Msg) String() string { return Text(English, m) }

// GoString writes the message as code and arguments, for test failures.
func (m Msg) GoString() string {
	var b strings.Builder
	b.WriteString(m.Code)
	for _, k := range slices.Sorted(maps.Keys(m.Args)) {
		a := m.Args[k]
		switch a.Kind {
		case ArgNum:
			fmt.Fprintf(&b, " %s=%d", k, a.Num)
		case ArgTerm:
			fmt.Fprintf(&b, " %s=(%#v)", k, *a.Term)
		default:
			fmt.Fprintf(&b, " %s=%q", k, a.Text)
		}
	}
	return b.String()
}

// Words renders messages in English, one string each.
func Words(ms []Msg) []string {
	if ms == nil {
		return nil
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// PlaceMsg is the place as words: "banker", "box 3", "box 3 hand 2" (Place.String).
func PlaceMsg(p Place) Msg {
	switch {
	case p.Seat == 0:
		return M("place." + p.Name)
	case p.Hand == 0:
		return M("place."+p.Name, N("seat", p.Seat))
	}
	return M("place."+p.Name+"-hand", N("seat", p.Seat), N("hand", p.Hand+1))
}

// NeedMsg is the need as words: "card to banker", "card to dealer face down", "decision from
// seat 2", "burn a card" (Need.String without the options, which the dealer terminal shows as
// one button each).
func NeedMsg(n Need) Msg {
	switch n.Kind {
	case NeedCard:
		if n.Face == FaceDown {
			return M("need.card-down", T("place", PlaceMsg(n.To)))
		}
		return M("need.card", T("place", PlaceMsg(n.To)))
	case NeedBurn:
		return M("need.burn")
	case NeedDecision:
		if n.Hand > 0 {
			return M("need.decision-hand", N("seat", n.Seat), N("hand", n.Hand+1))
		}
		return M("need.decision", N("seat", n.Seat))
	}
	return M("need.done")
}

// DecisionMsg is a decision code as words for a button: "hit", "stand", "raise"; an option with
// an argument ("raise:200-10000", "exchange:Kd,3c") is said by its verb.
func DecisionMsg(option string) Msg {
	verb, _, _ := strings.Cut(option, ":")
	return M("decision." + strings.ToLower(verb))
}
