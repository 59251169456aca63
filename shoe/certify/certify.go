// Package certify runs the statistical tests gaming laboratories apply to shuffles (GLI-29-style
// randomness requirements; see ../../../shared/research/regulatory.md §1.1–1.2), on orders from
// the host's cryptographic shuffle or those a physical shuffler reports, and writes a report a
// lab can read: each test's statistic, degrees of freedom, p-value and verdict at the chosen
// confidence (99% by default).
//
// The tests, on N shuffled orders of D decks (n = 52·D cards):
//   - card position: for each of the 52 cards and each of the n positions, how often the card
//     lies there; a chi-square test of the 52 × n table (each cell expects N/52), and the worst
//     single card (Bonferroni-adjusted over the 52);
//   - adjacent pairs: for each card, which card follows it; a chi-square test of the successor
//     table given each card's count of successors;
//   - colour runs: the number of runs of red and black cards in each order, whose mean must
//     match the exact expectation for random orders (Wald–Wolfowitz);
//   - rising sequences (one deck): the number of rising sequences of each order, whose mean for
//     random orders is (n+1)/2 with variance (n+1)/12 (Bayer–Diaconis): a shuffler that riffles
//     too few times fails it at once.
package certify

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Collector accumulates the counts of N orders.
type Collector struct {
	decks int
	n     int // cards per order
	count int
	pos   [][52]int // pos[p][card]: how often the card lay at position p
	succ  [52][52]int
	runs  moments // colour runs per order
	rise  moments // rising sequences per order (one deck)
}

type moments struct{ sum, sumSq float64 }

func (m *moments) add(x float64) { m.sum += x; m.sumSq += x * x }

// NewCollector returns a collector for orders of decks decks.
func NewCollector(decks int) (*Collector, error) {
	if decks < 1 || decks > 8 {
		return nil, fmt.Errorf("certify: %d decks: 1 to 8", decks)
	}
	n := 52 * decks
	return &Collector{decks: decks, n: n, pos: make([][52]int, n)}, nil
}

// Add counts one order. The order must be exactly the shoe's composition: each card D times.
func (c *Collector) Add(order []card.Card) error {
	if len(order) != c.n {
		return fmt.Errorf("certify: an order of %d cards, a %d-deck shoe has %d", len(order), c.decks, c.n)
	}
	if d := card.Diff(card.Decks(c.decks), card.CountOf(order)); len(d) > 0 {
		return fmt.Errorf("certify: the order is not %d complete decks: %s", c.decks, card.DescribeDiff(d))
	}
	runs := 1
	for p, x := range order {
		c.pos[p][x.Index()]++
		if p > 0 {
			c.succ[order[p-1].Index()][x.Index()]++
			if order[p-1].Suit().Red() != x.Suit().Red() {
				runs++
			}
		}
	}
	c.runs.add(float64(runs))
	if c.decks == 1 {
		var at [52]int
		for p, x := range order {
			at[x.Index()] = p
		}
		rising := 1
		for i := 1; i < 52; i++ {
			if at[i] < at[i-1] {
				rising++
			}
		}
		c.rise.add(float64(rising))
	}
	c.count++
	return nil
}

// N returns how many orders were added.
func (c *Collector) N() int { return c.count }

// Test is one statistical test's result.
type Test struct {
	Name      string  `json:"name"`
	Statistic float64 `json:"statistic"`
	Kind      string  `json:"kind"` // "chi-square" or "z"
	DF        int     `json:"df,omitempty"`
	P         float64 `json:"p"`
	Pass      bool    `json:"pass"`
	Note      string  `json:"note,omitempty"`
}

// Report is the certification report.
type Report struct {
	Source     string    `json:"source"`
	Decks      int       `json:"decks"`
	Orders     int       `json:"orders"`
	Confidence float64   `json:"confidence"`
	When       time.Time `json:"when"`
	Tests      []Test    `json:"tests"`
	Pass       bool      `json:"pass"`
}

