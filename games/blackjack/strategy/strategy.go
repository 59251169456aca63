package strategy

import (
	"fmt"
	"strings"

	"github.com/sabot-tables/sabot/games/blackjack"
)

// Action is a playing decision.
type Action uint8

// The actions, with their RULES.md §8 codes.
const (
	None Action = iota
	Hit
	Stand
	Double
	Split
	Surrender
)

// Code returns the RULES.md §8 decision code ("H", "S", "D", "P", "R").
func (a Action) Code() string {
	switch a {
	case Hit:
		return blackjack.CodeHit
	case Stand:
		return blackjack.CodeStand
	case Double:
		return blackjack.CodeDouble
	case Split:
		return blackjack.CodeSplit
	case Surrender:
		return blackjack.CodeSurrender
	}
	return "-"
}

func (a Action) String() string { return a.Code() }

// Allowed is a set of actions, one bit per Action.
type Allowed uint8

// Has reports whether a is in the set.
func (s Allowed) Has(a Action) bool { return s&(1<<a) != 0 }

// With returns the set with a added.
func (s Allowed) With(a Action) Allowed { return s | 1<<a }

// Pref is the order of preference of the non-split actions in one cell of the strategy: the
// first allowed one is played.
type Pref [4]Action

// Strategy is a total-dependent basic strategy for one rule set and shoe.
type Strategy struct {
	Rules blackjack.Rules
	Decks int
	// Hard and Soft hold the preference of each total (index 0–21) against each up card
	// (index 1 = ace … 10).
	Hard, Soft [22][11]Pref
	// Pairs says whether to split a pair of value v (1 = aces … 10) against up card u, where
	// splitting is allowed.
	Pairs [11][11]bool
	// EV is the expected value per initial unit of the first decision of each two-card hand of
	// a total against each up card, best action, as computed (for the PAR sheet); index by
	// Hard/Soft like above.
	HardEV, SoftEV [22][11]float64
}

// Decide returns the action for a hand of total t (soft says an ace counts 11), pair the value
// of its two cards where the hand is a pair of equal value (0 otherwise), against up card value
// up (1 = ace), among the allowed actions. It returns Stand when nothing else is allowed.
func (s *Strategy) Decide(t int, soft bool, pair int, up int, allowed Allowed) Action {
	if pair != 0 && allowed.Has(Split) && s.Pairs[pair][up] {
		return Split
	}
	if t > 21 {
		return Stand
	}
	p := &s.Hard[t][up]
	if soft {
		p = &s.Soft[t][up]
	}
	for _, a := range p {
		if a != None && allowed.Has(a) {
			return a
		}
	}
	return Stand
}

// chartCode is one cell of a chart for a two-card unsplit hand: H, S, D (double else hit),
// B (double else stand), R (surrender else hit), Q (surrender else stand), P (split).
func (s *Strategy) chartCode(p Pref, canDouble, canSurrender bool) byte {
	first, fallback := None, None
	for _, a := range p {
		switch {
		case a == None:
		case a == Double && !canDouble, a == Surrender && !canSurrender:
		case first == None:
			first = a
		case fallback == None && (a == Hit || a == Stand):
			fallback = a
		}
	}
	switch first {
	case Hit:
		return 'H'
	case Stand:
		return 'S'
	case Double:
		if fallback == Stand {
			return 'B'
		}
		return 'D'
	case Surrender:
		if fallback == Stand {
			return 'Q'
		}
		return 'R'
	}
	return '?'
}

// Row returns one chart row for two-card unsplit hands, up cards 2 … 10 then ace: kind "hard"
// or "soft" with a total, or "pair" with the pair's value (1 = aces); as in research
// gamemath.md §5.4.
func (s *Strategy) Row(kind string, n int) string {
	var b strings.Builder
	for _, up := range []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 1} {
		canS := s.Rules.Surrender.Allows(up)
		switch kind {
		case "hard":
			b.WriteByte(s.chartCode(s.Hard[n][up], s.Rules.Double.Allows(n), canS))
		case "soft":
			b.WriteByte(s.chartCode(s.Soft[n][up], s.Rules.Double.Allows(n), canS))
		case "pair":
			if s.Rules.MaxHands > 1 && s.Pairs[n][up] {
				b.WriteByte('P')
				continue
			}
			t, soft := 2*n, false
			if n == 1 {
				t, soft = 12, true
			}
			p := s.Hard[t][up]
			if soft {
				p = s.Soft[t][up]
			}
			b.WriteByte(s.chartCode(p, s.Rules.Double.Allows(t), canS))
		}
	}
	return b.String()
}

// Chart returns the whole strategy as a text chart: hard 5–20, soft 13–20 (A2–A9), pairs.
func (s *Strategy) Chart() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s 2 3 4 5 6 7 8 9 T A\n", "")
	row := func(name, r string) {
		fmt.Fprintf(&b, "%-6s", name)
		for i := range len(r) {
			fmt.Fprintf(&b, " %c", r[i])
		}
		b.WriteByte('\n')
	}
	for t := 5; t <= 20; t++ {
		row(fmt.Sprintf("%d", t), s.Row("hard", t))
	}
	for t := 13; t <= 20; t++ {
		row(fmt.Sprintf("A%d", t-11), s.Row("soft", t))
	}
	for v := 10; v >= 1; v-- {
		name := fmt.Sprintf("%d-%d", v, v)
		switch v {
		case 1:
			name = "A-A"
		case 10:
			name = "T-T"
		}
		row(name, s.Row("pair", v))
	}
	b.WriteString("H hit, S stand, D double else hit, B double else stand, R surrender else hit,\nQ surrender else stand, P split\n")
	return b.String()
}
