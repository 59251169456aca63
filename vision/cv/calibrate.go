package cv

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
)

// CalibrationFrame is one frame of a calibration pass: the card (or "CUT", "BACK") it shows.
type CalibrationFrame struct {
	Token string
	File  string // where it came from, for errors ("" for a live capture)
	Frame gocv.Mat
}

// CalibrateOptions sets up a calibration.
type CalibrateOptions struct {
	Deck, Camera string
	// Source is "shoe" (frames of the reader window), "photo" (whole cards anywhere in a
	// frame), or "" to tell from the frames: shoe frames when the reader's outline is found in
	// most of them.
	Source string
	// Perturbations is how many perturbed frames of each calibration frame the rule is derived
	// from (0: 40); Seed makes them (0: 1).
	Perturbations int
	Seed          uint64
	// Progress, when set, is told how far calibration is.
	Progress func(stage string, done, total int)
	// Now gives the profile's creation time (nil: time.Now).
	Now func() time.Time
}

// ErrCalibration is wrapped by every error about the calibration frames.
var ErrCalibration = errors.New("vision: calibration")

// Perturbed frames: templatePerturbations of each calibration frame make its template (the mean
// of their descriptions: what the card looks like under the conditions of the field, not only
// under the calibration frame's).
const (
	templatePerturbations = 16
	rulePerturbations     = 40
)

// CalibrateDirs calibrates from one directory of frames (a pass of the deck through the reader,
// or photographs of each card), or two: the second a pass of the deck turned end for end. Each
// directory holds one image per card named by its code (As.jpg … Kc.jpg), and optionally CUT and
// BACK.
func CalibrateDirs(ctx context.Context, dirs []string, o CalibrateOptions) (*calibration.VisionProfile, error) {
	if len(dirs) < 1 || len(dirs) > 2 {
		return nil, fmt.Errorf("%w: %d directories given (one pass, or two with the deck turned end for end)", ErrCalibration, len(dirs))
	}
	var passes [][]CalibrationFrame
	defer func() {
		for _, p := range passes {
			for _, f := range p {
				f.Frame.Close()
			}
		}
	}()
	for _, dir := range dirs {
		p, err := readPass(dir)
		if err != nil {
			for _, f := range p {
				f.Frame.Close()
			}
			return nil, err
		}
		passes = append(passes, p)
	}
	return Calibrate(ctx, passes, o)
}

// readPass reads one directory's calibration frames.
func readPass(dir string) ([]CalibrationFrame, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCalibration, err)
	}
	var out []CalibrationFrame
	seen := map[string]string{}
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || !imageExts[ext] {
			continue
		}
		tok := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		if tok != classCut && tok != classBack {
			c, err := card.Parse(tok)
			if err != nil || c.String() != tok {
				return out, fmt.Errorf("%w: %s: the name is not a card code (As … Kc), CUT or BACK", ErrCalibration, filepath.Join(dir, e.Name()))
			}
		}
		if prev, ok := seen[tok]; ok {
			return out, fmt.Errorf("%w: %s and %s both show %s", ErrCalibration, prev, filepath.Join(dir, e.Name()), tok)
		}
		path := filepath.Join(dir, e.Name())
		seen[tok] = path
		m, err := ReadImage(path)
		if err != nil {
			return out, fmt.Errorf("%w: %w", ErrCalibration, err)
		}
		out = append(out, CalibrationFrame{Token: tok, File: path, Frame: m})
	}
	return out, nil
}

// calFrame is a calibration frame located and described.
type calFrame struct {
	CalibrationFrame
	class, end int
	pose       pose
	desc       desc
	band       gocv.Mat // the card as seen, 8-bit, for the report
	// length is the card's length in card widths that photographs are resampled by (0: the
	// reader window's frames, described from the card's top only).
	length float64
}

