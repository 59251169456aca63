package cv

import (
	"errors"
	"fmt"
	"image"
	"math"
	"sort"
	"strings"
	"time"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
)

// Recognizer reads frames of one view (the shoe's reader window or a table camera) with one
// profile. It keeps its working Mats between frames and is not safe for concurrent use: make one
// per camera. Close releases it.
type Recognizer struct {
	p    *calibration.VisionProfile
	view vision.View
	m    *model
	rule calibration.VisionRule
	// face says whether the face is compared as well as the index: whenever calibration knows
	// it at both ends of every card (two passes, or photographs of whole cards), and on the
	// table, where both ends are in view.
	face bool

	sc    *scanner
	tf    *tableFinder
	d     *describer
	f     gocv.Mat // the table frame, float
	s     scratch
	descs [2]desc
	fits  []fit
	// delta[l][a][b]: how unlike class a's template is class b's at blur level l (see decide);
	// nearest[l][c]: the class nearest class c, and near[l][c] its δ.
	delta   [nLevels][][]float64
	nearest [nLevels][]int
	near    [nLevels][]float64
}

var _ vision.Judge = (*Recognizer)(nil)

// ErrView is wrapped when a profile cannot read a view (a profile made from photographs has no
// reader-window thresholds).
var ErrView = errors.New("vision: the profile cannot read this view")

// New makes a recognizer of view frames from a validated profile.
func New(p *calibration.VisionProfile, view vision.View) (*Recognizer, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	rule, ok := p.Rules[view.String()]
	if !ok {
		return nil, fmt.Errorf("%w: %s frames (the profile was calibrated from %s frames; calibrate again from %s frames)", ErrView, view, p.Source, view)
	}
	m, err := modelOf(p)
	if err != nil {
		return nil, err
	}
	r := &Recognizer{p: p, view: view, m: m, rule: rule, face: rule.Face, sc: newScanner(), tf: newTableFinder(), d: newDescriber(), f: gocv.NewMat()}
	r.dissimilarities()
	return r, nil
}

// Close releases the recognizer's Mats. It is idempotent.
func (r *Recognizer) Close() error {
	if r.sc == nil {
		return nil
	}
	r.sc.Close()
	r.tf.Close()
	r.d.Close()
	r.f.Close()
	r.sc = nil
	return nil
}

// String names the recognizer for logs: "shoe recognizer (deck anglo, camera shoe-reader 320x240)".
func (r *Recognizer) String() string {
	return fmt.Sprintf("%s recognizer (deck %s, camera %s)", r.view, r.p.Deck, r.p.Camera)
}

// Profile returns the profile the recognizer reads with.
func (r *Recognizer) Profile() *calibration.VisionProfile { return r.p }

// Classes returns the classes the recognizer scores, in the order of Evidence.Dist.
func (r *Recognizer) Classes() []string { return r.m.classes }

// Recognize reads one 8-bit BGR frame. A frame the recognizer cannot use at all (empty, of
// another camera's size) is an error; a frame it cannot read with confidence is a rejection.
func (r *Recognizer) Recognize(frame gocv.Mat) (vision.Result, error) {
	res, _, err := r.read(frame, false)
	return res, err
}

// Explain reads one frame as Recognize does and also says how: the trace a technician reads in
// a dispute.
func (r *Recognizer) Explain(frame gocv.Mat) (vision.Result, *Trace, error) {
	return r.read(frame, true)
}

// RecognizeFile reads an image file and recognizes it.
func (r *Recognizer) RecognizeFile(path string) (vision.Result, error) {
	m, err := ReadImage(path)
	if err != nil {
		return vision.Result{}, err
	}
	defer m.Close()
	return r.Recognize(m)
}

