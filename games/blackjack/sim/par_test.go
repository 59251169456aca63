package sim

import (
	"bytes"
	"context"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/sabot-tables/sabot/games/blackjack"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestPerfectPairsExact checks the exact side-bet figures against the published ones (research
// gamemath.md §3.5: 6.11% at 6 decks, 4.10% at 8; the Wizard's 8-deck counts 1456 / 1664 / 3328
// of 86,320).
func TestPerfectPairsExact(t *testing.T) {
	p, c, m, all := PerfectPairsCounts(8)
	if p != 1456 || c != 1664 || m != 3328 || all != 86320 {
		t.Errorf("8 decks: %d %d %d of %d, want 1456 1664 3328 of 86320", p, c, m, all)
	}
	for _, tc := range []struct {
		decks int
		want  string // percent, 2 decimals as published
	}{{1, "47.06"}, {2, "22.33"}, {4, "10.14"}, {6, "6.11"}, {8, "4.10"}} {
		e := PerfectPairsEdge(tc.decks)
		if got := new(big.Rat).Mul(e, big.NewRat(100, 1)).FloatString(2); got != tc.want {
			t.Errorf("%d decks: perfect pairs edge %s%%, published %s%%", tc.decks, got, tc.want)
		}
	}
	if got := InsuranceEdge(6); got.Cmp(big.NewRat(23, 311)) != 0 {
		t.Errorf("insurance edge at 6 decks %v, want 23/311", got)
	}
}

// TestPARGolden checks the PAR sheet's layout and its figures for a small fixed simulation
// (one worker and a seed make it repeat exactly).
func TestPARGolden(t *testing.T) {
	for _, name := range []string{"reference", "real21", "challenge21"} {
		t.Run(name, func(t *testing.T) {
			r, bets := blackjack.Reference(), 0
			switch name {
			case "challenge21":
				r, _ = blackjack.Preset("enhc")
				bets = 3
			case "real21":
				r, _ = blackjack.Preset(name)
			}
			p, err := BuildPAR(context.Background(), PAROptions{Name: name, Rules: r, Decks: 6, Rounds: 20000, Burn: 1, Seed: 1, Workers: 1, Bets: bets})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := p.Write(&b); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "par-"+name+".golden")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update creates it)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("PAR sheet differs from %s (go test -update rewrites it):\n%s", path, b.String())
			}
		})
	}
}

// TestEdgeSanity runs a short simulation of each preset and checks that the house edge is in the
// range its rules imply (a fast check that cannot replace the benchmark's precise estimate: with
// 400,000 rounds the 95% interval is about ±0.36 points).
func TestEdgeSanity(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi float64
	}{
		{"reference", 0.0010, 0.0090},
		{"classic", -0.0005, 0.0080}, // late surrender: ≈ 0.07 points better than the reference
		{"enhc", 0.0010, 0.0110},
		{"retiro", -0.0050, 0.0060}, // early surrender against ace and ten: ≈ −0.6 points
		{"real21", -0.0045, 0.0050}, // ≈ 0.75% before the prizes, which give back ≈ 0.7 points
	} {
		r := blackjack.Reference()
		if tc.name != "reference" {
			r, _ = blackjack.Preset(tc.name)
		}
		s, err := Run(context.Background(), DefaultConfig(r, 6), 400_000, 2)
		if err != nil {
			t.Fatal(err)
		}
		if e := s.Edge(); e < tc.lo || e > tc.hi {
			t.Errorf("%s: edge %.4f%% ± %.4f, want within %.2f%%…%.2f%%", tc.name, 100*e, 100*s.CI95(), 100*tc.lo, 100*tc.hi)
		}
		if sd := s.SD(); sd < 1.05 || sd > 1.25 {
			t.Errorf("%s: SD per round %.4f, published ≈ 1.14–1.15", tc.name, sd)
		}
		t.Logf("%s: edge %.4f%% ± %.4f, SD %.4f", tc.name, 100*s.Edge(), 100*s.CI95(), s.SD())
	}
}

func TestConfigErrors(t *testing.T) {
	r := blackjack.Reference()
	for _, c := range []Config{
		{Rules: r, Decks: 0},
		{Rules: r, Decks: 9},
		{Rules: r, Decks: 6, Behind: 5},
		{Rules: r, Decks: 1, Behind: 45},
		{Rules: r, Decks: 6, Burn: -1},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestPlayShoe checks that a shoe is played to the cut card and the counts add up.
func TestPlayShoe(t *testing.T) {
	s, err := New(DefaultConfig(blackjack.Reference(), 6))
	if err != nil {
		t.Fatal(err)
	}
	n, net := s.PlayShoe()
	st := s.Stats()
	if n != st.Rounds || net != st.Net || st.Won+st.Pushed+st.Lost != n || st.Shoes != 1 {
		t.Errorf("shoe %d rounds net %d; stats %+v", n, net, st)
	}
	if s.pos < s.cut || n < 30 || n > 60 {
		t.Errorf("%d rounds, stopped at card %d of a cut at %d", n, s.pos, s.cut)
	}
}