// Calibrate learns a profile from one pass of the deck, or two (the second turned end for end).
// The caller keeps the frames.
func Calibrate(ctx context.Context, passes [][]CalibrationFrame, o CalibrateOptions) (*calibration.VisionProfile, error) {
	if o.Perturbations <= 0 {
		o.Perturbations = rulePerturbations
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	progress := func(stage string, done, total int) {
		if o.Progress != nil {
			o.Progress(stage, done, total)
		}
	}
	if len(passes) < 1 || len(passes) > 2 {
		return nil, fmt.Errorf("%w: %d passes (one, or two with the deck turned end for end)", ErrCalibration, len(passes))
	}
	// Every pass holds the 52 cards, once each, in frames of one size.
	var w, h int
	for pi, pass := range passes {
		have := map[string]bool{}
		for _, f := range pass {
			if err := checkFrame(f.Frame); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrCalibration, f.name(), err)
			}
			if have[f.Token] {
				return nil, fmt.Errorf("%w: pass %d shows %s twice", ErrCalibration, pi+1, f.Token)
			}
			have[f.Token] = true
			if w == 0 {
				w, h = f.Frame.Cols(), f.Frame.Rows()
			}
		}
		var missing []string
		for _, c := range card.Deck() {
			if !have[c.String()] {
				missing = append(missing, c.String())
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%w: pass %d has no frame of %s", ErrCalibration, pi+1, strings.Join(missing, " "))
		}
	}
	source := o.Source
	if source == "" {
		source = guessSource(passes)
	}
	if source != "shoe" && source != "photo" {
		return nil, fmt.Errorf("%w: source %q (want shoe or photo)", ErrCalibration, source)
	}
	if source == "shoe" {
		for _, pass := range passes {
			for _, f := range pass {
				if f.Frame.Cols() != w || f.Frame.Rows() != h {
					return nil, fmt.Errorf("%w: %s is %dx%d, the other frames %dx%d: one reader camera gives frames of one size", ErrCalibration, f.name(), f.Frame.Cols(), f.Frame.Rows(), w, h)
				}
			}
		}
	}
	classes := make([]string, 0, 54)
	index := map[string]int{}
	for _, c := range card.Deck() {
		index[c.String()] = len(classes)
		classes = append(classes, c.String())
	}
	for _, t := range []string{classBack, classCut} {
		index[t] = len(classes)
		classes = append(classes, t)
	}
	// Find and describe every calibration frame.
	var frames []*calFrame
	defer func() {
		for _, f := range frames {
			f.band.Close()
		}
	}()
	w0 := newWorker()
	defer w0.Close()
	var edgeContrast float64
	for pi, pass := range passes {
		for _, f := range pass {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			cf := &calFrame{CalibrationFrame: f, class: index[f.Token], end: pi, band: gocv.NewMat()}
			frames = append(frames, cf)
			p, contrast, err := w0.locateOne(f.Frame, source)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: cannot find the card: %s", ErrCalibration, f.name(), strings.ReplaceAll(err.Error(), "\n", ": "))
			}
			cf.pose = p
			if source == "shoe" && (edgeContrast == 0 || float64(contrast) < edgeContrast) {
				edgeContrast = float64(contrast)
			}
		}
	}
	// A photograph's outline is the card in perspective, its sides' ratio not the card's: the
	// card is resampled by its true shape, the median of the photographs' outlines (tilted every
	// way), here and in every frame read.
	var length float64
	if source == "photo" {
		ls := make([]float64, 0, len(frames))
		for _, f := range frames {
			ls = append(ls, f.pose.length)
		}
		slices.Sort(ls)
		length = ls[len(ls)/2]
	}
	for _, cf := range frames {
		if length > 0 {
			cf.length = length
			if p, ok := quadPoseLen(cf.pose.corners, length); ok {
				cf.pose = p
			}
		}
		if err := w0.describeAt(cf.Frame, source, &cf.pose, &cf.desc); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrCalibration, cf.name(), err)
		}
		if !cf.desc.idxOK && cf.Token != classCut {
			return nil, fmt.Errorf("%w: %s: the card's index corner is not wholly in the frame", ErrCalibration, cf.name())
		}
		w0.d.warp.ConvertTo(&cf.band, gocv.MatTypeCV8UC3)
	}
	progress("found the card in every frame", len(frames), len(frames))
	widths := make([]float64, 0, len(frames))
	for _, f := range frames {
		widths = append(widths, f.pose.widthPx)
	}
	slices.Sort(widths)
	// The templates: each frame's perturbed descriptions, averaged.
	samples := make([]sample, len(frames))
	err := parallel(ctx, len(frames), func(wk *worker, i int) error {
		f := frames[i]
		rng := rand.New(rand.NewPCG(o.Seed, uint64(i)))
		s := sample{class: f.class, end: f.end, base: &f.desc, plain: f.Token == classCut}
		for range templatePerturbations {
			d, ok := wk.perturbed(f, source, true, rng)
			if ok {
				s.perturbed = append(s.perturbed, d)
			}
		}
		if len(s.perturbed) < templatePerturbations/2 {
			return fmt.Errorf("%w: %s: the card was lost in %d of %d perturbed frames: capture it again, square in the window and in focus", ErrCalibration, f.name(), templatePerturbations-len(s.perturbed), templatePerturbations)
		}
		samples[i] = s
		return nil
	}, func(done int) { progress("learning the templates", done, len(frames)) })
	if err != nil {
		return nil, err
	}
	m := learnModel(classes, samples, source == "shoe" && len(passes) == 1)
	if length > 0 {
		m.length = length
	}
	views, err := profileViews(m, bandsOf(frames))
	if err != nil {
		return nil, err
	}
	p := &calibration.VisionProfile{
		Deck: o.Deck, Created: o.Now().UTC().Truncate(time.Second), Camera: calibration.Camera{Name: o.Camera, Width: w, Height: h},
		Source: source, Passes: len(passes), Geometry: geometry, CardWidthPx: widths[len(widths)/2], EdgeContrast: round6(edgeContrast),
		InkIndex: m.inkIdx, InkFace: m.inkFace, FaceRows: m.faceRows, CardLength: round6(m.length), Views: views,
	}
	// The rules: each view's perturbed frames read against the profile, and against it without
	// their class.
	viewsToRule := []vision.View{vision.Table}
	if source == "shoe" {
		viewsToRule = []vision.View{vision.Shoe, vision.Table}
	}
	p.Rules = map[string]calibration.VisionRule{}
	for _, v := range viewsToRule {
		face := true
		trials := make([][]trial, len(frames))
		err := parallel(ctx, len(frames), func(wk *worker, i int) error {
			f := frames[i]
			rec := wk.recognizer(p, m, v, face)
			rng := rand.New(rand.NewPCG(o.Seed+1000*uint64(v), uint64(i)))
			for range o.Perturbations {
				trials[i] = append(trials[i], wk.trial(rec, frames, i, source, v, rng))
			}
			_ = f
			return nil
		}, func(done int) { progress(fmt.Sprintf("deriving the %s rule", v), done, len(frames)) })
		if err != nil {
			return nil, err
		}
		var all []trial
		for _, t := range trials {
			all = append(all, t...)
		}
		ft := fitRule(all)
		p.Rules[v.String()] = calibration.VisionRule{
			MaxRelative: round6(ft.maxDist), MinLead: round6(ft.minLead), Face: face,
			FalseAccept: max(ft.farAbsent, ft.farPresent), ReadRate: ft.readRate,
			Samples: ft.samples, Impostors: ft.impostors, Wrong: ft.wrong,
		}
		if ft.farAbsent > falseAcceptTarget || ft.farPresent > falseAcceptTarget {
			return nil, fmt.Errorf("%w: no threshold keeps the %s view's estimated false accepts under 1 in 10,000: the calibration frames cannot tell the cards apart (a damaged or mixed deck?)", ErrCalibration, v)
		}
		if ft.readRate < minReadRate {
			return nil, fmt.Errorf("%w: the %s view's rule (relative distance ≤ %.2f, lead ≥ %.2f) reads only %.1f%% of the calibration frames perturbed: it would reject most cards (a one-ended design passed at either end? pass the deck again turned end for end, --turned)", ErrCalibration, v, ft.maxDist, ft.minLead, 100*ft.readRate)
		}
	}
	p.Notes = notesOf(p, frames)
	if err := p.Seal(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("vision: calibration made a profile it cannot read: %w", err)
	}
	return p, nil
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func (f CalibrationFrame) name() string {
	if f.File != "" {
		return f.File
	}
	return f.Token
}