func (r *Recognizer) read(frame gocv.Mat, explain bool) (vision.Result, *Trace, error) {
	start := time.Now()
	if err := checkFrame(frame); err != nil {
		return vision.Result{}, nil, err
	}
	var tr *Trace
	if explain {
		tr = &Trace{View: r.view, Rule: r.rule}
	}
	if r.view == vision.Shoe {
		if w, h := frame.Cols(), frame.Rows(); w != r.p.Camera.Width || h != r.p.Camera.Height {
			return vision.Result{}, nil, fmt.Errorf("%w: %dx%d, the profile's reader camera gives %dx%d frames", ErrFrame, w, h, r.p.Camera.Width, r.p.Camera.Height)
		}
	}
	n, err := r.locate(frame, tr)
	if err != nil {
		res := r.noCard(err, tr)
		res.Elapsed = time.Since(start)
		return res, tr, nil
	}
	dist, level := r.classDist(n)
	res, dec := r.decide(dist, level)
	res.Evidence = &vision.Evidence{Dist: dist, Fits: dec.Relative <= r.rule.MaxRelative, Level: level}
	res.Elapsed = time.Since(start)
	if tr != nil {
		tr.Decision = dec
		tr.top(r.m.classes, dist, func(c int) float64 { return r.relative(c, dist[c], level) })
	}
	return res, tr, nil
}

// locate finds the card and describes it: one end in a shoe frame, both ends on the table. It
// returns how many ends were described.
func (r *Recognizer) locate(frame gocv.Mat, tr *Trace) (int, error) {
	if r.view == vision.Shoe {
		if err := r.sc.load(frame); err != nil {
			return 0, err
		}
		p, o, err := r.sc.findShoe()
		if tr != nil {
			tr.Outline = fmt.Sprintf("top edge %s, left side %s, right side %s (steps of %.0f and more; the window's columns' largest steps: median %.0f, 90th percentile %.0f)",
				o.top, o.left, o.right, o.thr, o.contrast, o.peak)
			tr.contrast = o.contrast
		}
		// The empty window: no outline, and nothing in the frame as strong as a share of the
		// faintest card calibration saw. An outline that faint is not read either: noise can
		// line up, and a dark card on dark felt is not the empty window.
		faint := r.p.EdgeContrast > 0 && float64(o.peak) < emptyShare*r.p.EdgeContrast
		if tr != nil {
			tr.peak = o.peak
		}
		switch {
		case err != nil && faint && errors.Is(err, errNoCard):
			return 0, errEmpty
		case err != nil:
			return 0, err
		case faint:
			return 0, fmt.Errorf("%w: an outline at contrast %.0f, under a third of the faintest card calibrated (%.0f): too faint to read", errNoCard, o.peak, r.p.EdgeContrast)
		}
		if tr != nil {
			tr.Corners = p.corners[:2]
			tr.WidthPx = p.widthPx
		}
		return 1, r.d.describe(r.sc.f, &p, maxLength, &r.descs[0])
	}
	p, o, err := r.tf.findTable(frame)
	if tr != nil {
		tr.Outline = fmt.Sprintf("%d outline(s) of a card's shape; gradient threshold %.0f; sides' edge points off their lines %.0f%%", o.candidates, o.thr, 100*o.fit)
	}
	if err != nil {
		return 0, err
	}
	if tr != nil {
		tr.Corners = p.corners[:]
		tr.WidthPx = p.widthPx
	}
	if r.m.length > 0 {
		if lp, ok := quadPoseLen(p.corners, r.m.length); ok {
			p = lp
		}
	}
	frame.ConvertTo(&r.f, gocv.MatTypeCV32FC3)
	gocv.GaussianBlur(r.f, &r.f, image.Pt(0, 0), 0.7, 0.7, gocv.BorderReplicate)
	q := p.turned()
	for e, pp := range []*pose{&p, &q} {
		if err := r.d.describe(r.f, pp, pp.length, &r.descs[e]); err != nil {
			return 0, err
		}
	}
	return 2, nil
}

// emptyShare: a shoe frame with no outline whose peak contrast is under this share of the
// faintest calibrated card is the empty window. On the rendered tuning sets the empty window's
// columns show largest steps of 13–38, a card's in the hardest looks 100 and more, against
// calibrated cards of 145 and more: a third leaves a factor of about 1.3 to 2 either way.
const emptyShare = 1.0 / 3

// errEmpty is returned by locate for the empty window.
var errEmpty = errors.New("the empty window")

