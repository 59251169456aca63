package cv

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/vision"
)

// The lead is the difference of two distances in units of its spread: a frame that is a's
// template plus noise leads b by about √(δ/D(a)), whatever the pair.
func TestLead(t *testing.T) {
	delta := [][]float64{{0, 4, 0}, {4, 0, 1}, {0, 1, 0}}
	for _, c := range []struct {
		a, b int
		dist []float64
		want float64
	}{
		{0, 1, []float64{1, 5, 9}, 2},                     // (5−1)/√(4·1)
		{0, 1, []float64{4, 8, 9}, 1},                     // the same difference, a noisier frame: half the lead
		{1, 2, []float64{9, 1, 2}, 1},                     // (2−1)/√(1·1)
		{0, 2, []float64{1, 5, 9}, 0},                     // δ 0: two templates alike are never told apart
		{0, 1, []float64{1, math.Inf(1), 9}, math.Inf(1)}, // a class not compared at all is no rival
		{0, 1, []float64{1, math.NaN(), 9}, 0},            // nor one measured as nothing
		{0, 1, []float64{math.Inf(1), math.Inf(1), 9}, 0}, // a best class not compared leads nothing
		{1, 0, []float64{5, 1, 9}, 2},                     // symmetric in its arguments' roles
		{0, 1, []float64{5, 1, 9}, -4 / math.Sqrt(20)},    // and negative when b fits better
		// Rival n+a is a's blank, δ ink[a] from it.
		{0, 3, []float64{1, 5, 9, 10, 0, 0}, 9 / math.Sqrt(9)},
		{1, 4, []float64{5, 2, 9, 0, 1, 0}, -1 / math.Sqrt(4*2)},
	} {
		if got := leadOf(delta, []float64{9, 4, 1}, c.a, c.b, c.dist); got != c.want && !(math.IsInf(got, 1) && math.IsInf(c.want, 1)) {
			t.Errorf("lead(%d, %d) at %v = %v, want %v", c.a, c.b, c.dist, got, c.want)
		}
	}
}

// The rule accepts the best class when it fits within the threshold, each of its parts within
// the part threshold, and it leads every other class by the margin, and otherwise says why,
// naming the runner-up.
func TestDecide(t *testing.T) {
	r := &Recognizer{m: &model{classes: []string{"As", "Ac", "Kd"}, delta: [][]float64{{0, 1, 9}, {1, 0, 9}, {9, 9, 0}}, ink: []float64{16, 16, 25}},
		rule: calibration.VisionRule{MaxDistance: 2, MaxPart: 4, MinLead: 0.5}}
	inf := math.Inf(1)
	for _, c := range []struct {
		dist  []float64 // the classes', then their blanks'
		want  string    // the card, or the start of the rejection
		parts []float64 // the classes' worst parts' (1 each if nil)
	}{
		{[]float64{1, 3, 20, 17, 19, 40}, "As", nil},                                     // leads Ac by (3−1)/√1 = 2
		{[]float64{1, 1.3, 20, 17, 19, 40}, "As or Ac: lead 0.30", nil},                  // too near its twin
		{[]float64{3, 9, 20, 17, 19, 40}, "nothing fits: best As at distance 3.00", nil}, // fits nothing well enough
		{[]float64{20, 20, 0.5, 17, 19, 40}, "Kd", nil},
		{[]float64{1, math.NaN(), 20, 17, 19, 40}, "As", nil}, // a class the profile does not hold is no rival
		{[]float64{inf, inf, inf, inf, inf, inf}, "no class could be measured", nil},
		// A frame without ink (a plain card, an index out of view) fits a faint As best, but a
		// blank better: (0.8−1)/√(16·1) < 0.
		{[]float64{1, 3, 20, 0.8, 2.5, 19}, "no index: As leads a blank by -0.05", nil},
		{[]float64{1, 3, 20, 2, 2.5, 19}, "no index: As leads a blank by 0.25", nil}, // (2−1)/√16
		// Corners that fit and a face that does not (anglo's 5♥ photographed, read as 6♥):
		// the whole fits, one part does not.
		{[]float64{1, 3, 20, 17, 19, 40}, "a part does not fit: best As, its worst part at 5.93 (at most 4.00), runner-up Ac", []float64{5.93, 1, 1}},
		{[]float64{1, 3, 20, 17, 19, 40}, "As", []float64{4, 9, 9}}, // at the part threshold; others' parts do not count
	} {
		parts := c.parts
		if parts == nil {
			parts = []float64{1, 1, 1}
		}
		res, dec := r.decide(slices.Concat(c.dist, parts))
		got := res.Token()
		if res.Kind == vision.Reject {
			got = res.Reason
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: %q (%s), want %q", c.dist, got, dec.Rule, c.want)
		}
	}
}