// guessSource tells shoe frames from photographs: shoe frames when the reader window's outline
// is found in most of them.
func guessSource(passes [][]CalibrationFrame) string {
	sc := newScanner()
	defer sc.Close()
	n, ok := 0, 0
	for _, f := range passes[0] {
		if n >= 12 {
			break
		}
		n++
		if sc.load(f.Frame) == nil {
			if _, _, err := sc.findShoe(); err == nil {
				ok++
			}
		}
	}
	if ok*2 > n {
		return "shoe"
	}
	return "photo"
}

// bandsOf maps each view (in model order: the frames' order) to its calibration band.
func bandsOf(frames []*calFrame) map[int]gocv.Mat {
	out := map[int]gocv.Mat{}
	for i, f := range frames {
		out[i] = f.band
	}
	return out
}

// notesOf says what the technician should know of a profile.
func notesOf(p *calibration.VisionProfile, frames []*calFrame) []string {
	var notes []string
	if p.Source == "shoe" && p.Passes == 1 {
		notes = append(notes, "one pass: each card's far end is made from the end calibrated (the same index, the face turned about the card's centre); a design that differs from end to end is rejected at its far end, never misread: a second pass of the deck turned end for end learns it")
	}
	if _, ok := p.Rules["shoe"]; !ok {
		notes = append(notes, "calibrated from photographs: table frames only")
	}
	hasBack := false
	for _, f := range frames {
		hasBack = hasBack || f.Token == classBack
	}
	if !hasBack {
		notes = append(notes, "no BACK frame: a card seen face down is rejected, never read")
	}
	return notes
}

