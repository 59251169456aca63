package cv

import (
	"math"
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
	noise := fitNoise([]string{"As", "Ks"}, templates, float64(lf)/fineScale, samples, false, math.MaxInt)
	for p, n := range noise {
		// The sensor's noise, and a little for the model's blur variants and gains.
		if n.sigma0 > 2*sigma {
			t.Errorf("%s: noise floor %.3f, the samples' noise is %.3f", partNames[p], n.sigma0, sigma)
		}
	}
}

// One pass of a two-ended design infers its far end by symmetry, true of its index corners but
// not of a one-way face: the face is compared over the rows calibration saw only.
func TestFaceSeenRows(t *testing.T) {
	const lf = 180
	if got, want := seenRows("shoe", 1, float64(lf)/fineScale), lf-symRows; got != want {
		t.Errorf("one shoe pass of a two-ended design: the face's rows %d, want %d", got, want)
	}
	for _, c := range []struct {
		source string
		passes int
		length float64
	}{{"shoe", 2, 1.4}, {"photo", 1, 1.4}, {"shoe", 1, 0}} {
		if got := seenRows(c.source, c.passes, c.length); got != math.MaxInt {
			t.Errorf("%+v: the face's rows %d, want all", c, got)
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
	m := newModel([]string{"As", "Ks"}, templates, float64(lf)/fineScale, unit, true, lf-symRows)
	for y, ok := range m.support[face] {
		if want := (y+1)*faceK <= lf-symRows; ok != want {
			t.Errorf("face row %d (card rows %d-%d) compared %v, want %v", y, y*faceK, (y+1)*faceK-1, ok, want)
		}
	}
}
