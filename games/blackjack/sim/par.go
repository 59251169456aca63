package sim

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/sabot-tables/sabot/games/blackjack"
	"github.com/sabot-tables/sabot/games/blackjack/strategy"
)

// The published figures the PAR sheet compares with (issue 6; research gamemath.md §3.5, §5.2).
const (
	// ReferenceEdge is the house edge of the reference rule set (Reference, 6 decks) with basic
	// strategy and a cut card: ≈ 0.48% (Farmer's exact 0.4569% optimal + the Wizard of Odds'
	// 6-deck basic-strategy-with-cut-card offset 0.0231).
	ReferenceEdge = 0.0048
	// ReferenceOptimal is the same rule set's edge with optimal play from a fresh shoe.
	ReferenceOptimal = 0.004569
	// ReferenceTolerance is the target: within 0.02 percentage points.
	ReferenceTolerance = 0.0002
)

// PAROptions is what a PAR sheet is computed for.
type PAROptions struct {
	Name    string // the preset's name, "reference", or a description
	Rules   blackjack.Rules
	Decks   int
	Rounds  int64
	Behind  int // cards behind the cut card; 0 = the RULES.md §1 default
	Burn    int // cards burned per shoe
	Seed    uint64
	Workers int
	// Bets is 2 or 3 for Challenge 21 (its round bets), 0 for blackjack.
	Bets int
}

// PAR is a PAR sheet: the main game's figures from simulation, the side bets' and insurance's
// exact figures, the promotions' cost, and the strategy played.
type PAR struct {
	Opts     PAROptions
	Strategy *strategy.Strategy
	Main     Stats
	// Promo is set when the rules pay the real21 prizes: A with them (= Main), B without.
	Promo *Paired
}

// BuildPAR simulates o.Rounds rounds of basic strategy under o.Rules.
func BuildPAR(ctx context.Context, o PAROptions) (*PAR, error) {
	st, err := strategy.Generate(o.Rules, o.Decks)
	if err != nil {
		return nil, err
	}
	cfg := Config{Rules: o.Rules, Decks: o.Decks, Behind: o.Behind, Burn: o.Burn, Seed: o.Seed, Strategy: st, Rounds: o.Bets}
	if _, err := New(cfg); err != nil { // validates the shoe before any goroutine starts
		return nil, err
	}
	p := &PAR{Opts: o, Strategy: st}
	if o.Rules.Promotions {
		off := cfg
		off.Rules.Promotions = false
		pr, err := RunPaired(ctx, cfg, off, o.Rounds, o.Workers)
		if err != nil {
			return nil, err
		}
		p.Promo, p.Main = &pr, pr.A
		return p, nil
	}
	p.Main, err = Run(ctx, cfg, o.Rounds, o.Workers)
	return p, err
}

// PerfectPairsCounts returns, for a shoe of decks decks, the number of two-card combinations
// that are a perfect, a coloured and a mixed pair, and all of them: C(52d, 2) (research
// gamemath.md §3.5: 52·C(d,2), 26·d², 52·d²).
func PerfectPairsCounts(decks int) (perfect, coloured, mixed, all int64) {
	d := int64(decks)
	n := 52 * d
	return 52 * d * (d - 1) / 2, 26 * d * d, 52 * d * d, n * (n - 1) / 2
}

// PerfectPairsEdge returns the exact house edge of perfect pairs 25:1 / 12:1 / 6:1 on the first
// two cards of a fresh shoe, as a fraction.
func PerfectPairsEdge(decks int) *big.Rat {
	p, c, m, all := PerfectPairsCounts(decks)
	ev := 26*p + 13*c + 7*m - all // wins pay 25, 12, 6 and keep the stake; the rest lose it
	return big.NewRat(-ev, all)
}

// InsuranceEdge returns the exact house edge of insurance (2:1) against an ace from a fresh shoe
// with nothing else seen: 1 − 3·16d/(52d − 1).
func InsuranceEdge(decks int) *big.Rat {
	d := int64(decks)
	return new(big.Rat).Sub(big.NewRat(1, 1), big.NewRat(3*16*d, 52*d-1))
}

func ratPct(r *big.Rat) string {
	f, _ := r.Float64()
	return fmt.Sprintf("%.4f%%", 100*f)
}

func pct(x float64) string { return fmt.Sprintf("%.4f%%", 100*x) }

func per100(n, rounds int64) string {
	if rounds == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", 100*float64(n)/float64(rounds))
}