// worker holds one goroutine's working Mats for calibration.
type worker struct {
	sc  *scanner
	tf  *tableFinder
	d   *describer
	pt  *perturber
	f   gocv.Mat
	dst gocv.Mat
	rec map[vision.View]*Recognizer
}

func newWorker() *worker {
	return &worker{sc: newScanner(), tf: newTableFinder(), d: newDescriber(), pt: newPerturber(), f: gocv.NewMat(), dst: gocv.NewMat(), rec: map[vision.View]*Recognizer{}}
}

func (w *worker) Close() {
	w.sc.Close()
	w.tf.Close()
	w.d.Close()
	w.pt.Close()
	w.f.Close()
	w.dst.Close()
	for _, r := range w.rec {
		r.Close()
	}
}

// locateOne finds the card of a calibration frame.
// In a shoe frame it also returns the window's peak contrast (shoeOutline.peak).
func (w *worker) locateOne(frame gocv.Mat, source string) (pose, float32, error) {
	if source == "shoe" {
		if err := w.sc.load(frame); err != nil {
			return pose{}, 0, err
		}
		p, o, err := w.sc.findShoe()
		return p, o.peak, err
	}
	p, _, err := w.tf.findTable(frame)
	return p, 0, err
}

// describeAt describes the card at p in frame (its top end as the pose has it).
func (w *worker) describeAt(frame gocv.Mat, source string, p *pose, d *desc) error {
	if source == "shoe" {
		if err := w.sc.load(frame); err != nil {
			return err
		}
		return w.d.describe(w.sc.f, p, maxLength, d)
	}
	frame.ConvertTo(&w.f, gocv.MatTypeCV32FC3)
	gocv.GaussianBlur(w.f, &w.f, image.Pt(0, 0), 0.7, 0.7, gocv.BorderReplicate)
	return w.d.describe(w.f, p, p.length, d)
}

