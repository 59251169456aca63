package certify

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/shoe/shuffle"
)

func TestChiSquareSF(t *testing.T) {
	// Reference values (R: pchisq(x, df, lower.tail=FALSE)).
	for _, tc := range []struct {
		x    float64
		df   int
		want float64
	}{
		{3.841459, 1, 0.05}, {6.634897, 1, 0.01}, {15.08627, 5, 0.01}, {2.0, 2, math.Exp(-1)},
		{2601, 2601, 0.4963}, {2778.6, 2601, 0.0079},
	} {
		got := ChiSquareSF(tc.x, tc.df)
		if math.Abs(got-tc.want) > 1e-3*math.Max(1, tc.want*10) {
			t.Errorf("ChiSquareSF(%g, %d) = %.5f, want %.5f", tc.x, tc.df, got, tc.want)
		}
	}
	if p := NormalSF2(2.5758293); math.Abs(p-0.01) > 1e-6 {
		t.Errorf("NormalSF2(2.576) = %g", p)
	}
}

func collect(t *testing.T, decks, n int, order func(x []card.Card)) Report {
	t.Helper()
	c, err := NewCollector(decks)
	if err != nil {
		t.Fatal(err)
	}
	base := make([]card.Card, 0, 52*decks)
	for range decks {
		base = append(base, card.Deck()...)
	}
	x := make([]card.Card, len(base))
	for range n {
		copy(x, base)
		order(x)
		if err := c.Add(x); err != nil {
			t.Fatal(err)
		}
	}
	return c.Report("test", 0.99, time.Unix(0, 0))
}

// A uniform shuffle (seeded here so the test is repeatable) passes every test.
func TestUniformPasses(t *testing.T) {
	for _, decks := range []int{1, 6} {
		rng := rand.New(rand.NewPCG(7, uint64(decks)))
		r := collect(t, decks, 3000, func(x []card.Card) { rng.Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] }) })
		if !r.Pass {
			var b strings.Builder
			r.WriteText(&b)
			t.Fatalf("%d decks: a uniform shuffle failed:\n%s", decks, b.String())
		}
	}
}

// The host's cryptographic shuffle passes; it is not seeded, so the test uses a stricter level
// than 99% to stay deterministic in practice (a false failure once in a million runs).
func TestHostShufflePasses(t *testing.T) {
	s := shuffle.NewSource()
	c, _ := NewCollector(1)
	x := card.Deck()
	for range 3000 {
		shuffle.Permute(s, x)
		c.Add(x)
	}
	r := c.Report("host", 0.999999, time.Now())
	if !r.Pass {
		var b strings.Builder
		r.WriteText(&b)
		t.Fatalf("the host shuffle failed:\n%s", b.String())
	}
}

// Shuffles a lab must reject: one riffle shuffle (as a lazy shuffler does), and the textbook
// biased swap (j drawn from the whole deck at every step).
func TestBiasedFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	riffle := func(x []card.Card) {
		cut := 26 - 3 + rng.IntN(7)
		a, b := append([]card.Card(nil), x[:cut]...), append([]card.Card(nil), x[cut:]...)
		out := x[:0]
		for len(a)+len(b) > 0 {
			if len(b) == 0 || len(a) > 0 && rng.IntN(len(a)+len(b)) < len(a) {
				out, a = append(out, a[0]), a[1:]
			} else {
				out, b = append(out, b[0]), b[1:]
			}
		}
	}
	r := collect(t, 1, 500, riffle)
	if r.Pass || r.Tests[len(r.Tests)-1].Pass {
		t.Fatalf("a single riffle passed the rising-sequences test: %+v", r.Tests)
	}
	naive := func(x []card.Card) {
		for i := range x {
			j := rng.IntN(len(x))
			x[i], x[j] = x[j], x[i]
		}
	}
	r = collect(t, 1, 30000, naive)
	if r.Pass || r.Tests[0].Pass {
		t.Fatalf("the biased swap shuffle passed the card-position test: %+v", r.Tests)
	}
}

func TestAddRejectsIncompleteOrders(t *testing.T) {
	c, _ := NewCollector(1)
	d := card.Deck()
	if err := c.Add(d[:51]); err == nil || !strings.Contains(err.Error(), "51 cards") {
		t.Fatalf("51 cards: %v", err)
	}
	d[3] = d[4]
	if err := c.Add(d); err == nil || !strings.Contains(err.Error(), "missing Ac; extra 2s") {
		t.Fatalf("a duplicate: %v", err)
	}
}

func TestReadOrders(t *testing.T) {
	d := card.Deck()
	full := ""
	for i, c := range d {
		if i > 0 {
			full += " "
		}
		full += c.String()
	}
	n, err := ReadOrders(strings.NewReader("# two orders\n"+full+"\n\n"+full+"\n"), 1, func([]card.Card) error { return nil })
	if err != nil || n != 2 {
		t.Fatalf("%d orders, %v", n, err)
	}
	short := strings.TrimPrefix(full, "As ")
	_, err = ReadOrders(strings.NewReader(full+"\n"+short+"\n"), 1, func([]card.Card) error { return nil })
	if err == nil || err.Error() != "certify: line 2: 51 cards, a 1-deck shoe has 52: missing As" {
		t.Fatalf("51 cards: %v", err)
	}
	_, err = ReadOrders(strings.NewReader("As Xx\n"), 1, func([]card.Card) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad card: %v", err)
	}
}

func FuzzReadOrders(f *testing.F) {
	f.Add("As Kd\n# x\n", 1)
	f.Fuzz(func(t *testing.T, s string, decks int) {
		if decks < 1 || decks > 8 {
			return
		}
		ReadOrders(strings.NewReader(s), decks, func(o []card.Card) error {
			if len(o) != 52*decks {
				t.Fatalf("an order of %d cards accepted", len(o))
			}
			return nil
		})
	})
}
