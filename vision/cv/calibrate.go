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

// Perturbed frames of each calibration frame: noisePerturbations measure the noise model,
// rulePerturbations more derive the rule.
const (
	noisePerturbations = 8
	rulePerturbations  = 40
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
	// Every frame is looked at before calibration refuses the pass, so that the technician
	// recaptures all the frames it cannot use at once.
	var bad []string
	for pi, pass := range passes {
		for _, f := range pass {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			cf := &calFrame{CalibrationFrame: f, class: index[f.Token], end: pi, band: gocv.NewMat()}
			frames = append(frames, cf)
			p, contrast, err := w0.locateOne(f.Frame, source)
			if err != nil {
				bad = append(bad, fmt.Sprintf("%s: cannot find the card: %s", f.name(), strings.ReplaceAll(err.Error(), "\n", ": ")))
				continue
			}
			if source == "shoe" {
				if top := min(p.corners[0].y, p.corners[1].y); top < topReach {
					bad = append(bad, fmt.Sprintf("%s: the card's top edge is %.1f pixels from the window's top, nearer than the %d the edge scans need to place it: capture it again lower in the window", f.name(), top, topReach))
					continue
				}
			}
			cf.pose = p
			if source == "shoe" && (edgeContrast == 0 || float64(contrast) < edgeContrast) {
				edgeContrast = float64(contrast)
			}
		}
	}
	if err := badFrames(bad, len(frames)); err != nil {
		return nil, err
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
			bad = append(bad, fmt.Sprintf("%s: %v", cf.name(), err))
			continue
		}
		// Both top corners, where an index is printed, must be in the frame, as far down as
		// the corner parts reach and the search shifts them (model.go).
		if cf.Token != classCut {
			px := cf.pose.widthPx / fineScale // frame pixels a fine row
			switch {
			case cf.desc.top > fineMargin:
				bad = append(bad, fmt.Sprintf("%s: the card's top corners are not wholly in the frame", cf.name()))
				continue
			case cf.desc.rows() < cornerH+cornerShift:
				bad = append(bad, fmt.Sprintf("%s: the card's index corners are not wholly in the frame: the card leaves the frame %.0f pixels below its top, and the corners reach %.0f: capture it again with the card's whole width in the window", cf.name(), float64(cf.desc.rows())*px, float64(cornerH+cornerShift)*px))
				continue
			}
		}
		w0.d.warp.ConvertTo(&cf.band, gocv.MatTypeCV8UC3)
	}
	if err := badFrames(bad, len(frames)); err != nil {
		return nil, err
	}
	progress("found the card in every frame", len(frames), len(frames))
	widths := make([]float64, 0, len(frames))
	for _, f := range frames {
		widths = append(widths, f.pose.widthPx)
	}
	slices.Sort(widths)
	// The card's length: from a photograph's outlines (above), where the two passes' ends meet,
	// or by a two-ended design's symmetry.
	if source == "shoe" {
		var first, second, all []*desc
		byClass := map[int]*desc{}
		for _, f := range frames {
			if f.class >= 52 {
				continue
			}
			if f.end == 0 {
				byClass[f.class] = &f.desc
				all = append(all, &f.desc)
			}
		}
		for _, f := range frames {
			if f.end == 1 && f.class < 52 && byClass[f.class] != nil {
				first = append(first, byClass[f.class])
				second = append(second, &f.desc)
			}
		}
		if len(passes) == 2 {
			length = lengthFromPasses(first, second)
		}
		if length == 0 {
			length = lengthFromSymmetry(all)
		}
	}
	rows := int(math.Round(length * fineScale))
	if length == 0 {
		// One pass of a one-ended design: the templates hold what every frame shows of its top.
		rows = math.MaxInt
		for _, f := range frames {
			if f.Token != classCut {
				rows = min(rows, f.desc.rows())
			}
		}
	}
	// The templates: each class's card laid together from the frames of it.
	templates := make([]*cardTemplate, len(classes))
	bands := map[int][]gocv.Mat{}
	for _, f := range frames {
		bands[f.class] = append(bands[f.class], f.band)
		if templates[f.class] == nil {
			templates[f.class] = newTemplate(rows)
		}
		templates[f.class].put(&f.desc, f.end, false)
		if t := templates[f.class]; t.widthPx == 0 || f.pose.widthPx < t.widthPx {
			t.widthPx = f.pose.widthPx
		}
	}
	for _, f := range frames {
		templates[f.class].put(&f.desc, f.end, true) // the rows at a cut no other frame showed
	}
	if length > 0 {
		for _, t := range templates {
			if t != nil {
				t.complete()
			}
		}
	}
	if templates[index[classCut]] == nil {
		templates[index[classCut]] = plainTemplate(templates[:52], rows)
	}
	pts, err := profileTemplates(classes, templates, bands)
	if err != nil {
		return nil, err
	}
	p := &calibration.VisionProfile{
		Deck: o.Deck, Created: o.Now().UTC().Truncate(time.Second), Camera: calibration.Camera{Name: o.Camera, Width: w, Height: h},
		Source: source, Passes: len(passes), Geometry: geometry, CardWidthPx: widths[len(widths)/2], EdgeContrast: round6(edgeContrast),
		CardLength: round6(length), Templates: pts,
	}
	// Calibration judges the templates as the recognizer will read them from the profile.
	if _, templates, err = templatesOf(p); err != nil {
		return nil, err
	}
	// The rules: for each view, the noise model from perturbed calibration frames, then the
	// rule from as many again, read against the profile.
	viewsToRule := []vision.View{vision.Table}
	if source == "shoe" {
		viewsToRule = []vision.View{vision.Shoe, vision.Table}
	}
	p.Rules = map[string]calibration.VisionRule{}
	var poor []string // notes on calibration frames its rule will often reject
	for _, v := range viewsToRule {
		table := v == vision.Table
		var unit [nParts]noiseModel
		for i := range unit {
			unit[i] = noiseModel{sigma0: 1}
		}
		base := newModel(classes, templates, length, unit, table, inferredRows(source, len(passes), length))
		samples := make([][]noiseSample, len(frames))
		err := parallel(ctx, len(frames), func(wk *worker, i int) error {
			rec := wk.recognizer(p, base, v)
			rng := rand.New(rand.NewPCG(o.Seed+500+1000*uint64(v), uint64(i)))
			for range noisePerturbations {
				n, ok := wk.sampleView(rec, frames, i, source, v, rng)
				if !ok {
					continue
				}
				s := noiseSample{class: frames[i].class, end: frames[i].end}
				for e := range n {
					d := rec.descs[e]
					d.fine = slices.Clone(d.fine)
					s.ends = append(s.ends, &d)
				}
				samples[i] = append(samples[i], s)
			}
			return nil
		}, func(done int) { progress(fmt.Sprintf("measuring the %s view's noise", v), done, len(frames)) })
		if err != nil {
			return nil, err
		}
		noise := fitNoise(classes, templates, length, slices.Concat(samples...), table, inferredRows(source, len(passes), length))
		m := newModel(classes, templates, length, noise, table, inferredRows(source, len(passes), length))
		trials := make([][]trial, len(frames))
		err = parallel(ctx, len(frames), func(wk *worker, i int) error {
			rec := wk.recognizer(p, m, v)
			rng := rand.New(rand.NewPCG(o.Seed+1000*uint64(v), uint64(i)))
			for range o.Perturbations {
				trials[i] = append(trials[i], wk.trial(rec, frames, i, source, v, rng))
			}
			return nil
		}, func(done int) { progress(fmt.Sprintf("deriving the %s rule", v), done, len(frames)) })
		if err != nil {
			return nil, err
		}
		ft := fitRule(slices.Concat(trials...), len(m.classes), func(a, b int, dist []float64) float64 { return leadOf(m.delta, m.ink, a, b, dist) })
		p.Rules[v.String()] = calibration.VisionRule{
			MaxDistance: ft.maxDist, MaxPart: ft.maxPart, MinLead: ft.minLead, Noise: noiseRecord(noise),
			FalseAccept: ft.falseAccept, ReadRate: ft.readRate, Samples: ft.samples, Wrong: ft.wrong,
		}
		// A calibration frame whose own perturbed frames mostly fit it worse than the
		// threshold makes a template its card's frames will often miss: the rule stays safe
		// (its estimate counts those frames), but the technician should capture it again.
		for _, f := range unfit(frames, trials, ft.maxDist) {
			poor = append(poor, f.note(v, ft.maxDist))
		}
		if ft.readRate < minReadRate {
			return nil, fmt.Errorf("%w: the %s view's rule (distance ≤ %.2f, lead ≥ %.2f) reads only %.1f%% of the calibration frames perturbed: it would reject most cards%s%s", ErrCalibration, v, ft.maxDist, ft.minLead, 100*ft.readRate, passHint(source, len(passes)), ft.pairNote(m.classes))
		}
	}
	p.Notes = append(notesOf(p, frames), poor...)
	if err := p.Seal(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("vision: calibration made a profile it cannot read: %w", err)
	}
	return p, nil
}

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
	switch {
	case p.Source == "shoe" && p.Passes == 1 && p.CardLength > 0:
		notes = append(notes, "one pass: each card's far end is known where the end calibrated shows it (turned about the card's centre) and, by the design's symmetry, at its corners; the middle of the far end is compared for no card; a second pass of the deck turned end for end (--turned) learns the whole card")
	case p.Source == "shoe" && p.Passes == 1:
		notes = append(notes, "one pass of a design whose ends differ (its length cannot be measured from one end): only the ends calibrated are known, and a card seen at its other end is rejected, never misread; pass the deck again turned end for end (--turned)")
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
	rec map[*model]*Recognizer
}