// perturbed makes one perturbed frame of f and describes its card at the end calibrated (for
// the templates, the card is found again in the perturbed frame; the pose of photographs is kept
// to the calibration frame's end).
func (w *worker) perturbed(f *calFrame, source string, still bool, rng *rand.Rand) (*desc, bool) {
	q := randomPerturbation(rng)
	if still {
		q.motion = 0 // the templates are sharp; the blur levels are made from them
	}
	centre := mid(f.pose.corners[0], f.pose.corners[1])
	if source == "photo" {
		centre = f.pose.at(0.5, f.pose.length/2)
	}
	if w.pt.apply(f.Frame, &w.dst, q, centre, rng) != nil {
		return nil, false
	}
	p, _, err := w.locateOne(w.dst, source)
	if err != nil {
		return nil, false
	}
	if source == "photo" {
		if lp, ok := quadPoseLen(p.corners, f.length); ok {
			p = lp
		}
		// The photograph's card may be found the other way up: keep the calibrated end on top.
		want := perturbPoint(f.pose.corners[0], q, centre)
		if p.corners[0].dist(want) > p.corners[2].dist(want) {
			p = p.turned()
		}
	}
	d := &desc{}
	if w.describeAt(w.dst, source, &p, d) != nil {
		return nil, false
	}
	return d, true
}

// perturbPoint maps a point of the calibration frame as a perturbation moves it.
func perturbPoint(p point, q perturbation, c point) point { return perturbPointTo(p, q, c, c) }

// perturbPointTo maps a point as applyTo moves it.
func perturbPointTo(p point, q perturbation, c, to point) point {
	a := q.angle * math.Pi / 180
	v := rotate(p.sub(c), -a).mul(q.scale)
	return to.add(v).add(point{q.dx, q.dy})
}

// recognizer returns the worker's recognizer of view v for the profile being made.
func (w *worker) recognizer(p *calibration.VisionProfile, m *model, v vision.View, face bool) *Recognizer {
	if r, ok := w.rec[v]; ok {
		return r
	}
	r := &Recognizer{p: p, view: v, m: m, face: face, rule: calibration.VisionRule{MaxRelative: 10, Face: face}, sc: newScanner(), tf: newTableFinder(), d: newDescriber(), f: gocv.NewMat()}
	r.dissimilarities()
	w.rec[v] = r
	return r
}

// minReadRate: a rule that reads less than this share of its own calibration frames perturbed
// is not written. It would reject most cards in the field, and a profile that reads nothing is
// no use to anyone. The perturbations are harsher than the dev camera's (anglo's table rule read
// 48% of its perturbed frames and 52% of its dev frames).
const minReadRate = 0.2

// trial reads one perturbed frame of frames[i] as view v would see it, with and without its
// class.
func (w *worker) trial(rec *Recognizer, frames []*calFrame, i int, source string, v vision.View, rng *rand.Rand) trial {
	f := frames[i]
	var t trial
	n, ok := w.sampleView(rec, frames, i, source, v, rng)
	if !ok {
		return t
	}
	t.measured = true
	dist, level := rec.classDist(n)
	res, dec := rec.decide(dist, level)
	_ = res
	own := f.class
	t.d, t.lead = dec.Relative, dec.Lead
	t.right = dec.Best == rec.m.classes[own]
	// The best other class's lead over the frame's own class.
	other := -1
	for c, d := range dist {
		if c != own && !math.IsNaN(d) && !math.IsInf(d, 1) && (other < 0 || d < dist[other]) {
			other = c
		}
	}
	if other >= 0 {
		t.otherD = rec.relative(other, dist[other], level)
		if dl := rec.delta[level][other][own]; dl > 0 && !math.IsInf(dist[own], 1) {
			t.overOwn = (dist[own] - dist[other]) / dl
		} // else 0: the own class not measured is not ruled out (decide)
	}
	// Without the frame's class: as a card the profile does not hold.
	saved := dist[own]
	dist[own] = math.NaN()
	_, imp := rec.decide(dist, level)
	dist[own] = saved
	t.impD, t.impLead = imp.Relative, imp.Lead
	t.own, t.imp = rec.m.classes[own], imp.Best
	return t
}