// noCard answers a frame in which no card outline was found: the empty window (NONE), or a
// rejection.
func (r *Recognizer) noCard(err error, tr *Trace) vision.Result {
	why := strings.ReplaceAll(err.Error(), "\n", ": ")
	if errors.Is(err, errEmpty) {
		if tr != nil {
			tr.Decision = Decision{Rule: fmt.Sprintf("no card outline, and the window's contrast %.0f is under a third of the faintest card calibrated (%.0f): the empty window", tr.peak, r.p.EdgeContrast)}
		}
		return vision.Result{Kind: vision.None, Confidence: 1}
	}
	if tr != nil {
		tr.Decision = Decision{Rule: "rejected: " + why}
	}
	return vision.Rejected(why, 0)
}

// classDist measures every class against the described ends (n of them), and returns the blur
// level the frame was compared at.
func (r *Recognizer) classDist(n int) ([]float64, int) {
	m := r.m
	dist := make([]float64, len(m.classes))
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	if n == 1 {
		r.fits = m.fitAll(&r.descs[0], &r.s, r.face, r.fits)
		for _, f := range r.fits {
			c := m.views[f.view].class
			dist[c] = min(dist[c], f.d)
		}
		return dist, r.s.level
	}
	// The table: both ends of the card are in view. Where calibration knows both ends of a
	// class, each end of the frame is compared with one of them (the two ways round); else each
	// end of the frame with the one known.
	var per [2][]float64
	level := nLevels - 1
	for e := range 2 {
		per[e] = make([]float64, len(m.views))
		r.fits = m.fitAll(&r.descs[e], &r.s, r.face, r.fits)
		level = min(level, r.s.level) // the sharper end's: the larger δ, the stricter lead
		for _, f := range r.fits {
			per[e][f.view] = f.d
		}
	}
	for v := range m.views {
		vw := &m.views[v]
		c := vw.class
		if o := m.other[v]; o >= 0 {
			for e := range 2 {
				dist[c] = min(dist[c], (per[e][v]+per[1-e][o])/2)
			}
			continue
		}
		dist[c] = min(dist[c], per[0][v], per[1][v])
	}
	return dist, level
}

// Judge decides a card passage from its frames' mean distances (vision.Combiner), by the rule
// that decides one frame, at the frames' blur level (clamped to the recognizer's levels).
func (r *Recognizer) Judge(dist []float64, level int) vision.Result {
	if len(dist) != len(r.m.classes) {
		return vision.Rejected(fmt.Sprintf("evidence of %d classes, the profile has %d", len(dist), len(r.m.classes)), 0)
	}
	res, _ := r.decide(dist, max(0, min(nLevels-1, level)))
	return res
}

// Decision is how a frame's answer was reached.
type Decision struct {
	Best, Runner string  // the best-fitting class and the rival it leads least
	Distance     float64 // the best class's distance
	Relative     float64 // that distance as a share of δ(best, nearest) (see decide)
	Nearest      string  // the class whose template is nearest the best class's
	Lead         float64 // its lead over the runner-up
	Accepted     bool
	Rule         string // the rule that decided, in words
	MaxRelative  float64
	MinLead      float64
}

