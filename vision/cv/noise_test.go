package cv

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// A second pass's frames show each card's other end on top: the noise model compares them with
// that end of their class's template. Compared with the first end, the two ends' difference was
// counted as noise (oxygen-two-pass's first noise floor was several times its frames' own).
func TestNoiseTurnedPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const lf, rows, sigma = 180, 120, 0.1
	var templates []*cardTemplate
	var cards [][]float32
	for range 2 {
		card := randomCard(rng, lf)
		tm := newTemplate(lf)
		lay(tm, cardDesc(card, lf, rows, 0), cardDesc(card, lf, rows, 1))
		templates = append(templates, tm)
		cards = append(cards, card)
	}
	var samples []noiseSample
	for c, card := range cards {
		for end := range 2 {
			for range 4 {
				d := cardDesc(card, lf, rows, end)
				for i := range d.fine {
					d.fine[i] += float32(sigma * rng.NormFloat64())
				}
				samples = append(samples, noiseSample{class: c, end: end, ends: []*desc{d}})
			}
		}
	}
	noise := fitNoise([]string{"As", "Ks"}, templates, float64(lf)/fineScale, samples, false, 0)
	for p, n := range noise {
		// The sensor's noise, and a little for the model's blur variants and gains.
		if n.sigma0 > 2*sigma {
			t.Errorf("%s: noise floor %.3f, the samples' noise is %.3f", partNames[p], n.sigma0, sigma)
		}
	}
}

// One pass of a two-ended design infers its far end by symmetry, true of its index corners but
// not of a one-way face: each view's face leaves out the far end's inferred rows.
func TestFaceSeenRows(t *testing.T) {
	const lf = 180
	if got := inferredRows("shoe", 1, float64(lf)/fineScale); got != symRows {
		t.Errorf("one shoe pass of a two-ended design: %d rows inferred at each end, want %d", got, symRows)
	}
	for _, c := range []struct {
		source string
		passes int
		length float64
	}{{"shoe", 2, 1.4}, {"photo", 1, 1.4}, {"shoe", 1, 0}} {
		if got := inferredRows(c.source, c.passes, c.length); got != 0 {
			t.Errorf("%+v: %d rows inferred at each end, want none", c, got)
		}
	}
	rng := rand.New(rand.NewPCG(3, 5))
	var templates []*cardTemplate
	for range 2 {
		tm := newTemplate(lf)
		lay(tm, cardDesc(randomCard(rng, lf), lf, lf, 0))
		templates = append(templates, tm)
	}
	var unit [nParts]noiseModel
	for p := range unit {
		unit[p] = noiseModel{sigma0: 1}
	}
	m := newModel([]string{"As", "Ks"}, templates, float64(lf)/fineScale, unit, true, symRows)
	ends := map[int]bool{}
	for _, v := range m.views {
		ends[v.end] = true
		for y, ok := range v.parts[face].known {
			r := y * faceK
			want := v.end == 0 && r+faceK <= lf-symRows || v.end == 1 && r >= symRows
			if ok != want {
				t.Errorf("%s seen from end %d: face row %d (card rows %d-%d) compared %v, want %v", m.classes[v.class], v.end, y, r, r+faceK-1, ok, want)
			}
		}
	}
	if !ends[0] || !ends[1] {
		t.Errorf("the views' ends: %v, want both", ends)
	}
}

