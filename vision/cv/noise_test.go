package cv

import (
	"math/rand/v2"
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
		tm.put(cardDesc(card, lf, rows, 0), 0)
		tm.put(cardDesc(card, lf, rows, 1), 1)
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
		tm.put(cardDesc(randomCard(rng, lf), lf, lf, 0), 0)
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
