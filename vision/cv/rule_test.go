package cv

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
)

// The threshold is on the relative distance: one distance from the best class's template is
// close enough for a card unlike every other and too far for a card with a near twin.
func TestRelativeDistance(t *testing.T) {
	r := &Recognizer{m: &model{classes: []string{"As", "Ac", "Kd"}}, rule: calibration.VisionRule{MaxRelative: 0.5, MinLead: 0.3}}
	delta := [][]float64{
		{math.Inf(1), 0.02, 0.40},
		{0.02, math.Inf(1), 0.40},
		{0.40, 0.40, math.Inf(1)},
	}
	for l := range nLevels {
		r.delta[l] = delta
		r.nearest[l], r.near[l] = nearestOf(delta)
	}
	for _, c := range []struct {
		dist   []float64
		want   string // the card, or the start of the rejection
		reason string
	}{
		{[]float64{0.45, 0.45, 0.05}, "Kd", ""},
		{[]float64{0.05, 0.09, 0.45}, "", "nothing fits: best As at relative distance 2.50"},
		{[]float64{0.005, 0.021, 0.40}, "As", ""},
		{[]float64{0.005, 0.009, 0.40}, "", "As or Ac: lead 0.20"},
		// A class the frame could not be compared with is not ruled out.
		{[]float64{0.005, math.Inf(1), 0.40}, "", "As or Ac: lead 0.00"},
		// A class taken out of the profile (NaN) is no rival.
		{[]float64{0.005, math.NaN(), 0.40}, "As", ""},
	} {
		res, dec := r.decide(c.dist, 0)
		switch {
		case c.want != "" && (res.Kind != vision.Card || res.Card.String() != c.want):
			t.Errorf("%v: %v (%s), want %s", c.dist, res, dec.Rule, c.want)
		case c.want == "" && (res.Kind != vision.Reject || !strings.HasPrefix(res.Reason, c.reason)):
			t.Errorf("%v: %v (%s), want rejected %q", c.dist, res, dec.Rule, c.reason)
		}
	}
}

// A plain cell is measured against the frame's own ink: a card blurred or dimmed evenly is as
// far from the plain cut card as it is sharp, and a plain card's noise stays near it.
func TestPlainByOwnInk(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	newDesc := func(amp float64) *desc {
		rows := fineScale + 2*fineMargin
		d := &desc{fine: make([]float32, fineW*rows*3), fineRows: rows, face: make([]float32, faceScale*faceScale*3), faceRows: faceScale, idxOK: true}
		for i := range d.fine {
			d.fine[i] = float32(amp * rng.NormFloat64())
		}
		return d
	}
	classes := []string{}
	var samples []sample
	for i, c := range card.Deck() {
		classes = append(classes, c.String())
		d := newDesc(1)
		samples = append(samples, sample{class: i, base: d, perturbed: []*desc{d}})
	}
	classes = append(classes, classBack, classCut)
	m := learnModel(classes, samples, false)
	var cut, own *view
	for i := range m.views {
		switch v := &m.views[i]; m.classes[v.class] {
		case classCut:
			cut = v
		case "7h":
			own = v
		}
	}
	dists := func(d *desc) (float64, float64) {
		var s scratch
		m.indexBlock(d, 0, 0, &s)
		return m.indexDist(&s.idx, &cut.idx[0]), m.indexDist(&s.idx, &own.idx[0])
	}
	frame := samples[own.class].base
	cut1, own1 := dists(frame)
	dim := &desc{fine: make([]float32, len(frame.fine)), fineRows: frame.fineRows, idxOK: true}
	for i, v := range frame.fine {
		dim.fine[i] = 0.6 * v
	}
	cut2, own2 := dists(dim)
	if math.Abs(cut1-cut2) > 1e-6 || math.Abs(own1-own2) > 1e-6 {
		t.Errorf("7h at 60%% of its ink: %.4f from the cut card and %.4f from its own template; at full ink %.4f and %.4f", cut2, own2, cut1, own1)
	}
	if cut1 < 0.5 {
		t.Errorf("7h is %.3f from the plain cut card, want at least 0.5", cut1)
	}
	if c, _ := dists(newDesc(0.01)); c > 0.01 {
		t.Errorf("a plain card's noise is %.4f from the cut card, want under 0.01", c)
	}
}