// decide applies the one rule: the best-fitting class is the answer when its relative distance is
// at most the profile's threshold and it leads every other class by at least the profile's
// margin. Both are measured against δ(a, b), how far class b's template is from class a's (at
// the frame's blur level):
//
//	relative = D(best) / δ(best, nearest)
//	lead     = (D(rival) − D(best)) / δ(best, rival)
//
// The relative distance is 0 at the best class's template and 1 as far from it as the nearest
// other class's template is: a card with a near twin (A♠ and A♣ of one design) must fit its
// template closely, a card unlike every other may fit it loosely, and a frame of a card the
// profile does not hold fits no template within a share of its distance from the others. The
// lead is 1 when the frame is the best class's template itself, 0 when it is as near the rival.
// The runner-up is the rival led least.
func (r *Recognizer) decide(dist []float64, level int) (vision.Result, Decision) {
	dec := Decision{MaxRelative: r.rule.MaxRelative, MinLead: r.rule.MinLead}
	best := -1
	for c, d := range dist {
		if !math.IsNaN(d) && !math.IsInf(d, 1) && (best < 0 || d < dist[best]) {
			best = c
		}
	}
	if best < 0 {
		dec.Rule = "rejected: no class could be measured"
		return vision.Rejected("no class could be measured", 0), dec
	}
	runner, lead := -1, math.Inf(1)
	for c, d := range dist {
		if c == best || math.IsNaN(d) {
			continue
		}
		// A class the frame could not be compared with (its index out of the frame, a face
		// the template has too little of) is not ruled out: the frame cannot tell it apart.
		l := 0.0
		if dl := r.delta[level][best][c]; !math.IsInf(d, 1) && dl > 0 {
			l = (d - dist[best]) / dl
		}
		if l < lead {
			runner, lead = c, l
		}
	}
	dec.Best, dec.Distance, dec.Lead = r.m.classes[best], dist[best], lead
	dec.Relative = r.relative(best, dist[best], level)
	if n := r.nearest[level][best]; n >= 0 {
		dec.Nearest = r.m.classes[n]
	}
	if runner >= 0 {
		dec.Runner = r.m.classes[runner]
	}
	conf := max(0, min(1, lead))
	switch {
	case dec.Relative > r.rule.MaxRelative:
		dec.Rule = fmt.Sprintf("rejected: the best class %s is at distance %.3f, %.2f of the way to %s's template, above the threshold %.2f: not a card of this deck as calibrated", dec.Best, dist[best], dec.Relative, dec.Nearest, r.rule.MaxRelative)
		return vision.Rejected(fmt.Sprintf("nothing fits: best %s at relative distance %.2f (at most %.2f)", dec.Best, dec.Relative, r.rule.MaxRelative), conf), dec
	case lead < r.rule.MinLead:
		dec.Rule = fmt.Sprintf("rejected: %s leads the runner-up %s by %.2f, under the margin %.2f", dec.Best, dec.Runner, lead, r.rule.MinLead)
		return vision.Rejected(fmt.Sprintf("%s or %s: lead %.2f (at least %.2f)", dec.Best, dec.Runner, lead, r.rule.MinLead), conf), dec
	}
	dec.Accepted = true
	dec.Rule = fmt.Sprintf("accepted: relative distance %.2f ≤ %.2f (distance %.3f, nearest %s) and lead %.2f over %s ≥ %.2f", dec.Relative, r.rule.MaxRelative, dist[best], dec.Nearest, lead, dec.Runner, r.rule.MinLead)
	return resultOf(dec.Best, conf), dec
}

// resultOf turns a class token into a result.
func resultOf(tok string, conf float64) vision.Result {
	switch tok {
	case classCut:
		return vision.Result{Kind: vision.Cut, Confidence: conf}
	case classBack:
		return vision.Result{Kind: vision.Back, Confidence: conf}
	}
	c, err := card.Parse(tok)
	if err != nil {
		return vision.Rejected("unknown class "+tok, 0)
	}
	return vision.Result{Kind: vision.Card, Card: c, Confidence: conf}
}

// The classes beyond the 52 cards.
const (
	classCut  = "CUT"
	classBack = "BACK"
)

// dissimilarity measures how unlike each class's templates are every other's, as a frame would be
// measured: the index blocks (and the faces, where compared) by 1 − their correlation, a plain
// block against an inked one as 1, two plain blocks as 0.
func (r *Recognizer) dissimilarities() {
	for l := range nLevels {
		r.delta[l], r.nearest[l], r.near[l] = r.dissimilarity(l)
	}
}

