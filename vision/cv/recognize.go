package cv

import (
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
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

	sc    *scanner
	tf    *tableFinder
	d     *describer
	f     gocv.Mat // the table frame, float
	bl    *blurrer // blurs a frame's ends to a blunt template's sharpness: model.load
	descs [2]desc
	ends  [2]frameEnd
	// frameWidth is the located card's width in pixels (table view; 0: not known): model.load.
	frameWidth float64
	cands      []cand
	fits       []candFit
	dist       []float64
}

var _ vision.Judge = (*Recognizer)(nil)

// ErrView is wrapped when a profile cannot read a view (a profile made from photographs has no
// reader-window rule).
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
	classes, templates, err := templatesOf(p)
	if err != nil {
		return nil, err
	}
	m := newModel(classes, templates, p.CardLength, noiseOf(rule), view == vision.Table, inferredRows(p.Source, p.Passes, p.CardLength))
	return newRecognizer(p, view, m, rule), nil
}

func newRecognizer(p *calibration.VisionProfile, view vision.View, m *model, rule calibration.VisionRule) *Recognizer {
	r := &Recognizer{p: p, view: view, m: m, rule: rule, sc: newScanner(), tf: newTableFinder(), d: newDescriber(), f: gocv.NewMat(), bl: newBlurrer()}
	n := 1
	if view == vision.Table {
		n = 2
	}
	r.cands = m.candidates(n)
	r.dist = make([]float64, distLen*len(m.classes))
	return r
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
	r.bl.Close()
	r.sc = nil
	return nil
}

// String names the recognizer for logs: "shoe recognizer (deck anglo, camera shoe-reader 320x240)".
func (r *Recognizer) String() string {
	return fmt.Sprintf("%s recognizer (deck %s, camera %s)", r.view, r.p.Deck, r.p.Camera)
}

// Profile returns the profile the recognizer reads with.
func (r *Recognizer) Profile() *calibration.VisionProfile { return r.p }

// Classes returns the classes the recognizer scores, in the order of Evidence.Dist (whose
// second half is their blanks', model.fit).
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
	dist := r.classDist(n)
	res, dec := r.decide(dist)
	res.Evidence = &vision.Evidence{Dist: slices.Clone(dist), Fits: dec.Distance <= r.rule.MaxDistance}
	res.Elapsed = time.Since(start)
	if tr != nil {
		tr.Decision = dec
		tr.top(r.m, r.ends[:n], r.fits, dist, func(c int) float64 { return r.lead(dec.best, c, dist) })
	}
	return res, tr, nil
}