// Report computes every test at confidence (0.99 for 99%): a test fails when its p-value is
// below 1 − confidence.
func (c *Collector) Report(source string, confidence float64, when time.Time) Report {
	alpha := 1 - confidence
	r := Report{Source: source, Decks: c.decks, Orders: c.count, Confidence: confidence, When: when.UTC()}
	N := float64(c.count)
	if c.count < 2 {
		return r
	}
	d := float64(c.decks)

	// Card position: each (card, position) cell expects N·D/n = N/52.
	exp := N * d / float64(c.n)
	chi := 0.0
	worst, worstCard := 0.0, 0
	for card := range 52 {
		cc := 0.0
		for p := 0; p < c.n; p++ {
			x := float64(c.pos[p][card]) - exp
			cc += x * x / exp
		}
		chi += cc
		if cc > worst {
			worst, worstCard = cc, card
		}
	}
	df := 51 * (c.n - 1)
	p := ChiSquareSF(chi, df)
	r.Tests = append(r.Tests, Test{Name: "card position", Kind: "chi-square", Statistic: chi, DF: df, P: p, Pass: p >= alpha,
		Note: fmt.Sprintf("52 cards × %d positions, %.1f expected per cell", c.n, exp)})
	pw := math.Min(1, 52*ChiSquareSF(worst, c.n-1))
	r.Tests = append(r.Tests, Test{Name: "worst single card", Kind: "chi-square", Statistic: worst, DF: c.n - 1, P: pw, Pass: pw >= alpha,
		Note: fmt.Sprintf("%s; p-value Bonferroni-adjusted over the 52 cards", card.FromIndex(worstCard))})

	// Adjacent pairs, given how often each card had a successor: card b follows card a with
	// probability (copies of b left)/(n−1).
	chi, df = 0, 0
	for a := range 52 {
		row := 0
		for b := range 52 {
			row += c.succ[a][b]
		}
		cells := 0
		for b := range 52 {
			copies := d
			if a == b {
				copies = d - 1
			}
			if copies == 0 {
				continue
			}
			e := float64(row) * copies / (float64(c.n) - 1)
			x := float64(c.succ[a][b]) - e
			chi += x * x / e
			cells++
		}
		df += cells - 1
	}
	p = ChiSquareSF(chi, df)
	r.Tests = append(r.Tests, Test{Name: "adjacent pairs", Kind: "chi-square", Statistic: chi, DF: df, P: p, Pass: p >= alpha,
		Note: "which card follows which"})

	// Colour runs (Wald–Wolfowitz) with r red and b black cards.
	rr, bb, n := float64(c.n)/2, float64(c.n)/2, float64(c.n)
	mu := 1 + 2*rr*bb/n
	v := 2 * rr * bb * (2*rr*bb - n) / (n * n * (n - 1))
	z := (c.runs.sum/N - mu) / math.Sqrt(v/N)
	p = NormalSF2(z)
	r.Tests = append(r.Tests, Test{Name: "colour runs", Kind: "z", Statistic: z, P: p, Pass: p >= alpha,
		Note: fmt.Sprintf("mean %.3f runs, expected %.3f", c.runs.sum/N, mu)})

	if c.decks == 1 {
		mu, v := (n+1)/2, (n+1)/12
		z := (c.rise.sum/N - mu) / math.Sqrt(v/N)
		p = NormalSF2(z)
		r.Tests = append(r.Tests, Test{Name: "rising sequences", Kind: "z", Statistic: z, P: p, Pass: p >= alpha,
			Note: fmt.Sprintf("mean %.3f, expected %.1f", c.rise.sum/N, mu)})
	}
	r.Pass = true
	for _, t := range r.Tests {
		r.Pass = r.Pass && t.Pass
	}
	return r
}

// WriteText writes the report for people.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "SHUFFLE RANDOMNESS REPORT\n")
	fmt.Fprintf(&b, "  source       %s\n", r.Source)
	fmt.Fprintf(&b, "  shoe         %d deck(s), %d cards\n", r.Decks, 52*r.Decks)
	fmt.Fprintf(&b, "  orders       %d\n", r.Orders)
	fmt.Fprintf(&b, "  confidence   %.1f%% (a test fails when p < %.3g)\n", 100*r.Confidence, 1-r.Confidence)
	fmt.Fprintf(&b, "  date         %s\n\n", r.When.Format(time.RFC3339))
	fmt.Fprintf(&b, "  %-20s %-11s %14s %7s %10s  %-6s %s\n", "test", "kind", "statistic", "df", "p-value", "result", "note")
	for _, t := range r.Tests {
		res := "PASS"
		if !t.Pass {
			res = "FAIL"
		}
		df := ""
		if t.DF > 0 {
			df = fmt.Sprint(t.DF)
		}
		fmt.Fprintf(&b, "  %-20s %-11s %14.3f %7s %10.4g  %-6s %s\n", t.Name, t.Kind, t.Statistic, df, t.P, res, t.Note)
	}
	verdict := "PASS: no test rejects randomness"
	if !r.Pass {
		verdict = "FAIL: at least one test rejects randomness"
	}
	fmt.Fprintf(&b, "\n  verdict      %s at %.1f%% confidence\n", verdict, 100*r.Confidence)
	fmt.Fprintf(&b, "  note         each test is run at the stated level; with %d tests, a random shuffle fails one\n", len(r.Tests))
	fmt.Fprintf(&b, "               about %.0f%% of the time: a lab repeats a failed run with a fresh sample.\n", 100*(1-math.Pow(r.Confidence, float64(len(r.Tests)))))
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadOrders reads shuffled orders, one per line (cards as in RULES.md §0, separated by spaces
// or commas; blank lines and # comments skipped), each checked to be exactly decks complete
// decks. The first bad line is an error naming the line and what is wrong with it.
func ReadOrders(r io.Reader, decks int, fn func([]card.Card) error) (int, error) {
	want := card.Decks(decks)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line, n := 0, 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		order, err := card.ParseList(s)
		if err != nil {
			return n, fmt.Errorf("certify: line %d: %w", line, err)
		}
		if len(order) != 52*decks {
			d := card.Diff(want, card.CountOf(order))
			return n, fmt.Errorf("certify: line %d: %d cards, a %d-deck shoe has %d: %s", line, len(order), decks, 52*decks, card.DescribeDiff(d))
		}
		if d := card.Diff(want, card.CountOf(order)); len(d) > 0 {
			return n, fmt.Errorf("certify: line %d: not %d complete decks: %s", line, decks, card.DescribeDiff(d))
		}
		if err := fn(order); err != nil {
			return n, err
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("certify: line %d: %w", line+1, err)
	}
	return n, nil
}
