package cv

import (
	"math/rand/v2"
	"testing"
)

// cardDesc describes rows [0, rows) of a synthetic card from one end: card(u, v) values, end 1
// the card turned.
func cardDesc(card []float32, lf, rows, end int) *desc {
	d := &desc{top: fineMargin, fineRows: fineMargin + rows, fine: make([]float32, fineW*(fineMargin+rows)*3)}
	for y := range rows {
		for x := range fineScale {
			sy, sx := y, x
			if end == 1 {
				sy, sx = lf-1-y, fineScale-1-x
			}
			copy(d.fine[((y+fineMargin)*fineW+fineMargin+x)*3:][:3], card[(sy*fineScale+sx)*3:][:3])
		}
	}
	return d
}

// lay puts a card's ends (end 0, end 1) into tm as calibration does: every frame away from its
// cut first, then the rows at a cut no other frame showed.
func lay(tm *cardTemplate, ends ...*desc) {
	for _, atCut := range []bool{false, true} {
		for e, d := range ends {
			tm.put(d, e, atCut)
		}
	}
}

func randomCard(rng *rand.Rand, lf int) []float32 {
	c := make([]float32, lf*fineScale*3)
	for i := range c {
		c[i] = float32(rng.NormFloat64())
	}
	return c
}

// Two passes lay each card's two ends into one template, which knows every row either showed.
func TestTemplateTwoPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const lf, rows = 180, 120
	card := randomCard(rng, lf)
	tm := newTemplate(lf)
	lay(tm, cardDesc(card, lf, rows, 0), cardDesc(card, lf, rows, 1))
	for y := range lf {
		if !tm.known[y] {
			t.Fatalf("row %d not known", y)
		}
		for i, v := range tm.row(y) {
			if v != card[y*fineScale*3+i] {
				t.Fatalf("row %d value %d is %v, want %v", y, i, v, card[y*fineScale*3+i])
			}
		}
	}
	// Turned, the template is the card seen from its other end.
	tt := tm.turned()
	d := cardDesc(card, lf, lf, 1)
	for y := range lf {
		for i, v := range tt.row(y) {
			if v != d.fine[((y+fineMargin)*fineW+fineMargin)*3+i] {
				t.Fatalf("turned row %d differs", y)
			}
		}
	}
}

// A frame's rows at the reader window's cut are not the card's own (describe.go): where a second
// pass turned end for end shows those rows away from its cut, the template takes them from it;
// with one pass, it keeps them (nothing better shows them).
func TestTemplateCutRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const lf, rows = 180, 120
	card := randomCard(rng, lf)
	spoilt := func(end int) *desc {
		d := cardDesc(card, lf, rows, end)
		for i := (fineMargin + rows - cutRows) * fineW * 3; i < len(d.fine); i++ {
			d.fine[i] += 100
		}
		return d
	}
	two := newTemplate(lf)
	lay(two, spoilt(0), spoilt(1))
	for y := range lf {
		if !two.known[y] {
			t.Fatalf("two passes: row %d not known", y)
		}
		if v, want := two.row(y)[0], card[y*fineScale*3]; v != want {
			t.Fatalf("two passes: row %d is %v, want the card's %v (not a row at a cut)", y, v, want)
		}
	}
	one := newTemplate(lf)
	lay(one, spoilt(0))
	for y := range lf {
		if one.known[y] != (y < rows) {
			t.Fatalf("one pass: row %d known %v, want %v", y, one.known[y], y < rows)
		}
	}
	if v, want := one.row(rows - 1)[0], card[(rows-1)*fineScale*3]+100; v != want {
		t.Fatalf("one pass: the last row seen is %v, want the frame's own %v", v, want)
	}
}

// One pass knows the end it saw; completion infers the rows near the other end from it (a
// two-ended design), and leaves the middle of the far end unknown.
func TestTemplateComplete(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const lf, rows = 190, 110
	card := randomCard(rng, lf)
	tm := newTemplate(lf)
	lay(tm, cardDesc(card, lf, rows, 0))
	tm.complete()
	for y := range lf {
		want := y < rows || y >= lf-symRows
		if tm.known[y] != want {
			t.Errorf("row %d known %v, want %v", y, tm.known[y], want)
		}
	}
	// A completed row is the seen end's row turned about the centre.
	y := lf - 1
	for x := range fineScale {
		if tm.v[(y*fineScale+x)*3] != card[(0*fineScale+fineScale-1-x)*3] {
			t.Fatal("the last row is not the first turned")
		}
	}
}

// The card's length is where two passes' ends agree, or where one pass's ends agree with
// themselves turned (a card symmetric end for end); a card that is not gives none.
func TestLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const lf, rows = 186, 120
	var first, second, sym, asym []*desc
	for range 20 {
		card := randomCard(rng, lf)
		first = append(first, cardDesc(card, lf, rows, 0))
		second = append(second, cardDesc(card, lf, rows, 1))
		// A symmetric card: its lower half the upper turned.
		s := randomCard(rng, lf)
		for y := lf / 2; y < lf; y++ {
			for x := range fineScale {
				copy(s[(y*fineScale+x)*3:][:3], s[((lf-1-y)*fineScale+fineScale-1-x)*3:][:3])
			}
		}
		sym = append(sym, cardDesc(s, lf, rows, 0))
		asym = append(asym, cardDesc(randomCard(rng, lf), lf, rows, 0))
	}
	if l := lengthFromPasses(first, second); l != float64(lf)/fineScale {
		t.Errorf("from two passes: %v, want %v", l, float64(lf)/fineScale)
	}
	if l := lengthFromSymmetry(sym); l != float64(lf)/fineScale {
		t.Errorf("from a symmetric pass: %v, want %v", l, float64(lf)/fineScale)
	}
	if l := lengthFromSymmetry(asym); l != 0 {
		t.Errorf("from cards that are not symmetric: %v, want 0", l)
	}
}

// The cut card's template, when calibration saw none, is what every card shares: the median.
func TestPlainTemplate(t *testing.T) {
	var cards []*cardTemplate
	for i := range 5 {
		c := newTemplate(2)
		for y := range 2 {
			c.known[y] = true
		}
		for j := range c.v {
			c.v[j] = float32(i) // median 2; of the four that know row 1, the upper median 3
		}
		cards = append(cards, c)
	}
	cards[0].known[1] = false
	p := plainTemplate(cards, 2)
	if !p.known[0] || !p.known[1] || p.v[0] != 2 || p.v[len(p.v)-1] != 3 {
		t.Errorf("plain template: known %v, values %v … %v", p.known, p.v[0], p.v[len(p.v)-1])
	}
}
