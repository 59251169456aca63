package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/games/trente"
)

func init() {
	mathGames["baccarat"] = mathBaccarat
	mathGames["punto-banco"] = mathBaccarat
	mathGames["trente-et-quarante"] = mathTrente
}

// mathBaccarat is `sabot math baccarat --decks N [--remaining FILE] [--json]`: the exact odds and
// house edges of the baccarat family by full enumeration (issue 7).
func mathBaccarat(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("math baccarat", "[--decks N] [--remaining FILE] [--json]", stderr)
	decks := fs.Int("decks", 8, "decks in the shoe (1, 2, 4, 6 or 8; RULES.md §0)")
	remaining := fs.String("remaining", "", "a file with what is left in a partly dealt shoe: \"RANK COUNT\" or \"CARD COUNT\" lines (- for standard input)")
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
	comp := baccarat.Decks(*decks)
	if *remaining != "" {
		c, err := readComposition(*remaining, *decks)
		if err != nil {
			return err
		}
		comp = c
	}
	x, err := baccarat.ExactOdds(comp)
	if err != nil {
		return err
	}
	if *asJSON {
		out := struct {
			*baccarat.Exact
			PBanker string          `json:"p_banker"`
			PPlayer string          `json:"p_player"`
			PTie    string          `json:"p_tie"`
			PPair   string          `json:"p_pair"`
			Edges   []baccarat.Edge `json:"edges"`
		}{x, x.PBanker().FloatString(9), x.PPlayer().FloatString(9), x.PTie().FloatString(9), x.PPair().FloatString(9), x.Edges()}
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
	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bet\tpays\thouse edge\t")
	for _, e := range x.Edges() {
		fmt.Fprintf(tw, "%s\t%s\t%s%%\t\n", e.Bet, e.Pays, e.Percent)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, "\nedges count pushes as settled bets; baccarat (no tie bet) has the same player and banker edges.")
	return err
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