func (r *Recognizer) dissimilarity(level int) ([][]float64, []int, []float64) {
	m := r.m
	n := len(m.classes)
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, n)
		for j := range out[i] {
			out[i][j] = math.Inf(1)
		}
	}
	pair := func(a, b *view) float64 {
		d, k := 0.0, 0
		if a.hasIdx && b.hasIdx {
			d += m.indexDist(&a.idx[level], &b.idx[level])
			k++
		}
		if r.face {
			rows := min(a.faceRows, b.faceRows)
			if c1 := rows / faceCell * (faceScale / faceCell); c1 >= minFaceCells {
				d += blockDist(&a.face, &b.face, 0, c1, m.inkFace)
				k++
			}
		}
		if k == 0 {
			return math.Inf(1)
		}
		return d / float64(k)
	}
	for i := range m.views {
		for j := range m.views {
			a, b := &m.views[i], &m.views[j]
			if a.class == b.class {
				continue
			}
			d := pair(a, b)
			if r.view == vision.Table {
				if oa, ob := m.other[i], m.other[j]; oa >= 0 && ob >= 0 {
					d = (d + pair(&m.views[oa], &m.views[ob])) / 2
				}
			}
			out[a.class][b.class] = min(out[a.class][b.class], d)
		}
	}
	nearest, near := nearestOf(out)
	return out, nearest, near
}

// nearestOf returns, for each class, the class whose template is nearest its own (either way
// round) and that δ: -1 and +Inf for a class alone.
func nearestOf(delta [][]float64) ([]int, []float64) {
	n := len(delta)
	nearest, near := make([]int, n), make([]float64, n)
	for a := range n {
		nearest[a], near[a] = -1, math.Inf(1)
		for b := range n {
			if d := min(delta[a][b], delta[b][a]); b != a && d < near[a] {
				nearest[a], near[a] = b, d
			}
		}
	}
	return nearest, near
}

// relative is class c's distance d as a share of δ(c, nearest): 0 at its template, 1 as far
// from it as the nearest other class's template is.
func (r *Recognizer) relative(c int, d float64, level int) float64 {
	switch rc := r.near[level][c]; {
	case math.IsInf(rc, 1):
		return d // the only class: nothing to be mistaken for
	case rc <= 0:
		return math.Inf(1) // another class's template is this one's: never told apart
	default:
		return d / rc
	}
}

// Trace says how a frame was read: the outline found, the classes that fit best, the threshold and
// the margin, and the rule that decided. `sabot vision read --explain` prints it.
type Trace struct {
	View     vision.View
	Outline  string
	Corners  []point
	WidthPx  float64
	Top      []ClassFit
	Rule     calibration.VisionRule
	Decision Decision
	contrast float32
	peak     float32
}

// ClassFit is one class's distance and lead in a trace.
type ClassFit struct {
	Class    string
	Distance float64
	Relative float64 // the distance as a share of δ(class, its nearest class)
}

func (t *Trace) top(classes []string, dist []float64, relative func(int) float64) {
	idx := make([]int, 0, len(dist))
	for i, d := range dist {
		if !math.IsNaN(d) && !math.IsInf(d, 1) {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return dist[idx[a]] < dist[idx[b]] })
	for _, i := range idx[:min(5, len(idx))] {
		t.Top = append(t.Top, ClassFit{Class: classes[i], Distance: dist[i], Relative: relative(i)})
	}
}

// String prints the trace, one fact a line.
func (t *Trace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "view: %s\n", t.View)
	fmt.Fprintf(&b, "outline: %s\n", t.Outline)
	if len(t.Corners) > 0 {
		fmt.Fprintf(&b, "corners:")
		for _, c := range t.Corners {
			fmt.Fprintf(&b, " (%.1f, %.1f)", c.x, c.y)
		}
		fmt.Fprintf(&b, "; card width %.1f px\n", t.WidthPx)
	}
	for i, c := range t.Top {
		fmt.Fprintf(&b, "  %d. %-4s distance %.3f, relative %.2f\n", i+1, c.Class, c.Distance, c.Relative)
	}
	fmt.Fprintf(&b, "rule: relative distance at most %.2f, lead at least %.2f (estimated false accepts %.1g a frame)\n", t.Rule.MaxRelative, t.Rule.MinLead, t.Rule.FalseAccept)
	fmt.Fprintf(&b, "decision: %s\n", t.Decision.Rule)
	return b.String()
}

func (l line) String() string {
	if l.n == 0 {
		return "none"
	}
	return fmt.Sprintf("%d points", l.n)
}
