package trente

import (
	"math"
	"testing"
	"time"
)

// bruteForce deals every sequence from a small composition, card by card.
func bruteForce(c Composition) [10][10]float64 {
	var out [10][10]float64
	var rec func(p float64, noir, rouge int)
	rec = func(p float64, noir, rouge int) {
		if rouge >= Target {
			out[noir-Target][rouge-Target] += p
			return
		}
		n := c.Total()
		for v := 1; v <= 10; v++ {
			if c[v] == 0 {
				continue
			}
			q := p * float64(c[v]) / float64(n)
			c[v]--
			if noir < Target {
				rec(q, noir+v, rouge)
			} else {
				rec(q, noir, rouge+v)
			}
			c[v]++
		}
	}
	rec(1, 0, 0)
	return out
}

func TestExactOddsAgainstBruteForce(t *testing.T) {
	for _, c := range []Composition{
		{7: 3, 8: 4, 9: 4, 10: 12},
		{5: 2, 6: 1, 8: 3, 9: 5, 10: 9},
		{1: 1, 4: 1, 6: 2, 7: 2, 9: 3, 10: 9},
	} {
		x, err := ExactOdds(c)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(c)
		for a := range 10 {
			for b := range 10 {
				w := want[a][b]
				if math.Abs(x.Joint[a][b]-w) > 1e-13 {
					t.Errorf("%v: P(noir %d, rouge %d) = %.15g, want %.15g", c, 31+a, 31+b, x.Joint[a][b], w)
				}
			}
		}
	}
}

// TestExactOddsSixDecks checks the published figures (gamemath.md §2): P(31–31) 2.19%, house
// edge about 1.1% on each chance; and the Monte Carlo estimate 0.021890 ± 0.000005 (10⁹ coups).
func TestExactOddsSixDecks(t *testing.T) {
	start := time.Now()
	x, err := ExactOdds(Decks(6))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("6 decks in %v", time.Since(start))
	f := x.Figures()
	if math.Abs(f.Sum-1) > 1e-12 {
		t.Errorf("probabilities add up to %.15f", f.Sum)
	}
	if got := math.Round(f.Refait31*10000) / 100; got != 2.19 {
		t.Errorf("P(31-31) = %.6f, published 2.19%%", f.Refait31)
	}
	if math.Abs(f.Refait31-0.021890) > 3*0.000005 {
		t.Errorf("P(31-31) = %.6f, Monte Carlo 0.021890 ± 0.000005", f.Refait31)
	}
	for name, e := range map[string]float64{"noir": f.EdgeNoir, "rouge": f.EdgeRouge, "couleur": f.EdgeCouleur, "inverse": f.EdgeInverse} {
		if got := math.Round(e*1000) / 10; got != 1.1 {
			t.Errorf("%s edge %.4f%%, published about 1.1%%", name, e*100)
		}
	}
	t.Logf("noir %.9f rouge %.9f refait %.9f refait31 %.9f edges %.6f%% %.6f%% %.6f%%",
		f.Noir, f.Rouge, f.Refait, f.Refait31, f.EdgeNoir*100, f.EdgeRouge*100, f.EdgeCouleur*100)
}

// BenchmarkTrenteExact6Decks times the exact 6-deck computation and reports its figures in parts
// per million (P(31-31) 21891, edge 10946).
func BenchmarkTrenteExact6Decks(b *testing.B) {
	var x *Exact
	for b.Loop() {
		var err error
		if x, err = ExactOdds(Decks(6)); err != nil {
			b.Fatal(err)
		}
	}
	f := x.Figures()
	b.ReportMetric(f.Refait31*1e6, "P(31-31)-ppm")
	b.ReportMetric(f.EdgeNoir*1e6, "edge-ppm")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/enumeration")
}