// The tail estimate counts where the trials are many enough, extrapolates beyond, and is never
// under what was counted.
func TestUpperTail(t *testing.T) {
	s := make([]float64, 1000)
	for i := range s {
		s[i] = float64(i) / 1000
	}
	if got := upperTail(s, 0.5); got != 0.5 {
		t.Errorf("P(X ≥ 0.5) = %v, want 0.5 (counted)", got)
	}
	a, b := upperTail(s, 1.0), upperTail(s, 1.1)
	if !(a > 0 && b > 0 && b < a && a < 0.011) {
		t.Errorf("beyond the samples: P(≥1.0) = %v, P(≥1.1) = %v, want falling, under the top share", a, b)
	}
	// One sample far out: the estimate there is at least one in n.
	s[999] = 5
	if got := upperTail(s, 4.9); got < 1.0/1000 {
		t.Errorf("P(X ≥ 4.9) = %v with one sample at 5 of 1000: under the count", got)
	}
}

// fitRule puts the margin past the leads by which other classes came near being read, so that
// the estimated false accepts are under the target, and the threshold at the fitShare of the
// own class's distances.
func TestFitRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	delta := [][]float64{{0, 1, 9}, {1, 0, 9}, {9, 9, 0}}
	lead := func(a, b int, d []float64) float64 { return leadOf(delta, []float64{16, 16, 25}, a, b, d) }
	var trials []trial
	for i := range 3000 {
		own := i % 3
		d := make([]float64, 3)
		for c := range d {
			d[c] = math.Abs(1 + 0.2*rng.NormFloat64())
			if c != own {
				d[c] += delta[own][c]
			}
		}
		trials = append(trials, trial{measured: true, own: own, dist: d})
	}
	ft := fitRule(trials, 3, lead)
	if ft.falseAccept > falseAcceptTarget || ft.minLead < 0 {
		t.Fatalf("margin %v with estimated false accepts %v", ft.minLead, ft.falseAccept)
	}
	if max := ft.leads[len(ft.leads)-1]; ft.minLead <= max {
		t.Errorf("margin %v under the largest lead another class reached, %v", ft.minLead, max)
	}
	if ft.wrong != 0 || ft.readRate < 0.5 {
		t.Errorf("read %v, %d wrong", ft.readRate, ft.wrong)
	}
	own := 0
	for _, tr := range trials {
		if tr.dist[tr.own] <= ft.maxDist {
			own++
		}
	}
	if share := float64(own) / float64(len(trials)); math.Abs(share-fitShare) > 0.01 {
		t.Errorf("the threshold passes %.3f of the frames' own distances, want %.2f", share, fitShare)
	}
	// A frame read as another class at a lead past any margin the others allow: the margin
	// goes past it.
	bad := trial{measured: true, own: 0, dist: []float64{1.2, 0.2, 12}}
	ft2 := fitRule(append(trials, bad), 3, lead)
	l := lead(1, 0, bad.dist)
	if ft2.minLead <= l {
		t.Errorf("margin %v, under the lead %v a wrong class reached", ft2.minLead, l)
	}
	// The margin is set by that frame: class 0's led by class 1. A refusal names the pair.
	if ft.tailPair != [2]int{-1, -1} {
		t.Errorf("tail pair %v where no other class fits within the threshold", ft.tailPair)
	}
	if tp := ft2.tailPair; tp != [2]int{0, 1} || ft2.pairShare <= 0 || ft2.tailPairLead != l {
		t.Errorf("tail pair %v (%.2f of the tail, up to %.2f), want 0 led by 1 up to %.2f", tp, ft2.pairShare, ft2.tailPairLead, l)
	}
	if note := ft2.pairNote([]string{"5c", "6c", "Kd"}); !strings.Contains(note, "5c") || !strings.Contains(note, "6c") || strings.Contains(note, "Kd") {
		t.Errorf("pair note %q", note)
	}
	if note := (fitted{tailPair: [2]int{-1, -1}}).pairNote([]string{"5c"}); note != "" {
		t.Errorf("pair note with no pair: %q", note)
	}
	if !math.IsInf(ft.maxPart, 1) {
		t.Errorf("part threshold %v from trials without parts' distances, want +Inf", ft.maxPart)
	}

	// With the parts' distances (and the blanks', far): the part threshold passes fitShare of
	// the frames' own worst parts, and a frame it does not pass is not read.
	for i := range trials {
		d := trials[i].dist
		trials[i].dist = append(slices.Clone(d), 99, 99, 99, d[0]+rng.Float64(), d[1]+rng.Float64(), d[2]+rng.Float64())
	}
	ft3 := fitRule(trials, 3, lead)
	own = 0
	for _, tr := range trials {
		if tr.dist[6+tr.own] <= ft3.maxPart {
			own++
		}
	}
	if share := float64(own) / float64(len(trials)); math.Abs(share-fitShare) > 0.01 {
		t.Errorf("the part threshold passes %.3f of the frames' own worst parts, want %.2f", share, fitShare)
	}
	if !(ft3.readRate < ft.readRate) {
		t.Errorf("read %.3f with the part threshold, %.3f without: it rejects nothing", ft3.readRate, ft.readRate)
	}

	// The margin is set by the rule's near misses: a wrong class that leads the frame's own by
	// far but not its own blank (the frame shows no index) would be rejected, and does not
	// raise it; the same frame with the blank far does, and so does one whose wrong class has
	// a part that does not fit (the part threshold is left out of the near misses: rule.go).
	miss := func(blank, part float64) trial {
		return trial{measured: true, own: 0, dist: []float64{1.2, 0.2, 12, 99, blank, 99, 1.2, part, 12}}
	}
	l = lead(1, 0, miss(99, 0.2).dist)
	for _, c := range []struct {
		name        string
		blank, part float64
		past        bool
	}{
		{"vetoed by its blank", 0.21, 0.2, false},
		{"a part that does not fit", 99, ft3.maxPart + 1, true},
		{"read wrong", 99, 0.2, true},
	} {
		ft4 := fitRule(append(slices.Clone(trials), miss(c.blank, c.part)), 3, lead)
		if got := ft4.minLead > l; got != c.past {
			t.Errorf("%s: margin %v with a frame another class leads by %v (margin %v without it)", c.name, ft4.minLead, l, ft3.minLead)
		}
	}
}

