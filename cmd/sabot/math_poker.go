package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sabot-tables/sabot/games/poker"
	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/games/poker/pokermath"
	"github.com/sabot-tables/sabot/shoe/card"
)

func init() {
	mathGames[poker.CaribbeanStud] = mathCaribbean
	mathGames[poker.ThreeCardPoker] = mathThreeCard
	mathGames[poker.GoPoker] = mathGoPoker
	mathGames[poker.DrawPoker] = mathDrawPoker
}

func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func pct(x float64) string { return fmt.Sprintf("%.4f%%", 100*x) }

// payTableFlag reads a pay table flag over its default.
func payTableFlag(name, s string, def poker.PayTable) (poker.PayTable, error) {
	if s == "" {
		return def, nil
	}
	t, err := poker.ParsePayTable(s, def)
	if err != nil {
		return nil, fmt.Errorf("math: --%s: %w", name, err)
	}
	return t, nil
}

// noArgs refuses arguments after the flags.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	return nil
}

// mathCaribbean is `sabot math caribbean-stud [--bet-pays TABLE] [-j N] [--json]`: the exact
// house edge of Caribbean stud over all 19,933,230,517,200 deals, for the best play and the
// published simpler strategies (RULES.md §5; issue 8: 5.224% with optimal play).
func mathCaribbean(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("math caribbean-stud", "[--bet-pays TABLE] [-j N] [--json]", stderr)
	pays := fs.String("bet-pays", "", "the bet's pay table, e.g. \"royal-flush=100,straight-flush=50\" (default RULES.md §5)")
	workers := fs.Int("j", 0, "goroutines (default: every CPU)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	t, err := payTableFlag("bet-pays", *pays, poker.DefaultBetPays)
	if err != nil {
		return err
	}
	if *workers < 0 {
		return fmt.Errorf("math: -j %d: not a number of goroutines", *workers)
	}
	start := time.Now()
	r := pokermath.AnalyseCaribbean(t, *workers)
	if *asJSON {
		edges := map[string]float64{}
		for s, e := range r.Edge {
			edges[string(s)] = e
		}
		return printJSON(stdout, map[string]any{"game": poker.CaribbeanStud, "bet_pays": t.String(), "deals": r.Deals,
			"house_edge": edges, "optimal": map[string]float64{"fold": r.FoldRate, "dealer_does_not_qualify": r.NoQualify,
				"win": r.Win, "push": r.Push, "lose": r.Lose}})
	}
	fmt.Fprintf(stdout, "caribbean-stud, exact over %d deals (player hand × dealer up card × dealer's other four), %v\n", r.Deals, time.Since(start).Round(time.Second))
	fmt.Fprintf(stdout, "bet pays %s\n\n", t)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\thouse edge (per ante)\tpublished (RULES.md default table)")
	for _, s := range pokermath.Strategies {
		fmt.Fprintf(tw, "%s\t%s\t%.3f%%\n", s, pct(r.Edge[s]), 100*pokermath.Published[s])
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\nwith the best play: fold %s, raise and the dealer does not qualify %s, win %s, push %s, lose %s\n",
		pct(r.FoldRate), pct(r.NoQualify), pct(r.Win), pct(r.Push), pct(r.Lose))
	return nil
}

// mathThreeCard is `sabot math three-card-poker [--ante-bonus TABLE] [--pair-plus-pays TABLE]
// [--json]`: the exact house edges of ante and play and of pair plus (issue 8: 3.37% and 2.32%).
func mathThreeCard(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("math three-card-poker", "[--ante-bonus TABLE] [--pair-plus-pays TABLE] [--json]", stderr)
	bonus := fs.String("ante-bonus", "", "the ante bonus table (default straight=1,three-of-a-kind=4,straight-flush=5)")
	pp := fs.String("pair-plus-pays", "", "the pair plus table (default pair=1,flush=4,straight=6,three-of-a-kind=30,straight-flush=40)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	b, err := payTableFlag("ante-bonus", *bonus, poker.DefaultAnteBonus)
	if err != nil {
		return err
	}
	p, err := payTableFlag("pair-plus-pays", *pp, poker.DefaultPairPlusPays)
	if err != nil {
		return err
	}
	r := pokermath.AnalyseThreeCard(b, p)
	if *asJSON {
		return printJSON(stdout, map[string]any{"game": poker.ThreeCardPoker, "ante_bonus": b.String(), "pair_plus_pays": p.String(),
			"hands": r.Hands, "dealer_hands": r.DealerHands, "dealer_qualifies": r.DealerQualify,
			"ante_edge_best_play": r.EdgeOptimal, "ante_edge_q64": r.EdgeQ64, "play_rate": r.PlayRate, "pair_plus_edge": r.PairPlusEdge})
	}
	fmt.Fprintf(stdout, "three-card-poker, exact over %d player hands × %d dealer hands\n", r.Hands, r.DealerHands)
	fmt.Fprintf(stdout, "ante bonus %s; pair plus %s\n\n", b, p)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "bet\thouse edge\tpublished (default tables)")
	fmt.Fprintf(tw, "ante and play, best play of each hand\t%s\t3.37%% of the ante\n", pct(r.EdgeOptimal))
	fmt.Fprintf(tw, "ante and play, play Q-6-4 or better\t%s\t3.37%% of the ante\n", pct(r.EdgeQ64))
	fmt.Fprintf(tw, "pair plus\t%s\t2.32%%\n", pct(r.PairPlusEdge))
	tw.Flush()
	fmt.Fprintf(stdout, "\nthe dealer qualifies (queen high or better) %s; the best play plays %s of hands", pct(r.DealerQualify), pct(r.PlayRate))
	if r.Disagreements > 0 {
		fmt.Fprintf(stdout, " (Q-6-4 decides %d hands otherwise)", r.Disagreements)
	}
	fmt.Fprintln(stdout)
	return nil
}

// mathGoPoker is `sabot math go-poker [--pays TABLE] [--min-pair RANK] [--json]`: the exact house
// edge of Go poker's pay table.
func mathGoPoker(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("math go-poker", "[--pays TABLE] [--min-pair RANK] [--json]", stderr)
	pays := fs.String("pays", "", "the pay table (default RULES.md §5)")
	minPair := fs.String("min-pair", "T", "the lowest pair the table pays")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	t, err := payTableFlag("pays", *pays, poker.DefaultGoPays)
	if err != nil {
		return err
	}
	c, err := card.Parse(strings.ToUpper(*minPair) + "s")
	if err != nil {
		return fmt.Errorf("math: --min-pair %q is not a rank (2 … A)", *minPair)
	}
	mp := int(c.Rank())
	if c.Rank() == card.Ace {
		mp = 14
	}
	r := pokermath.AnalyseGoPoker(t, mp)
	if *asJSON {
		counts := map[string]int64{}
		for k, v := range r.Counts {
			counts[k.String()] = v
		}
		return printJSON(stdout, map[string]any{"game": poker.GoPoker, "pays": t.String(), "min_pair": *minPair, "hands": r.Hands,
			"paid": counts, "losing": r.Losing, "house_edge": r.Edge})
	}
	fmt.Fprintf(stdout, "go-poker, exact over the %d five-card hands (three hole cards and two community cards)\n", r.Hands)
	fmt.Fprintf(stdout, "pays %s; pairs from %s up\n\n", t, *minPair)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hand\tpays\thands\tprobability\t")
	for i := len(hand.Categories) - 1; i >= 0; i-- {
		cat := hand.Categories[i]
		if n := r.Counts[cat]; n > 0 {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.8f\t\n", cat, t[cat], n, float64(n)/float64(r.Hands))
		}
	}
	fmt.Fprintf(tw, "anything less\t-1\t%d\t%.8f\t\n", r.Losing, float64(r.Losing)/float64(r.Hands))
	tw.Flush()
	fmt.Fprintf(stdout, "\nhouse edge %s of the ante (no published figure: research/gamemath.md §3.4)\n", pct(r.Edge))
	return nil
}

// mathDrawPoker is `sabot math draw-poker [--json]`: the dealer's opening rate. The house edge
// needs the player's best draws, which are not analysed.
func mathDrawPoker(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("math draw-poker", "[--json]", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	d := pokermath.AnalyseDrawDealer()
	if *asJSON {
		return printJSON(stdout, map[string]any{"game": poker.DrawPoker, "dealer_hands": d.Hands, "dealer_opens": d.Opens,
			"house_edge": nil})
	}
	fmt.Fprintf(stdout, "draw-poker: the dealer opens (a pair of eights or better) with %d of %d hands, %s\n", d.Opens, d.Hands, pct(float64(d.Opens)/float64(d.Hands)))
	fmt.Fprintln(stdout, "house edge: not computed (it needs the player's best exchange of 0–2 cards for every hand; no published figure, research/gamemath.md §3.3)")
	return nil
}