func newWorker() *worker {
	return &worker{sc: newScanner(), tf: newTableFinder(), d: newDescriber(), pt: newPerturber(), f: gocv.NewMat(), dst: gocv.NewMat(), rec: map[*model]*Recognizer{}}
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
	p, o, err := w.tf.findTable(frame)
	if err == nil && !o.whole {
		// A template learns the whole card: what a frame cuts off, no class could be compared by.
		return pose{}, 0, errors.Join(errNoCard, errors.New("the card is not wholly in the frame"))
	}
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

// recognizer returns the worker's recognizer of view v with model m, for the profile being
// made.
func (w *worker) recognizer(p *calibration.VisionProfile, m *model, v vision.View) *Recognizer {
	if r, ok := w.rec[m]; ok {
		return r
	}
	r := newRecognizer(p, v, m, calibration.VisionRule{})
	w.rec[m] = r
	return r
}

// unfitFrame is a calibration frame its card's frames will often miss: measured is false when
// the view's outline was found in none of its perturbed frames, else most of them fit its own
// template worse than the threshold (median their median distance).
type unfitFrame struct {
	*calFrame
	measured bool
	median   float64
}

// note is what the technician is told of it.
func (u unfitFrame) note(v vision.View, maxDist float64) string {
	if !u.measured {
		return fmt.Sprintf("%s: the %s view found no card in its perturbed frames: its card will often be rejected; if it is, capture it again (too small, out of focus, cut by the frame's edge?)", u.name(), v)
	}
	return fmt.Sprintf("%s: most of its perturbed frames fit its own template worse than the %s view's threshold (median %.2f, threshold %.2f): its card will often be rejected; if it is, capture it again (too small, out of focus, cut by the frame's edge?)", u.name(), v, u.median, maxDist)
}

// unfit returns the calibration frames none of whose trials was measured, or most of whose
// measured trials fit their own class worse than maxDist.
func unfit(frames []*calFrame, trials [][]trial, maxDist float64) []unfitFrame {
	var out []unfitFrame
	for i, ts := range trials {
		var own []float64
		for _, t := range ts {
			if t.measured {
				own = append(own, t.dist[t.own])
			}
		}
		if len(own) == 0 {
			out = append(out, unfitFrame{calFrame: frames[i]})
			continue
		}
		slices.Sort(own)
		if m := own[len(own)/2]; m > maxDist {
			out = append(out, unfitFrame{calFrame: frames[i], measured: true, median: m})
		}
	}
	return out
}

// minReadRate: a rule that reads less than this share of its own calibration frames perturbed
// is not written: it would reject most cards in the field, and its templates cannot tell the
// cards apart as calibrated (a one-ended design passed once at either end learns some cards at
// one end and some at the other).
const minReadRate = 0.5

// trial reads one perturbed frame of frames[i] as view v would see it.
func (w *worker) trial(rec *Recognizer, frames []*calFrame, i int, source string, v vision.View, rng *rand.Rand) trial {
	n, ok := w.sampleView(rec, frames, i, source, v, rng)
	if !ok {
		return trial{own: frames[i].class}
	}
	return trial{measured: true, own: frames[i].class, dist: slices.Clone(rec.classDist(n))}
}

// sampleView makes one perturbed frame of frames[i] as view v sees it and describes it into
// rec's descs, returning how many ends it described.
func (w *worker) sampleView(rec *Recognizer, frames []*calFrame, i int, source string, v vision.View, rng *rand.Rand) (int, bool) {
	f := frames[i]
	q := randomPerturbation(rng)
	rec.frameWidth = 0 // a made frame is no sharper than its calibration frame
	if v == vision.Shoe {
		centre := mid(f.pose.corners[0], f.pose.corners[1])
		slide(&q, f, rng)
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
		q.relative(f.pose.widthPx)
		if w.pt.apply(f.Frame, &w.dst, q, centre, rng) != nil {
			return 0, false
		}
		n, err := rec.locate(w.dst, nil)
		rec.frameWidth = min(rec.frameWidth, f.pose.widthPx)
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
	if len(ends) == 1 {
		ends = append(ends, f) // one pass: the far end as the near one (template.go)
	}
	for e, g := range ends {
		if !w.tableEnd(g, rng, &rec.descs[e]) {
			return 0, false
		}
	}
	return 2, true
}

// slide moves a perturbed reader frame's card as the shoe's window may show it: its top edge
// anywhere from slideMargin pixels below the window's top to a fifth of the window down, and
// its sides anywhere at least slideMargin pixels inside the window's: the edge scans need that
// much background beyond an edge to see it (shoe.go), and a card closer is rejected, not read.
func slide(q *perturbation, f *calFrame, rng *rand.Rand) {
	tl, tr := f.pose.corners[0], f.pose.corners[1]
	h := float64(f.Frame.Rows())
	top := (tl.y + tr.y) / 2
	q.dy = slideMargin + rng.Float64()*max(0, h/5-slideMargin) - top
	left, right := min(tl.x, tr.x), max(tl.x, tr.x)
	room0, room1 := slideMargin-left, float64(f.Frame.Cols())-1-slideMargin-right
	if room1 > room0 {
		q.dx = room0 + rng.Float64()*(room1-room0)
	}
}

// slideMargin is how far inside the window's edges slide keeps the card's (pixels).
const slideMargin = stepGap + stepSpan + 1

// tableJitter is the standard deviation of a made table frame's outline corners, in card widths:
// a table outline's corners move from frame to frame by 0.55% of the width (the median over the
// tuning designs, TestFindCardAccuracy).
const tableJitter = 0.005

// tableEnd describes one calibration frame's card as a table camera would see that end of it:
// resampled at a table camera's scale and angle, blurred, lit and compressed as perturb does,
// its outline's corners off by tableJitter.
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
	sd := tableJitter * q.scale * f.pose.widthPx
	jit := func(p point) point {
		return perturbPointTo(p, q, c, to).add(point{rng.NormFloat64() * sd, rng.NormFloat64() * sd})
	}
	tl, tr := jit(f.pose.corners[0]), jit(f.pose.corners[1])
	p := topPose(tl, tr)
	w.dst.ConvertTo(&w.f, gocv.MatTypeCV32FC3)
	gocv.GaussianBlur(w.f, &w.f, image.Pt(0, 0), 0.7, 0.7, gocv.BorderReplicate)
	if w.d.describe(w.f, &p, maxLength, d) != nil {
		return false
	}
	// Past the rows the calibration frame showed, the frame made is its edge repeated.
	d.fineRows = min(d.fineRows, f.desc.fineRows)
	d.fine = d.fine[:d.fineRows*fineW*3]
	return d.top <= fineMargin && d.rows() >= cornerH+cornerShift
}

// passHint is what a refused rule suggests of the passes: only one pass through the reader
// leaves the far end to a guess (template.go), which a second pass turned end for end replaces.
func passHint(source string, passes int) string {
	if source == "shoe" && passes == 1 {
		return " (a one-ended design passed at either end? pass the deck again turned end for end, --turned)"
	}
	return ""
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

// badFrames is the one error naming every calibration frame calibration cannot use (nil: none).
func badFrames(bad []string, of int) error {
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%w: %s", ErrCalibration, bad[0])
	}
	return fmt.Errorf("%w: %d of the %d frames cannot be used: %s", ErrCalibration, len(bad), of, strings.Join(bad, "; "))
}
