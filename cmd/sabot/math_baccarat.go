package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/games/trente"
	"github.com/sabot-tables/sabot/shoe/card"
)

func init() {
	mathGames["baccarat"] = mathBaccarat
	mathGames["punto-banco"] = mathBaccarat
	mathGames["trente-et-quarante"] = mathTrente
}

// mathBaccarat is `sabot math baccarat [--decks N] [--remaining FILE] [--table T] [--json]`: the
// exact odds and house edges of the baccarat family by full enumeration (issues 7 and 20), for
// each bet a pay table and the side bets can offer (RULES.md §2 "Pay tables").
func mathBaccarat(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("math baccarat", "[--decks N] [--remaining FILE] [--table standard|ez|super6] [--json]", stderr)
	decks := fs.Int("decks", 8, "decks in the shoe (1, 2, 4, 6 or 8; RULES.md §0)")
	remaining := fs.String("remaining", "", "a file with what is left in a partly dealt shoe: \"RANK COUNT\" or \"CARD COUNT\" lines (- for standard input)")
	tableName := fs.String("table", "standard", "the pay table: standard (5% commission), ez (EZ Baccarat) or super6 (Super 6)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if err := checkDecks(*decks); err != nil {
		return err
	}
	table, err := baccarat.ParsePayTable(*tableName)
	if err != nil {
		return fmt.Errorf("math: --table: %w", err)
	}
	var x *baccarat.Exact
	if *remaining != "" {
		c, err := readComposition(*remaining, *decks)
		if err != nil {
			return err
		}
		x, err = baccarat.ExactOdds(c) // by rank: the perfect pair, which needs the suits, is left out
		if err != nil {
			return err
		}
	} else if x, err = baccarat.ExactCards(card.Decks(*decks)); err != nil {
		return err
	}
	spots := []string{baccarat.SpotBanker, baccarat.SpotPlayer, baccarat.SpotTie, baccarat.SpotPlayerPair, baccarat.SpotBankerPair}
	own := baccarat.DefaultSideBets(table)
	var others []string
	for _, sb := range []string{baccarat.SpotDragon7, baccarat.SpotPanda8, baccarat.SpotLucky6, baccarat.SideDragonBonus, baccarat.SpotEitherPair, baccarat.SpotPerfectPair} {
		if !slices.Contains(own, sb) {
			others = append(others, sb)
		}
	}
	sides := func(names []string) []string {
		e, err := baccarat.New(games.Config{Game: "punto-banco", Options: map[string]string{baccarat.OptSideBets: strings.Join(names, ",")}})
		if err != nil {
			return nil
		}
		return e.Spots()[5:]
	}
	bets := x.Odds(baccarat.PuntoBanco, table, append(append(spots, sides(own)...), sides(others)...))
	if *asJSON {
		out := struct {
			*baccarat.Exact
			Table   string             `json:"table"`
			PBanker string             `json:"p_banker"`
			PPlayer string             `json:"p_player"`
			PTie    string             `json:"p_tie"`
			PPair   string             `json:"p_pair"`
			Edges   []baccarat.Edge    `json:"edges"`
			Bets    []baccarat.BetOdds `json:"bets"`
		}{x, table.String(), x.PBanker().FloatString(9), x.PPlayer().FloatString(9), x.PTie().FloatString(9), x.PPair().FloatString(9), nil, bets}
		if table == baccarat.Standard {
			out.Edges = x.Edges()
		}
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	src := fmt.Sprintf("%d decks", *decks)
	if *remaining != "" {
		src = "the composition in " + *remaining
	}
	fmt.Fprintf(stdout, "baccarat, exact enumeration of %s: %d cards, %d ordered six-card sequences\n\n", src, x.Cards, x.Sequences)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "result\tsequences\tprobability\t")
	fmt.Fprintf(tw, "banker\t%d\t%s\t\n", x.Banker, x.PBanker().FloatString(9))
	fmt.Fprintf(tw, "player\t%d\t%s\t\n", x.Player, x.PPlayer().FloatString(9))
	fmt.Fprintf(tw, "tie\t%d\t%s\t\n", x.Tie, x.PTie().FloatString(9))
	fmt.Fprintf(tw, "pair (either hand)\t%s\t%s\t\n", x.PPair().RatString(), x.PPair().FloatString(9))
	tw.Flush()
	fmt.Fprintf(stdout, "\npay table %s: %s\n\n", table, tableWords[table])
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bet\tpays\twins\thouse edge\toffered\t")
	offered := len(spots) + len(sides(own))
	for i, b := range bets {
		on := "default"
		if i >= offered {
			on = "side-bets"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%%\t%s\t\n", b.Spot, b.Lines[0].Pay, b.PWin.FloatString(9), b.Edge, on)
	}
	tw.Flush()
	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "bet\tsettlement\tpays\tprobability\tcount\t")
	for _, b := range bets {
		for i, l := range b.Lines {
			name := b.Spot
			if i > 0 {
				name = ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t\n", name, l.Event, l.Pay, l.Prob, l.Count, l.Den)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	note := "\nedges count pushes as settled bets; baccarat (no tie bet) has the same player and banker edges.\n" +
		"offered: default, on this pay table unless option side-bets says otherwise; side-bets, when the option names it."
	if *remaining != "" {
		note += "\nthe composition is by rank: the perfect pair, which needs the suits, is not priced."
	}
	_, err = fmt.Fprintln(stdout, note)
	return err
}

// tableWords says what each pay table pays (RULES.md §2 "Pay tables").
var tableWords = map[baccarat.PayTable]string{
	baccarat.Standard: "banker 0.95:1 (5% commission), player 1:1",
	baccarat.EZ:       "EZ Baccarat, banker 1:1 and a push on a winning three-card 7, player 1:1",
	baccarat.Super6:   "Super 6, banker 1:1 and 1:2 on a win with 6, player 1:1",
}

func checkDecks(n int) error {
	switch n {
	case 1, 2, 4, 6, 8:
		return nil
	}
	return fmt.Errorf("math: --decks %d: a shoe holds 1, 2, 4, 6 or 8 decks (RULES.md §0)", n)
}

func readComposition(path string, decks int) (baccarat.Composition, error) {
	var r io.Reader
	if path == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return baccarat.Composition{}, fmt.Errorf("math: --remaining: %w", err)
		}
		defer f.Close()
		r = f
	}
	c, err := baccarat.ParseComposition(r, decks)
	if err != nil {
		return c, fmt.Errorf("math: --remaining %s: %w", path, err)
	}
	return c, nil
}

// mathTrente is `sabot math trente-et-quarante [--decks N] [--json]`: the exact probabilities of
// a coup from a full shoe and each chance's house edge (issue 7).
func mathTrente(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("math trente-et-quarante", "[--decks N] [--json]", stderr)
	decks := fs.Int("decks", 6, "decks in the shoe (1, 2, 4, 6 or 8; RULES.md §0)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if err := checkDecks(*decks); err != nil {
		return err
	}
	x, err := trente.ExactOdds(trente.Decks(*decks))
	if err != nil {
		return err
	}
	f := x.Figures()
	if *asJSON {
		b, err := json.Marshal(struct {
			Decks int `json:"decks"`
			trente.Figures
		}{*decks, f})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	fmt.Fprintf(stdout, "trente et quarante, exact enumeration of %d decks (%d cards), first coup of the shoe\n\n", *decks, 52**decks)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "outcome\tprobability\t")
	fmt.Fprintf(tw, "noir wins\t%.9f\t\n", f.Noir)
	fmt.Fprintf(tw, "rouge wins\t%.9f\t\n", f.Rouge)
	fmt.Fprintf(tw, "refait 32-40\t%.9f\t\n", f.Refait)
	fmt.Fprintf(tw, "refait 31-31\t%.9f\t\n", f.Refait31)
	tw.Flush()
	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chance\tpays\thouse edge\t")
	for _, e := range []struct {
		name string
		edge float64
	}{{"noir", f.EdgeNoir}, {"rouge", f.EdgeRouge}, {"couleur", f.EdgeCouleur}, {"inverse", f.EdgeInverse}} {
		fmt.Fprintf(tw, "%s\t1:1\t%.6f%%\t\n", e.name, e.edge*100)
	}
	tw.Flush()
	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row total\tprobability (each row)\t")
	for t, p := range f.Row {
		fmt.Fprintf(tw, "%d\t%.9f\t\n", trente.Target+t, p)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, "\nedges lose half the stake on 31-31 (RULES.md §3) and count a refait as a push; en prison is not priced.")
	return err
}