// sampleView makes one perturbed frame of frames[i] as view v sees it and describes it into
// rec's descs, returning how many ends it described.
func (w *worker) sampleView(rec *Recognizer, frames []*calFrame, i int, source string, v vision.View, rng *rand.Rand) (int, bool) {
	f := frames[i]
	q := randomPerturbation(rng)
	if v == vision.Shoe {
		centre := mid(f.pose.corners[0], f.pose.corners[1])
		if w.pt.apply(f.Frame, &w.dst, q, centre, rng) != nil {
			return 0, false
		}
		if err := rec.sc.load(w.dst); err != nil {
			return 0, false
		}
		p, _, err := rec.sc.findShoe()
		if err != nil {
			return 0, false
		}
		if rec.d.describe(rec.sc.f, &p, maxLength, &rec.descs[0]) != nil {
			return 0, false
		}
		return 1, true
	}
	if source == "photo" {
		centre := f.pose.at(0.5, f.pose.length/2)
		q.angle = rng.Float64() * 360
		if w.pt.apply(f.Frame, &w.dst, q, centre, rng) != nil {
			return 0, false
		}
		n, err := rec.locate(w.dst, nil)
		return n, err == nil
	}
	// A table frame from reader-window frames: the card's end as the reader saw it, turned to
	// any angle and smaller, as a table camera sees it, located with the error a table outline
	// has. With two passes, each end from its own pass.
	ends := []*calFrame{f}
	if rec.p.Passes == 2 {
		for _, g := range frames {
			if g.class == f.class && g.end != f.end {
				ends = append(ends, g)
			}
		}
	}
	for e, g := range ends {
		if !w.tableEnd(g, rng, &rec.descs[e]) {
			return 0, false
		}
	}
	if len(ends) == 1 {
		return 1, true
	}
	return 2, true
}

// tableEnd describes one calibration frame's card as a table camera would see that end of it:
// resampled at a table camera's scale and angle, blurred, lit and compressed as perturb does,
// its outline's corners off by up to a pixel and a half.
func (w *worker) tableEnd(f *calFrame, rng *rand.Rand, d *desc) bool {
	q := randomPerturbation(rng)
	q.motion = 0
	q.scale = (150 + rng.Float64()*80) / f.pose.widthPx
	q.angle = rng.Float64() * 360
	q.dx, q.dy = 0, 0
	// About the card's top-left corner, put in the middle of a table camera's frame.
	c := f.pose.corners[0]
	to := point{320, 240}
	if w.pt.applyTo(f.Frame, &w.dst, q, c, to, image.Pt(640, 480), rng) != nil {
		return false
	}
	jit := func(p point) point {
		return perturbPointTo(p, q, c, to).add(point{rng.NormFloat64() * 0.7, rng.NormFloat64() * 0.7})
	}
	tl, tr := jit(f.pose.corners[0]), jit(f.pose.corners[1])
	p := topPose(tl, tr)
	w.dst.ConvertTo(&w.f, gocv.MatTypeCV32FC3)
	gocv.GaussianBlur(w.f, &w.f, image.Pt(0, 0), 0.7, 0.7, gocv.BorderReplicate)
	return w.d.describe(w.f, &p, maxLength, d) == nil && d.idxOK
}

// parallel runs job(i) for i in [0, n) on two workers (the machine's cores), reporting progress.
func parallel(ctx context.Context, n int, job func(*worker, int) error, progress func(done int)) error {
	const workers = 2
	var mu sync.Mutex
	next, done := 0, 0
	var first error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := newWorker()
			defer wk.Close()
			for {
				mu.Lock()
				if next >= n || first != nil || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				err := job(wk, i)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				done++
				d := done
				mu.Unlock()
				if progress != nil {
					progress(d)
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