// Write prints the PAR sheet.
func (p *PAR) Write(w io.Writer) error {
	var b strings.Builder
	o, m := p.Opts, p.Main
	r := o.Rules
	total := 52 * o.Decks
	behind := o.Behind
	if behind == 0 {
		behind = min(78, total/4)
	}
	line := func(label, format string, a ...any) {
		fmt.Fprintf(&b, "  %-40s %s\n", label, fmt.Sprintf(format, a...))
	}
	c21 := o.Bets > 1
	if c21 {
		fmt.Fprintf(&b, "PAR SHEET: challenge21, %d round bets, %s rules, %d decks\n\n", o.Bets, o.Name, o.Decks)
	} else {
		fmt.Fprintf(&b, "PAR SHEET: blackjack, rules %s, %d decks\n\n", o.Name, o.Decks)
	}
	fmt.Fprintf(&b, "Rules (RULES.md §4)\n  %s\n", r)
	fmt.Fprintf(&b, "Shoe (RULES.md §1)\n  %d cards, cut card %d cards from the end (%.1f%% dealt), %d burned per shoe\n", total, behind, 100*float64(total-behind)/float64(total), o.Burn)
	fmt.Fprintf(&b, "Player\n  one box, basic strategy generated for these rules (chart below);\n  insurance and even money declined; real21 prizes not chased\n")
	fmt.Fprintf(&b, "Simulation\n  %d rounds in %d shoes, seed %d, workers %d\n\n", m.Rounds, m.Shoes, o.Seed, o.Workers)

	if c21 {
		fmt.Fprintf(&b, "  Challenge 21: one hand against %d dealer rounds drawn from the dealer's first card\n\n", o.Bets)
		fmt.Fprintf(&b, "MAIN GAME (per initial stake: all %d round bets together)\n", o.Bets)
	} else {
		fmt.Fprintf(&b, "MAIN GAME (per initial bet)\n")
	}
	line("house edge", "%s ± %s (95%% confidence)", pct(m.Edge()), pct(m.CI95()))
	line("return to player", "%s", pct(1-m.Edge()))
	line("standard deviation per round", "%.4f", m.SD())
	if c21 {
		line("  the same, in single round bets", "%.4f", m.SD()*float64(o.Bets))
	}
	if m.Action > 0 {
		line("edge per amount wagered", "%s (average stake %.4f initial bets)", pct(-float64(m.Net)/float64(m.Action)), float64(m.Action)/float64(m.Unit)/float64(m.Rounds))
	}
	if m.Rounds > 0 {
		line("rounds won / pushed / lost", "%.3f%% / %.3f%% / %.3f%%", 100*float64(m.Won)/float64(m.Rounds), 100*float64(m.Pushed)/float64(m.Rounds), 100*float64(m.Lost)/float64(m.Rounds))
	}
	line("per 100 rounds: player blackjacks", "%s", per100(m.Blackjacks, m.Rounds))
	line("per 100 rounds: dealer blackjacks shown", "%s", per100(m.DealerBlackjacks, m.Rounds))
	line("per 100 rounds: doubles", "%s", per100(m.Doubles, m.Rounds))
	line("per 100 rounds: splits", "%s", per100(m.Splits, m.Rounds))
	line("per 100 rounds: surrenders", "%s", per100(m.Surrenders, m.Rounds))
	line("per 100 rounds: busted hands", "%s", per100(m.Busts, m.Rounds))
	if sameRules(r, blackjack.Reference()) && o.Decks == 6 {
		e, ci := m.Edge(), m.CI95()
		d := e - ReferenceEdge
		if d < 0 {
			d = -d
		}
		yes := func(b bool) string {
			if b {
				return "yes"
			}
			return "NO"
		}
		line("published (basic strategy, cut card)", "%s; optimal, fresh shoe %s", pct(ReferenceEdge), pct(ReferenceOptimal))
		line("estimate within 0.02 points of it", "%s (difference %.4f points)", yes(d <= ReferenceTolerance), 100*d)
		line("95% interval contains it", "%s [%s, %s]", yes(d <= ci), pct(e-ci), pct(e+ci))
		if ci > ReferenceTolerance {
			line("", "the interval is wider than 0.02 points: simulate more rounds (≥ 1.3e8)")
		}
	}

	if p.Promo != nil {
		pr := p.Promo
		fmt.Fprintf(&b, "\nPROMOTIONS: real21 prizes (seed 002), paid on the hand's full bet\n")
		names := []blackjack.Prize{blackjack.SevenCards, blackjack.JackOfSpades, blackjack.Suited678, blackjack.SuitedSevens}
		for _, pz := range names {
			line(fmt.Sprintf("%s (%d:1) per million rounds", pz, pz.Pays()), "%.2f", 1e6*float64(m.Prizes[pz])/float64(max(m.Rounds, 1)))
		}
		line("prizes paid per initial bet", "%s", pct(float64(m.PrizeNet)/float64(m.Unit)/float64(max(m.Rounds, 1))))
		line("house edge without the prizes", "%s ± %s", pct(pr.B.Edge()), pct(pr.B.CI95()))
		line("cost of the prizes to the house", "%s ± %s (same shoes, 95%%)", pct(pr.Diff), pct(pr.CI95))
	}

	if !c21 { // RULES.md §8: Challenge 21 has no perfect-pairs spot
		fmt.Fprintf(&b, "\nSIDE BET: perfect pairs 25:1 / 12:1 / 6:1 (seed 000), exact, fresh shoe\n")
		pp, cp, mp, all := PerfectPairsCounts(o.Decks)
		line("perfect pair (same rank and suit)", "%d / %d = %.6f", pp, all, float64(pp)/float64(all))
		line("coloured pair (same colour)", "%d / %d = %.6f", cp, all, float64(cp)/float64(all))
		line("mixed pair (different colour)", "%d / %d = %.6f", mp, all, float64(mp)/float64(all))
		line("house edge", "%s", ratPct(PerfectPairsEdge(o.Decks)))
		if m.Rounds > 0 {
			var won, lost int64
			for i, n := range m.Pairs {
				if i == int(blackjack.NoPair) {
					lost += n
					continue
				}
				won += n * blackjack.Pair(i).Pays()
			}
			line("simulated (cut-card shoes)", "%s", pct(float64(lost-won)/float64(m.Rounds)))
		}
	}
	if r.Insurance || r.EvenMoney {
		fmt.Fprintf(&b, "\nINSURANCE 2:1 against an ace, exact, fresh shoe\n")
		line("house edge", "%s (even money costs the same share of a blackjack)", ratPct(InsuranceEdge(o.Decks)))
	}

	fmt.Fprintf(&b, "\nBASIC STRATEGY (two-card decisions; columns are the dealer's up card)\n%s", p.Strategy.Chart())
	_, err := io.WriteString(w, b.String())
	return err
}

// sameRules compares every rule parameter but the name.
func sameRules(a, b blackjack.Rules) bool {
	a.Name, b.Name = "", ""
	return a == b
}