// A template is as sharp as the calibration frame it was made from. A card photographed small
// gives a blunt template; a frame of it taken closer is sharper, and a sharp template of another
// class that differs from it only in a corner fitted the frame's crisp edges better (the 8♠ read
// as the 9♠). The class is compared with the frame blurred to its template's sharpness.
func TestFrameBlur(t *testing.T) {
	for _, c := range []struct{ frame, tmpl, want float64 }{
		{250, 118, 1.0}, // 128·√(1/118² − 1/250²) = 0.96
		{250, 165, 0.5}, // 0.58
		{250, 230, 0},   // 0.22: under half a step
		{250, 330, 0},   // the template is the sharper
		{0, 118, 0},     // the frame's width not known
		{250, 0, 0},     // the template's not recorded
	} {
		if got := frameBlur(c.frame, c.tmpl); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("frameBlur(%v, %v) = %v, want %v", c.frame, c.tmpl, got, c.want)
		}
	}
	const lf = 180
	rng := rand.New(rand.NewPCG(7, 9))
	b := newBlurrer()
	defer b.Close()
	sharp := b.blur(randomCard(rng, lf), lf, variant{motion: 1, focus: 0.7})
	// The rival: the same card but for a patch of each index corner (a 9 where the 8 is).
	rival := slices.Clone(sharp)
	other := b.blur(randomCard(rng, lf), lf, variant{motion: 1, focus: 0.7})
	for y := 8; y < 24; y++ {
		for _, x := range [][2]int{{y*fineScale + 8, y*fineScale + 20}, {(lf-1-y)*fineScale + fineScale - 20, (lf-1-y)*fineScale + fineScale - 8}} {
			copy(rival[x[0]*3:x[1]*3], other[x[0]*3:x[1]*3])
		}
	}
	small := b.blur(sharp, lf, variant{motion: 1, focus: 1.0}) // the 8 photographed small
	var unit [nParts]noiseModel
	for p := range unit {
		unit[p] = noiseModel{sigma0: 1}
	}
	read := func(widths [2]float64) []float64 {
		var templates []*cardTemplate
		for i, c := range [][]float32{small, rival} {
			tm := newTemplate(lf)
			lay(tm, cardDesc(c, lf, lf, 0))
			tm.widthPx = widths[i]
			templates = append(templates, tm)
		}
		m := newModel([]string{"8s", "9s"}, templates, float64(lf)/fineScale, unit, true, 0)
		ends := make([]frameEnd, 2)
		for e := range 2 {
			m.load(&ends[e], cardDesc(sharp, lf, lf, e), 250, b)
		}
		dist := make([]float64, distLen*2) // the classes', their blanks', their worst parts'
		m.fit(ends, m.candidates(2), nil, dist)
		return dist[:2]
	}
	// Without the templates' widths the sharper rival fits better: the case the test is for.
	if d := read([2]float64{0, 0}); d[0] < d[1] {
		t.Fatalf("templates' widths not known: 8s at %.3f, 9s at %.3f; the rival does not beat the blunt template", d[0], d[1])
	}
	if d := read([2]float64{118, 330}); d[0] >= d[1] {
		t.Errorf("8s photographed 118 px wide, 9s 330, the frame 250: 8s at %.3f, 9s at %.3f, want 8s nearer", d[0], d[1])
	}
}

// The card's outline (a band inside it, round its rounded corners) is compared for no class: a
// frame whose outline step differs (another table, another card colour, the outline's error)
// fits every class as the same frame with its template's outline does.
func TestOutlineNotCompared(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const lf, rows = 180, 120
	var templates []*cardTemplate
	var cards [][]float32
	for range 2 {
		card := randomCard(rng, lf)
		tm := newTemplate(lf)
		lay(tm, cardDesc(card, lf, rows, 0), cardDesc(card, lf, rows, 1))
		templates = append(templates, tm)
		cards = append(cards, card)
	}
	var unit [nParts]noiseModel
	for p := range unit {
		unit[p] = noiseModel{sigma0: 1}
	}
	m := newModel([]string{"As", "Ks"}, templates, float64(lf)/fineScale, unit, false, 0)
	for _, v := range m.views {
		for p := range nParts {
			tp := &v.parts[p]
			for i, w := range tp.w[0] {
				if on := onOutline(partID(p), i%tp.width, i/tp.width, lf); on != (w == 0) {
					t.Fatalf("%s part %s value %d: on the outline %v, weight %v", m.classes[v.class], partNames[p], i, on, w)
				}
			}
		}
	}
	if !onCard(0, 60, lf) || !onCard(60, lf-1, lf) || !onCard(outlineBand, outlineBand, lf) || onCard(cornerRadius, cornerRadius, lf) || onCard(60, 60, lf) {
		t.Errorf("the outline band's geometry")
	}
	// A frame of As, and the same frame with its outline band darkened (a light table's step).
	dist := func(d *desc) []float64 {
		var ends [1]frameEnd
		ends[0].load(d)
		out := make([]float64, distLen*len(m.classes))
		m.fit(ends[:], m.candidates(1), nil, out)
		return out[:len(m.classes)]
	}
	clean := cardDesc(cards[0], lf, rows, 0)
	stepped := cardDesc(cards[0], lf, rows, 0)
	for y := range rows {
		for x := range fineScale {
			if onCard(x, y, lf) {
				for c := range 3 {
					stepped.fine[((y+fineMargin)*fineW+fineMargin+x)*3+c] -= 3
				}
			}
		}
	}
	// Its own class, fitted where the outline puts it, exactly; another class, whose best
	// shift may reach a few pixels into the band, within 1%.
	a, b := dist(clean), dist(stepped)
	if math.Abs(a[0]-b[0]) > 1e-9 {
		t.Errorf("As: distance %.9f, with the outline stepped %.9f", a[0], b[0])
	}
	if math.Abs(a[1]-b[1]) > 0.01*a[1] {
		t.Errorf("Ks: distance %.6f, with the outline stepped %.6f", a[1], b[1])
	}
	if !(a[0] < 1e-3 && a[1] > 0.5) {
		t.Errorf("As's own frame: As at %.4f, Ks at %.4f", a[0], a[1])
	}
}