// unfit names the calibration frames most of whose perturbed copies fit their own class worse
// than the threshold, and those none of whose copies was measured; not the others.
func TestUnfit(t *testing.T) {
	frames := []*calFrame{
		{CalibrationFrame: CalibrationFrame{File: "As.jpg"}},
		{CalibrationFrame: CalibrationFrame{File: "2s.jpg"}},
		{CalibrationFrame: CalibrationFrame{File: "3s.jpg"}},
	}
	tr := func(own int, d ...float64) []trial {
		var out []trial
		for _, v := range d {
			dist := []float64{9, 9, 9}
			dist[own] = v
			out = append(out, trial{measured: true, own: own, dist: dist})
		}
		return out
	}
	trials := [][]trial{
		tr(0, 0.5, 0.9, 2.5),        // median 0.9: fits
		tr(1, 1.5, 2.5, 3, 0.2),     // median 2.5: most worse than 2
		{{measured: false, own: 2}}, // never measured
	}
	var got []string
	for _, f := range unfit(frames, trials, 2) {
		got = append(got, f.note(vision.Table, 2))
	}
	want := []string{
		"2s.jpg: most of its perturbed frames fit its own template worse than the table view's threshold (median 2.50, threshold 2.00): its card will often be rejected; if it is, capture it again (too small, out of focus, cut by the frame's edge?)",
		"3s.jpg: the table view found no card in its perturbed frames: its card will often be rejected; if it is, capture it again (too small, out of focus, cut by the frame's edge?)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("unfit's notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A photograph's smaller card gets blurs scaled by its width; a reader-sized or larger card the
// blurs as drawn.
func TestPerturbationRelative(t *testing.T) {
	q := perturbation{motion: 10, focus: 4, coarse: 1.6, noise: 5}
	q.relative(readerWidthPx / 2)
	if q.motion != 5 || q.focus != 2 || math.Abs(q.coarse-1.3) > 1e-12 || q.noise != 5 {
		t.Errorf("half a reader's card: %+v, want motion 5, focus 2, coarse 1.3, noise 5", q)
	}
	r := perturbation{motion: 10, focus: 4, coarse: 1.6}
	r.relative(2 * readerWidthPx)
	if r.motion != 10 || r.focus != 4 || r.coarse != 1.6 {
		t.Errorf("twice a reader's card: %+v, want it unchanged", r)
	}
}
