package blackjack

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Surrender says whether, and against which up cards, a hand may surrender (RULES.md §4 table,
// row "surrender"). Surrender is always half the bet back and only as the first decision of an
// unsplit hand; in a game without a peek it is an early surrender (the hand keeps its half even
// when the dealer then makes a blackjack).
type Surrender uint8

// The surrender kinds of the RULES.md §4 presets.
const (
	SurrenderNone   Surrender = iota // no surrender
	SurrenderAny                     // classic: late, after the peek, any up card
	SurrenderNotAce                  // real21, enhc: any up card but an ace
	SurrenderAceTen                  // retiro (seed 004): only against an ace or a ten-value up card
)

var surrenderNames = [...]string{"none", "any", "not-ace", "ace-ten"}

func (s Surrender) String() string {
	if int(s) < len(surrenderNames) {
		return surrenderNames[s]
	}
	return "Surrender(" + strconv.Itoa(int(s)) + ")"
}

// Allows reports whether a hand may surrender against an up card of pip value up (1 = ace).
func (s Surrender) Allows(up int) bool {
	switch s {
	case SurrenderAny:
		return true
	case SurrenderNotAce:
		return up != 1
	case SurrenderAceTen:
		return up == 1 || up == 10
	}
	return false
}

// Double says which first two cards may be doubled (RULES.md §4 table, row "double").
type Double uint8

// The doubling rules.
const (
	DoubleAny    Double = iota // any first two cards
	Double9to11                // first two cards totalling 9, 10 or 11 (retiro, seed 004)
	Double10to11               // first two cards totalling 10 or 11
	DoubleNone                 // no doubling
)

var doubleNames = [...]string{"any", "9-11", "10-11", "none"}

func (d Double) String() string {
	if int(d) < len(doubleNames) {
		return doubleNames[d]
	}
	return "Double(" + strconv.Itoa(int(d)) + ")"
}

// Allows reports whether a two-card hand of best total t may be doubled. A two-card hand with an
// ace totals 12 or more (soft), so the 9–11 rules never double a soft hand.
func (d Double) Allows(t int) bool {
	switch d {
	case DoubleAny:
		return true
	case Double9to11:
		return t >= 9 && t <= 11
	case Double10to11:
		return t == 10 || t == 11
	}
	return false
}

// SplitMatch says which pairs may be split (RULES.md §4 table, row "split: which pairs").
type SplitMatch uint8

// The split rules.
const (
	SplitValue SplitMatch = iota // equal value: K-10 may be split (classic, retiro, enhc)
	SplitRank                    // equal rank: K-K but not K-10 (real21, seed 002 "dos K, dos Q")
)

func (m SplitMatch) String() string {
	if m == SplitRank {
		return "rank"
	}
	return "value"
}

// Rules is every rule parameter of the RULES.md §4 table. The presets are named values of it;
// a table's configuration may change any parameter through games.Config.Options (see Options).
type Rules struct {
	// Name is the preset the rules came from ("classic", …).
	Name string
	// HoleCard: the dealer's second card is dealt face down at the start (after the boxes'
	// second cards). Without it the dealer's second card is drawn when the dealer plays.
	HoleCard bool
	// Peek: with an ace or ten-value up card the dealer checks the hole card for blackjack
	// before the players act. Needs HoleCard.
	Peek bool
	// HitSoft17: the dealer hits soft 17 (otherwise stands on every 17).
	HitSoft17 bool
	// Split says which pairs may be split.
	Split SplitMatch
	// MaxHands is the most hands one box may hold after splits; 1 forbids splitting.
	MaxHands int
	// ResplitAces lets a split ace that receives another ace be split again.
	ResplitAces bool
	// HitSplitAces lets split aces be played like any hand (otherwise one card each).
	HitSplitAces bool
	// Double says which first two cards may be doubled.
	Double Double
	// DoubleAfterSplit lets a split hand's first two cards be doubled (never split aces').
	DoubleAfterSplit bool
	// Surrender says against which up cards a hand may surrender.
	Surrender Surrender
	// Insurance is offered against an ace up card: half the bet, paid 2:1 on a dealer blackjack.
	Insurance bool
	// EvenMoney is offered to a blackjack against an ace up card: paid 1:1 at once.
	EvenMoney bool
	// DealerBJTakesAll: a dealer blackjack takes every bet on the box (doubles and splits);
	// otherwise only the original bet (the peek games).
	DealerBJTakesAll bool
	// BlackjackAtOnce: a player blackjack is paid and its cards collected at once when the up
	// card is neither an ace nor a ten-value card (the dealer cannot make a blackjack).
	BlackjackAtOnce bool
	// BlackjackNum and BlackjackDen: a blackjack pays Num:Den (3:2).
	BlackjackNum, BlackjackDen int64
	// Promotions pays the real21 promotional prizes (seed 002).
	Promotions bool
}

// Presets returns the names of the blackjack presets, the default (classic) first.
func Presets() []string { return []string{"classic", "real21", "retiro", "enhc"} }

// Preset returns the rules of a RULES.md §4 preset by name.
func Preset(name string) (Rules, error) {
	switch name {
	case "classic": // seed 001
		return Rules{Name: name, HoleCard: true, Peek: true, Split: SplitValue, MaxHands: 2,
			Double: DoubleAny, DoubleAfterSplit: true, Surrender: SurrenderAny,
			Insurance: true, EvenMoney: true, BlackjackNum: 3, BlackjackDen: 2}, nil
	case "real21": // seed 002
		return Rules{Name: name, HitSoft17: true, Split: SplitRank, MaxHands: 4,
			Double: DoubleAny, Surrender: SurrenderNotAce, EvenMoney: true,
			DealerBJTakesAll: true, BlackjackAtOnce: true, BlackjackNum: 3, BlackjackDen: 2,
			Promotions: true}, nil
	case "retiro": // seed 004
		return Rules{Name: name, HoleCard: true, Split: SplitValue, MaxHands: 4,
			Double: Double9to11, DoubleAfterSplit: true, Surrender: SurrenderAceTen,
			Insurance: true, DealerBJTakesAll: true, BlackjackNum: 3, BlackjackDen: 2}, nil
	case "enhc": // seed 000
		return Rules{Name: name, Split: SplitValue, MaxHands: 4, Double: DoubleAny,
			DoubleAfterSplit: true, Surrender: SurrenderNotAce, Insurance: true, EvenMoney: true,
			DealerBJTakesAll: true, BlackjackAtOnce: true, BlackjackNum: 3, BlackjackDen: 2}, nil
	}
	return Rules{}, fmt.Errorf("blackjack: unknown rules preset %q (known: %s)", name, strings.Join(Presets(), ", "))
}

// Reference returns the rule set of the published house-edge reference (issue 6; research
// gamemath.md §5.2 rule set (a)): classic without surrender, i.e. 6 decks, S17, peek, double any
// two, DAS, split once (two hands, aces included), no surrender, 3:2.
func Reference() Rules {
	r, _ := Preset("classic")
	r.Name = "reference"
	r.Surrender = SurrenderNone
	return r
}

// Validate reports a rule set that cannot be played.
func (r Rules) Validate() error {
	switch {
	case r.Peek && !r.HoleCard:
		return fmt.Errorf("blackjack: peek=yes needs hole-card=yes (the dealer peeks at a hole card)")
	case r.MaxHands < 1 || r.MaxHands > 8:
		return fmt.Errorf("blackjack: max-hands %d: must be 1 to 8", r.MaxHands)
	case r.BlackjackNum <= 0 || r.BlackjackDen <= 0 || r.BlackjackNum > 100*r.BlackjackDen:
		return fmt.Errorf("blackjack: blackjack-pays %d:%d is not a payout", r.BlackjackNum, r.BlackjackDen)
	case r.Surrender > SurrenderAceTen:
		return fmt.Errorf("blackjack: unknown surrender kind %d", r.Surrender)
	case r.Double > DoubleNone:
		return fmt.Errorf("blackjack: unknown double rule %d", r.Double)
	}
	return nil
}

// option is one rule parameter a table may set by name in games.Config.Options.
type option struct {
	help string
	set  func(r *Rules, v string) error
}

func yesNo(dst *bool) func(*Rules, string) error {
	return func(_ *Rules, v string) error {
		switch v {
		case "yes", "true":
			*dst = true
		case "no", "false":
			*dst = false
		default:
			return fmt.Errorf("want yes or no")
		}
		return nil
	}
}

// options maps each option name to its parameter. Every field of Rules but Name has one.
func options(r *Rules) map[string]option {
	return map[string]option{
		"hole-card":          {"yes|no", yesNo(&r.HoleCard)},
		"peek":               {"yes|no", yesNo(&r.Peek)},
		"resplit-aces":       {"yes|no", yesNo(&r.ResplitAces)},
		"hit-split-aces":     {"yes|no", yesNo(&r.HitSplitAces)},
		"double-after-split": {"yes|no", yesNo(&r.DoubleAfterSplit)},
		"insurance":          {"yes|no", yesNo(&r.Insurance)},
		"even-money":         {"yes|no", yesNo(&r.EvenMoney)},
		"blackjack-at-once":  {"yes|no", yesNo(&r.BlackjackAtOnce)},
		"promotions":         {"yes|no", yesNo(&r.Promotions)},
		"soft17": {"hit|stand", func(r *Rules, v string) error {
			switch v {
			case "hit":
				r.HitSoft17 = true
			case "stand":
				r.HitSoft17 = false
			default:
				return fmt.Errorf("want hit or stand")
			}
			return nil
		}},
		"split": {"value|rank", func(r *Rules, v string) error {
			switch v {
			case "value":
				r.Split = SplitValue
			case "rank":
				r.Split = SplitRank
			default:
				return fmt.Errorf("want value or rank")
			}
			return nil
		}},
		"max-hands": {"1…8", func(r *Rules, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 8 {
				return fmt.Errorf("want a number of hands 1 to 8")
			}
			r.MaxHands = n
			return nil
		}},
		"double": {"any|9-11|10-11|none", func(r *Rules, v string) error {
			for i, n := range doubleNames {
				if v == n {
					r.Double = Double(i)
					return nil
				}
			}
			return fmt.Errorf("want one of %s", strings.Join(doubleNames[:], ", "))
		}},
		"surrender": {"none|any|not-ace|ace-ten", func(r *Rules, v string) error {
			for i, n := range surrenderNames {
				if v == n {
					r.Surrender = Surrender(i)
					return nil
				}
			}
			return fmt.Errorf("want one of %s", strings.Join(surrenderNames[:], ", "))
		}},
		"dealer-blackjack-takes": {"original|all", func(r *Rules, v string) error {
			switch v {
			case "original":
				r.DealerBJTakesAll = false
			case "all":
				r.DealerBJTakesAll = true
			default:
				return fmt.Errorf("want original or all")
			}
			return nil
		}},
		"blackjack-pays": {"N:D, e.g. 3:2", func(r *Rules, v string) error {
			a, b, ok := strings.Cut(v, ":")
			n, err1 := strconv.ParseInt(a, 10, 64)
			d, err2 := strconv.ParseInt(b, 10, 64)
			if !ok || err1 != nil || err2 != nil || n <= 0 || d <= 0 || n > 100*d {
				return fmt.Errorf("want a payout N:D such as 3:2 or 6:5")
			}
			r.BlackjackNum, r.BlackjackDen = n, d
			return nil
		}},
	}
}

// OptionNames lists the option names a table may set, each with its values, sorted.
func OptionNames() []string {
	var r Rules
	m := options(&r)
	out := make([]string, 0, len(m))
	for k, o := range m {
		out = append(out, k+"="+o.help)
	}
	sort.Strings(out)
	return out
}

// WithOptions returns r changed by a table's options (games.Config.Options): each name is a rule
// parameter, each value its setting. An unknown name or value is an error naming it.
func (r Rules) WithOptions(opts map[string]string) (Rules, error) {
	m := options(&r)
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the first bad option deterministically
	for _, k := range keys {
		o, ok := m[k]
		if !ok {
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			return r, fmt.Errorf("blackjack: unknown option %q (known: %s)", k, strings.Join(names, ", "))
		}
		if err := o.set(&r, strings.TrimSpace(opts[k])); err != nil {
			return r, fmt.Errorf("blackjack: option %s=%q: %w", k, opts[k], err)
		}
	}
	return r, r.Validate()
}

// String describes the rules in the usual shorthand ("S17 peek DAS split-to-2 LS 3:2").
func (r Rules) String() string {
	var f []string
	if r.HitSoft17 {
		f = append(f, "H17")
	} else {
		f = append(f, "S17")
	}
	switch {
	case !r.HoleCard:
		f = append(f, "no-hole-card")
	case r.Peek:
		f = append(f, "hole-card peek")
	default:
		f = append(f, "hole-card no-peek")
	}
	f = append(f, "double-"+r.Double.String())
	if r.DoubleAfterSplit {
		f = append(f, "DAS")
	} else {
		f = append(f, "no-DAS")
	}
	if r.MaxHands > 1 {
		f = append(f, fmt.Sprintf("split-%s-to-%d", r.Split, r.MaxHands))
	} else {
		f = append(f, "no-split")
	}
	if r.ResplitAces {
		f = append(f, "RSA")
	}
	if r.HitSplitAces {
		f = append(f, "HSA")
	}
	f = append(f, "surrender-"+r.Surrender.String())
	if r.Insurance {
		f = append(f, "insurance")
	}
	if r.EvenMoney {
		f = append(f, "even-money")
	}
	if r.DealerBJTakesAll {
		f = append(f, "dealer-BJ-takes-all")
	} else {
		f = append(f, "dealer-BJ-takes-original")
	}
	if r.BlackjackAtOnce {
		f = append(f, "BJ-paid-at-once")
	}
	f = append(f, fmt.Sprintf("BJ-%d:%d", r.BlackjackNum, r.BlackjackDen))
	if r.Promotions {
		f = append(f, "real21-prizes")
	}
	return strings.Join(f, " ")
}
