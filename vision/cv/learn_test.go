package cv

import (
	"math/rand/v2"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

// A pass with no frame of the cut card (photographs of the 52 cards) still knows it: the cut
// card is plain, its template no ink whatever its colour.
func TestLearnPlainCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	newDesc := func() *desc {
		rows := fineScale + 2*fineMargin
		d := &desc{fine: make([]float32, fineW*rows*3), fineRows: rows, face: make([]float32, faceScale*faceScale*3), faceRows: faceScale, idxOK: true}
		for i := range d.fine {
			d.fine[i] = float32(rng.NormFloat64())
		}
		for i := range d.face {
			d.face[i] = float32(rng.NormFloat64())
		}
		return d
	}
	classes := []string{}
	var samples []sample
	for i, c := range card.Deck() {
		classes = append(classes, c.String())
		d := newDesc()
		samples = append(samples, sample{class: i, base: d, perturbed: []*desc{d}})
	}
	classes = append(classes, classBack, classCut)
	m := learnModel(classes, samples, false)
	cut := 0
	for _, v := range m.views {
		if m.classes[v.class] != classCut {
			continue
		}
		cut++
		if !v.plain || !v.hasIdx || v.faceRows != 0 || v.idx[0].n == 0 {
			t.Errorf("the cut card's view: plain %v, index %v, face rows %d, index cells %d", v.plain, v.hasIdx, v.faceRows, v.idx[0].n)
		}
		for _, p := range v.idx[0].plain {
			if !p {
				t.Fatal("the cut card's template has ink")
			}
		}
	}
	if cut != 1 {
		t.Errorf("%d views of the cut card, want 1", cut)
	}
}