// locate finds the card and describes it: one end in a shoe frame, both ends on the table. It
// returns how many ends were described.
func (r *Recognizer) locate(frame gocv.Mat, tr *Trace) (int, error) {
	r.frameWidth = 0
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
	r.frameWidth = p.widthPx
	if r.m.length > 0 {
		if lp, ok := quadPoseLen(p.corners, r.m.length); ok {
			p = lp
		}
	}
	length := p.length
	if r.m.length == 0 {
		length = float64(r.m.faceRows*faceK) / fineScale
	}
	frame.ConvertTo(&r.f, gocv.MatTypeCV32FC3)
	gocv.GaussianBlur(r.f, &r.f, image.Pt(0, 0), 0.7, 0.7, gocv.BorderReplicate)
	q := p.turned()
	var errs [2]error
	for e, pp := range []*pose{&p, &q} {
		errs[e] = r.d.describe(r.f, pp, length, &r.descs[e])
		var eo errOutline
		if errors.As(errs[e], &eo) {
			// An end cut by the frame's edge: nothing of it is compared (its rows are none).
			r.descs[e].top, r.descs[e].fineRows = 0, 0
			r.descs[e].fine = r.descs[e].fine[:0]
		}
	}
	if errs[0] != nil && errs[1] != nil {
		return 0, errs[0]
	}
	for _, err := range errs {
		if err != nil && !errors.As(err, new(errOutline)) {
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

// classDist measures every class against the described ends (n of them): each class's
// distance D, +Inf where no view of it could be compared, then each class's blank's, then each
// class's worst part's (model.fit).
func (r *Recognizer) classDist(n int) []float64 {
	for e := range n {
		r.m.load(&r.ends[e], &r.descs[e], r.frameWidth, r.bl)
	}
	r.fits = r.m.fit(r.ends[:n], r.cands, r.fits, r.dist)
	return r.dist
}

// Judge decides a card passage from its frames' mean distances (vision.Combiner), by the rule
// that decides one frame.
func (r *Recognizer) Judge(dist []float64) vision.Result {
	if len(dist) != distLen*len(r.m.classes) {
		return vision.Rejected(fmt.Sprintf("evidence of %d distances, the profile's %d classes give %d", len(dist), len(r.m.classes), distLen*len(r.m.classes)), 0)
	}
	res, _ := r.decide(dist)
	return res
}

// Decision is how a frame's answer was reached.
type Decision struct {
	Best, Runner string  // the best-fitting class and the rival it leads least
	Distance     float64 // the best class's distance
	Lead         float64 // its lead over the runner-up
	Part         float64 // the best class's worst-fitting part's distance
	Accepted     bool
	By           Refusal // which of the rule's tests rejected the frame; NotRefused if accepted
	Rule         string  // the rule that decided, in words
	MaxDistance  float64
	MinLead      float64
	MaxPart      float64
	best         int
}

// distLen: a frame's distances are three per class: the class's, its blank's and its worst
// part's (model.fit).
const distLen = 3

// lead is how far class a leads class b for a frame at distances dist: the difference of their
// distances in units of its spread,
//
//	lead(a, b) = (D(b) − D(a)) / √(δ(a, b) · D(a))
//
// δ(a, b) being how far b's template is from a's. The difference of the two distances is, but
// for a constant, the frame's position on the line between the two templates; the noise moves it
// by an amount that grows as √δ (the more two templates differ, the more values the noise can
// push either way) and as the frame's own misfit D(a) (a blurred, noisy frame fits its own
// template worse, and wanders more). A frame that is a's template plus noise leads b by about
// √δ/√D(a) in these units whatever the pair; two templates alike (δ 0) are never told apart.
//
// Rival n+a (n classes) is a's blank: a card of its design without ink, at distance dist[n+a]
// and δ ink[a] from it.
func (r *Recognizer) lead(a, b int, dist []float64) float64 {
	return leadOf(r.m.delta, r.m.ink, a, b, dist)
}

func leadOf(delta [][]float64, ink []float64, a, b int, dist []float64) float64 {
	da, db := dist[a], dist[b]
	switch {
	case math.IsNaN(da) || math.IsInf(da, 1) || math.IsNaN(db):
		return 0
	case math.IsInf(db, 1):
		return math.Inf(1) // b could not be compared at all: no rival
	}
	var d float64
	if n := len(delta); b >= n {
		d = ink[a]
	} else {
		d = delta[a][b]
	}
	if math.IsNaN(d) || d <= 1e-9 {
		return 0
	}
	return (db - da) / math.Sqrt(d*max(da, 1e-9))
}

// decide applies the one rule: the best-fitting class is the answer when its distance is at most
// the profile's threshold, none of its parts fits worse than the profile's part threshold (a
// class's distance pools its parts' squares, and corners that fit can outvote a face that does
// not), and it leads every other class by at least the profile's margin —
// and, a card, its own blank: a plain card of another design, a card whose index the frame does
// not show, fits the ink of no card, and a faint template fits it better than any other; only
// the index that is there leads its blank. Otherwise the frame is rejected, naming the best
// class and the rival it leads least.
func (r *Recognizer) decide(dist []float64) (vision.Result, Decision) {
	dec := Decision{MaxDistance: r.rule.MaxDistance, MinLead: r.rule.MinLead, MaxPart: r.rule.MaxPart, best: -1}
	n := len(r.m.classes)
	best, runner, lead := bestAndRunner(dist, n, r.lead)
	if best < 0 {
		dec.Rule, dec.By = "rejected: no class could be measured", RefusedMeasure
		return vision.Rejected("no class could be measured", 0), dec
	}
	dec.best = best
	dec.Best, dec.Distance, dec.Lead, dec.Part = r.m.classes[best], dist[best], lead, dist[2*n+best]
	switch {
	case runner >= n:
		dec.Runner = "blank"
	case runner >= 0:
		dec.Runner = r.m.classes[runner]
	}
	conf := max(0, min(1, lead/(2*max(r.rule.MinLead, 1e-9))))
	switch {
	case dist[best] > r.rule.MaxDistance:
		dec.By = RefusedThreshold
		dec.Rule = fmt.Sprintf("rejected: the best class %s is at distance %.3f, above the threshold %.3f: not a card of this deck as calibrated (runner-up %s)", dec.Best, dist[best], r.rule.MaxDistance, dec.Runner)
		return vision.Rejected(fmt.Sprintf("nothing fits: best %s at distance %.2f (at most %.2f), runner-up %s", dec.Best, dist[best], r.rule.MaxDistance, dec.Runner), conf), dec
	case dec.Part > r.rule.MaxPart:
		dec.By = RefusedPart
		dec.Rule = fmt.Sprintf("rejected: the best class %s fits as a whole (distance %.3f) but one of its parts does not (distance %.3f, above the part threshold %.3f): another card, or a part the outline misplaced (runner-up %s)", dec.Best, dist[best], dec.Part, r.rule.MaxPart, dec.Runner)
		return vision.Rejected(fmt.Sprintf("a part does not fit: best %s, its worst part at %.2f (at most %.2f), runner-up %s", dec.Best, dec.Part, r.rule.MaxPart, dec.Runner), conf), dec
	case runner >= n && lead < r.rule.MinLead:
		dec.By = RefusedBlank
		dec.Rule = fmt.Sprintf("rejected: %s leads its blank (the card without ink, at distance %.3f) by %.2f, under the margin %.2f: the frame does not show its index", dec.Best, dist[runner], lead, r.rule.MinLead)
		return vision.Rejected(fmt.Sprintf("no index: %s leads a blank by %.2f (at least %.2f)", dec.Best, lead, r.rule.MinLead), 0), dec
	case lead < r.rule.MinLead:
		dec.By = RefusedMargin
		dec.Rule = fmt.Sprintf("rejected: %s leads the runner-up %s by %.2f, under the margin %.2f", dec.Best, dec.Runner, lead, r.rule.MinLead)
		return vision.Rejected(fmt.Sprintf("%s or %s: lead %.2f (at least %.2f)", dec.Best, dec.Runner, lead, r.rule.MinLead), conf), dec
	}
	dec.Accepted = true
	dec.Rule = fmt.Sprintf("accepted: distance %.3f ≤ %.3f, worst part %.3f ≤ %.3f and lead %.2f over %s ≥ %.2f", dist[best], r.rule.MaxDistance, dec.Part, r.rule.MaxPart, lead, dec.Runner, r.rule.MinLead)
	return resultOf(dec.Best, conf), dec
}

// Refusal is why a frame was not read: the frame was not read at all, no card was found in it,
// or the test of the rule it failed (in the order decide applies them).
type Refusal int

const (
	NotRefused       Refusal = iota
	RefusedUnread            // no recognizer for its view, or the file could not be used
	RefusedNoCard            // no outline, one too faint, or a card cut by the frame
	RefusedMeasure           // no class could be measured
	RefusedThreshold         // nothing fits within the threshold
	RefusedPart              // the best class's worst part beyond the part threshold
	RefusedBlank             // the best card does not lead its blank: no index shown
	RefusedMargin            // the best class leads a rival by under the margin
	nRefusals
)

var refusalNames = [nRefusals]string{"accepted by the rule", "not read", "no card found",
	"no class measured", "nothing fits", "a part misfits", "no index", "under the margin"}

func (r Refusal) String() string {
	if r < 0 || r >= nRefusals {
		return fmt.Sprintf("Refusal(%d)", int(r))
	}
	return refusalNames[r]
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
	// Map is the misfit map of the two classes that fit best (misfit.go); nil when no card
	// was compared.
	Map      image.Image
	contrast float32
	peak     float32
}

// ClassFit is one class's fit in a trace: its distance, its lead (the best class's over it;
// for the best class, its lead over the runner-up), and how its best view was compared.
type ClassFit struct {
	Class    string
	Distance float64
	Lead     float64
	How      string
}

func (t *Trace) top(m *model, ends []frameEnd, fits []candFit, dist []float64, lead func(int) float64) {
	idx := make([]int, 0, len(m.classes))
	for i, d := range dist[:len(m.classes)] {
		if !math.IsNaN(d) && !math.IsInf(d, 1) {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return dist[idx[a]] < dist[idx[b]] })
	for k, i := range idx[:min(5, len(idx))] {
		cf := ClassFit{Class: m.classes[i], Distance: dist[i]}
		if k == 0 {
			cf.Lead = t.Decision.Lead
		} else {
			cf.Lead = lead(i)
		}
		for _, f := range fits {
			if f.class == i && f.d == dist[i] {
				cf.How = m.describeFit(ends, f)
				break
			}
		}
		t.Top = append(t.Top, cf)
	}
	// The map of the first two.
	var mf []candFit
	var titles []string
	for k, i := range idx[:min(2, len(idx))] {
		for _, f := range fits {
			if f.class == i && f.d == dist[i] {
				mf = append(mf, f)
				how := fmt.Sprintf("leads by %.2f", t.Top[k].Lead)
				if k > 0 {
					how = fmt.Sprintf("led by %.2f", t.Top[k].Lead)
				}
				titles = append(titles, fmt.Sprintf("%d. %s  distance %.3f, %s (end %d)", k+1, m.classes[i], dist[i], how, m.views[f.a].end))
				break
			}
		}
	}
	if len(mf) > 0 {
		t.Map, _ = m.misfitMap(ends, mf, titles)
	}
}

// describeFit says how a candidate was compared: its end, blur and each part's shift, gain and
// distance (the part's own mean weighted square: the part that does not fit stands out).
func (m *model) describeFit(ends []frameEnd, f candFit) string {
	v := m.variants[f.variant]
	var b strings.Builder
	fmt.Fprintf(&b, "end %d, blur %d px along, %.1f px round;", m.views[f.a].end, v.motion, v.focus)
	if fe := ends[0].of(f.class); fe != &ends[0] {
		fmt.Fprintf(&b, " the frame blurred %.1f px round to the template's sharpness (its card %.0f px wide);", ends[0].blurs[ends[0].level[f.class]], m.widthPx[f.class])
	}
	for i, s := range f.slots() {
		name := partNames[s.part]
		if s.end == 1 {
			name = "far " + name
		}
		g := f.gain[i]
		fmt.Fprintf(&b, " %s (%+d, %+d) gain %.2f %.2f %.2f", name, f.shift[i][0], f.shift[i][1], g[0], g[1], g[2])
		if pf := m.fitPart(ends[s.end].of(f.class), &m.views[s.view].parts[s.part], s.part, f.variant, f.shift[i][0], f.shift[i][1]); pf.n > 0 {
			fmt.Fprintf(&b, " distance %.2f", pf.chi/float64(pf.n))
		}
		b.WriteString(";")
	}
	if !f.refined {
		b.WriteString(" not searched (not among the best fitting)")
	}
	return strings.TrimSuffix(b.String(), ";")
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
		if i == 0 {
			fmt.Fprintf(&b, "  %d. %-4s distance %.3f, leads the runner-up by %.2f (%s)\n", i+1, c.Class, c.Distance, c.Lead, c.How)
		} else {
			fmt.Fprintf(&b, "  %d. %-4s distance %.3f, led by %.2f (%s)\n", i+1, c.Class, c.Distance, c.Lead, c.How)
		}
	}
	fmt.Fprintf(&b, "rule: distance at most %.3f, each part at most %.3f, lead at least %.2f (estimated false accepts %.1g a frame)\n", t.Rule.MaxDistance, t.Rule.MaxPart, t.Rule.MinLead, t.Rule.FalseAccept)
	fmt.Fprintf(&b, "decision: %s\n", t.Decision.Rule)
	return b.String()
}

func (l line) String() string {
	if l.n == 0 {
		return "none"
	}
	return fmt.Sprintf("%d points", l.n)
}
