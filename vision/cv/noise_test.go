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
	noise := fitNoise([]string{"As", "Ks"}, templates, float64(lf)/fineScale, samples, false)
	for p, n := range noise {
		// The sensor's noise, and a little for the model's blur variants and gains.
		if n.sigma0 > 2*sigma {
			t.Errorf("%s: noise floor %.3f, the samples' noise is %.3f", partNames[p], n.sigma0, sigma)
		}
	}
}
