package cv

import (
	"errors"
	"fmt"
	"image"
	"math"
	"sort"
	"time"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
)

// minEdgeStep is the smallest colour step (of 255) that counts as a card edge.
const minEdgeStep = 14

// Recognizer reads frames of one view with one profile. It keeps its working Mats between
// frames; it is not safe for concurrent use (make one per camera). Close releases it.
type Recognizer struct {
	m    *model
	view vision.View
	now  func() time.Time

	blurred, band, gray, patch gocv.Mat
}

// New builds a recognizer for frames of the given view from a profile. Shoe frames must be the
// size of the profile's camera; table frames may be any size from 160x120 up.
func New(p *calibration.VisionProfile, view vision.View) (*Recognizer, error) {
	if view != vision.Shoe && view != vision.Table {
		return nil, fmt.Errorf("vision: unknown view %v", view)
	}
	m, err := newModel(p)
	if err != nil {
		return nil, err
	}
	return &Recognizer{m: m, view: view, now: time.Now,
		blurred: gocv.NewMat(), band: gocv.NewMat(), gray: gocv.NewMat(), patch: gocv.NewMat()}, nil
}

// Close releases the recognizer's Mats. It is idempotent.
func (r *Recognizer) Close() error {
	if r.m != nil {
		r.blurred.Close()
		r.band.Close()
		r.gray.Close()
		r.patch.Close()
		r.m = nil
	}
	return nil
}

// String names the recognizer for logs: "vision shoe recognizer (shoe-reader 320x240)".
func (r *Recognizer) String() string {
	if r.m == nil {
		return "vision recognizer (closed)"
	}
	return fmt.Sprintf("vision %s recognizer (%s)", r.view, r.m.camera)
}

// analysis is everything the recognizer measured of one frame.
type analysis struct {
	err        error // no card outline: why
	pose       pose
	top, valid int
	scores     []candScores
	index      indexScores
	// topInk is cornerInk of the band: how much is drawn in its top corners; upperInk the same
	// over its whole upper part (see upperInk).
	topInk, upperInk float64
	// emptyStep is the 99.9th percentile colour step of a frame in which no card was found (0
	// otherwise); weakEdge is set when a straight edge shows through all the same.
	emptyStep int
	// smooth and edge are smoothCentre and straightEdge of a frame with no card outline.
	smooth, edge float64
	// frame is the frame's band as features (shoe view), for the slower checks decide may need.
	frame *tmpl
	// bothSides is set when both of the card's side edges were seen (shoe view).
	bothSides bool
	// backRescaled, when set, is backRescaled for this frame (shoe view; see there). It reads
	// the frame, and so may be called only while the frame is open (within Recognize).
	backRescaled func() float64
	// faint is set when the card was found by its faint outline (see faintOutline).
	faint bool
	// split holds the frame's scores against a split deck's glyphs (see split; shoe view).
	split *splitScores
	// wholeCard is set when a table card outline was read both ways up, each showing at least
	// half a band: both of the card's ends are in view.
	wholeCard bool
	// ends holds, for a table frame of a deck whose index does not tell every rank, what each
	// way up of each outline found shows (see oneEndTable).
	ends []endView
}

// endView is what one way up of a card on the table shows: each card's face at its calibrated
// end (fineSame), each card's index corner, and the colour.
type endView struct {
	face, corner [52]float64
	chroma       [3]float64
	// band is the way up's band, and split its scores against a split deck's glyphs; pose is
	// the outline it was read from.
	band  *feat
	split *splitScores
	pose  int
}

type candScores struct {
	i         int     // card index, or -1 CUT, -2 BACK
	same, rot float64 // the whole band at half resolution: same end, other end (-1: not computed)
	// fine is the best of the same-end and other-end correlations at full resolution, for the
	// short list of candidates; -1 when not computed. fineSame and fineRot are the two, and
	// rotLen the card length at which fineRot was best.
	fine, fineSame, fineRot float64
	rotLen                  int
}

// indexScores are the index windows' correlations with each rank and each suit.
type indexScores struct {
	// rank holds the rank window's correlation with each rank, in the blur variant rankVar that
	// the frame matches best.
	rank    [13]float64
	rankVar int
	// corner holds, for a deck whose rank window does not tell every rank (see model.indexGood),
	// the index area's correlation (brightness) with each card's own calibrated corner.
	corner [52]float64
	// patch is the frame's index patch and (bx, by) its alignment, for cornerOf.
	patch  *feat
	bx, by int
	// card holds, for the four cards of the best rank, the suit window's
	// correlation with that card's own template (sharper than the suit's mean over ranks), in
	// each blur variant; -2 elsewhere.
	card [suitVariants][52]float64
}

// Recognize reads one 8-bit BGR frame. A frame it cannot use at all (empty, wrong size) is an
// error naming the problem; anything it cannot read with confidence is a Reject result.
func (r *Recognizer) Recognize(frame gocv.Mat) (vision.Result, error) {
	start := r.now()
	if r.m == nil {
		return vision.Result{}, fmt.Errorf("vision: recognizer is closed")
	}
	if err := checkFrame(frame); err != nil {
		return vision.Result{}, err
	}
	if r.view == vision.Shoe && (frame.Cols() != r.m.camera.Width || frame.Rows() != r.m.camera.Height) {
		return vision.Result{}, fmt.Errorf("%w: frame is %dx%d, the profile is for %s", ErrFrame, frame.Cols(), frame.Rows(), r.m.camera)
	}
	a := r.analyze(frame)
	res := r.decide(&a)
	res.Elapsed = r.now().Sub(start)
	return res, nil
}

// RecognizeBytes decodes an encoded image and reads it.
func (r *Recognizer) RecognizeBytes(b []byte) (vision.Result, error) {
	m, err := DecodeImage(b)
	defer m.Close()
	if err != nil {
		return vision.Result{}, err
	}
	return r.Recognize(m)
}

// RecognizeFile reads an image file; errors name the file.
func (r *Recognizer) RecognizeFile(path string) (vision.Result, error) {
	m, err := ReadImage(path)
	defer m.Close()
	if err != nil {
		return vision.Result{}, err
	}
	res, err := r.Recognize(m)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

func (r *Recognizer) analyze(frame gocv.Mat) analysis {
	var a analysis
	switch r.view {
	case vision.Shoe:
		gocv.GaussianBlur(frame, &r.blurred, image.Pt(5, 5), 1.5, 1.5, gocv.BorderReplicate)
		g, err := registerShoe(r.blurred, minEdgeStep)
		if err != nil {
			smooth, edge := smoothCentre(r.blurred), straightEdge(r.blurred)
			// An outline too faint for the scans of single rows and columns, sought unless
			// the window looks empty (felt everywhere: no smooth patch, no straight edge).
			if smooth < noneSmooth || edge > noneEdge {
				if fg, ok := faintOutline(r.blurred, r.m.widthPx); ok {
					g, err = fg, nil
					a.faint = true
				}
			}
			if err != nil {
				a.err = err
				_, a.emptyStep = edgeStats(r.blurred, minEdgeStep)
				a.emptyStep = max(a.emptyStep, 1)
				a.smooth, a.edge = smooth, edge
				return a
			}
		}
		a.bothSides = g.bothSides()
		if a.bothSides {
			a.pose = g.pose(g.widthAt(frame.Rows()), bandW)
		} else {
			a.pose = r.fitWidth(frame, &g)
		}
		a.top, a.valid = warpBand(frame, &a.pose, bandW, bandH, &r.band)
		f := makeTmpl("frame", &r.band, a.top, a.valid, false)
		a.frame = &f
		a.index = r.scoreIndex(r.indexPatch(frame, &a.pose))
		if r.m.split != nil {
			sc := r.m.scoreSplit(a.index.patch, a.index.bx, a.index.by)
			a.split = &sc
		}
		a.scores = r.score(&f, true, &a.index)
		a.topInk = cornerInk(&f.fine)
		if r.m.back != nil {
			p := a.pose
			a.backRescaled = func() float64 { return r.backRescaled(frame, p) }
		}
		if a.topInk <= blankInk {
			upper := bandW * 14 / 10
			if r.m.length > 0 {
				upper = 2 * r.m.length
			}
			a.upperInk = upperInk(&f.fine, upper*38/100)
		}
	case vision.Table:
		gocv.GaussianBlur(frame, &r.blurred, image.Pt(5, 5), 1.5, 1.5, gocv.BorderReplicate)
		aspect := float64(2*r.m.length) / bandW
		poses, err := findTableCard(r.blurred, bandW, aspect)
		if err != nil {
			a.err = err
			return a
		}
		if aspect <= 1 {
			aspect = 1.4
		}
		// Either end of the card may be up, and a card running off the frame may lie either
		// way: read every candidate. The index is read from the candidate whose index reads
		// best (its scores are never mixed with another's: the suit must be the rank's); each
		// card's face score is its best over the candidates (a card's template may show either
		// end).
		first, bestQ := true, -2.0
		var corners [52]float64
		for i := range corners {
			corners[i] = -2
		}
		for pi, p := range poses {
			ways := 0
			for _, q := range []pose{p, p.rotated(bandW, aspect*bandW)} {
				top, valid := warpBand(frame, &q, bandW, bandH, &r.band)
				if valid-top < bandH/2 {
					continue
				}
				ways++
				if ways == 2 {
					a.wholeCard = true
				}
				f := makeTmpl("frame", &r.band, top, valid, false)
				ix := r.scoreIndex(r.indexPatch(frame, &q))
				s := r.score(&f, false, &ix)
				if !r.m.indexGood {
					e := endView{corner: ix.corner, chroma: f.chroma, band: &f.fine, pose: pi}
					if r.m.split != nil {
						sc := r.m.scoreSplit(ix.patch, ix.bx, ix.by)
						e.split = &sc
					}
					for i := range e.face {
						e.face[i] = -1
					}
					for _, c := range s {
						if c.i >= 0 {
							e.face[c.i] = max(c.fineSame, c.same)
						}
					}
					a.ends = append(a.ends, e)
				}
				ink := cornerInk(&f.fine)
				r1, _ := best2(ix.rank[:])
				a.topInk = max(a.topInk, ink)
				for i, v := range ix.corner {
					corners[i] = max(corners[i], v)
				}
				if first {
					a.pose, a.top, a.valid, a.scores, a.index, bestQ = q, top, valid, s, ix, ix.rank[r1]
					a.frame = &f
					first = false
					continue
				}
				if ix.rank[r1] > bestQ {
					a.pose, a.top, a.valid, a.index, bestQ = q, top, valid, ix, ix.rank[r1]
					a.frame = &f
				}
				for i := range s {
					a.scores[i].same = max(a.scores[i].same, s[i].same)
					a.scores[i].fine = max(a.scores[i].fine, s[i].fine)
					a.scores[i].fineSame = max(a.scores[i].fineSame, s[i].fineSame)
				}
			}
		}
		if first {
			a.err = errors.New("the card's ends are outside the table camera's view")
		}
		// A card's calibrated corner may show at either end of it on the table.
		a.index.corner = corners
	}
	return a
}

// score compares a frame's band with every template: the whole band at half resolution, as
// seen from the same end and (when rot is set and the card's length is known) from the other
// end; then the short list of best candidates, and the four cards of the index's two best ranks,
// again at full resolution. A card seen from its other end is compared with its template over
// the part of the card both show (see nccRot): a card's face need not look the same from both
// ends (the seven's odd pip, a court figure drawn once), so a face is judged at its best end.
func (r *Recognizer) score(f *tmpl, rot bool, index *indexScores) []candScores {
	m := r.m
	out := make([]candScores, 0, 54)
	all := make([]*tmpl, 0, 54)
	for i := range m.cards {
		all = append(all, &m.cards[i])
		out = append(out, candScores{i: i, fine: -1, fineSame: -1, fineRot: -1, rot: -1})
	}
	if m.cut != nil {
		all = append(all, m.cut)
		out = append(out, candScores{i: -1, fine: -1, fineSame: -1, fineRot: -1, rot: -1})
	}
	if m.back != nil {
		all = append(all, m.back)
		out = append(out, candScores{i: -2, fine: -1, fineSame: -1, fineRot: -1, rot: -1})
	}
	for k, t := range all {
		out[k].same = nccRows(&f.coarse, &t.coarse, 0, bandH)
		switch {
		case !rot:
		case out[k].i == -2:
			// The back's length is searched for: a back need not be drawn to the faces' size,
			// and a back with no symmetry gives the faces' length no check.
			out[k].rot, out[k].rotLen = rotScoreSpan(&f.coarse, &t.coarse, bandW/2*115/100, bandW/2*190/100)
			// At the card's own length no length is searched for, and the part both show may
			// be as small as for a face (a frame cut short by the window's bottom, a back
			// calibrated from one).
			if m.length > 0 {
				if s, l := rotScoreLen(&f.coarse, &t.coarse, m.length, 1); s > out[k].rot {
					out[k].rot, out[k].rotLen = s, l
				}
			}
		case m.length > 0:
			// At the card's length; the short list looks around it at full resolution.
			out[k].rot, out[k].rotLen = rotScoreLen(&f.coarse, &t.coarse, m.length, 0)
		}
	}
	rot = rot && m.length > 0
	// The short list: the best few cards by either end, and the four cards of the index's best
	// two ranks.
	order := make([]int, 52)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		return max(out[order[a]].same, out[order[a]].rot) > max(out[order[b]].same, out[order[b]].rot)
	})
	pick := map[int]bool{}
	top := max(out[order[0]].same, out[order[0]].rot)
	for k, i := range order {
		if k >= shortList && max(out[i].same, out[i].rot) < top-shortGap {
			break
		}
		pick[i] = true
	}
	if index != nil {
		r1, r2 := best2(index.rank[:])
		for s := 0; s < 4; s++ {
			pick[r1*4+s], pick[r2*4+s] = true, true
		}
	}
	for k := 52; k < len(all); k++ {
		pick[k] = true
	}
	for k := range pick {
		t := all[k]
		out[k].fineSame = nccRows(&f.fine, &t.fine, 0, bandH)
		out[k].fine = out[k].fineSame
		if out[k].rotLen > 0 {
			out[k].fineRot, out[k].rotLen = rotScoreLen(&f.fine, &t.fine, 2*out[k].rotLen, 1)
			out[k].fine = max(out[k].fine, out[k].fineRot)
		}
	}
	return out
}

// rotScoreSpan is rotScoreLen over the lengths [lo, hi], where the part both show is at least a
// third of the band.
func rotScoreSpan(f, t *feat, lo, hi int) (float64, int) {
	best, bl := -1.0, 0
	try := func(l int) {
		y0 := max(0, l-f.valid, t.top)
		if l < lo || l > hi || t.valid-y0 < t.h/3 {
			return
		}
		if s := nccRot(f, t, rect{0, y0, t.w, t.valid}, l); s > best {
			best, bl = s, l
		}
	}
	// Every other length, then either side of the best.
	for l := lo; l <= hi; l += 2 {
		try(l)
	}
	if bl > 0 {
		c := bl
		try(c - 1)
		try(c + 1)
	}
	return best, bl
}

// rotScoreLen is the best correlation of the frame f (a card seen from its other end) with a
// template t over the part of the card both show, for card lengths within slack of length, and
// the length at which it was best.
func rotScoreLen(f, t *feat, length, slack int) (float64, int) {
	best, bl := -1.0, length
	for l := length - slack; l <= length+slack; l++ {
		y0 := max(0, l-f.valid, t.top)
		if t.valid-y0 < t.w/10 {
			continue
		}
		if s := nccRot(f, t, rect{0, y0, t.w, t.valid}, l); s > best {
			best, bl = s, l
		}
	}
	return best, bl
}

// shortList is how many of the best candidates are compared again at full resolution, and
// shortGap how close to the best (at half resolution) any other must be to join them: the
// runner-up a lead is measured against must be among them.
const (
	shortList = 5
	shortGap  = 0.1
)

// best2 returns the indexes of the largest and second largest values.
func best2(v []float64) (int, int) {
	i1, i2 := 0, 1
	if len(v) < 2 {
		return 0, 0
	}
	if v[i2] > v[i1] {
		i1, i2 = i2, i1
	}
	for i := 2; i < len(v); i++ {
		switch {
		case v[i] > v[i1]:
			i1, i2 = i, i1
		case v[i] > v[i2]:
			i2 = i
		}
	}
	return i1, i2
}

// indexPatch resamples the frame's index area finely, as the profile's index templates are.
func (r *Recognizer) indexPatch(frame gocv.Mat, p *pose) *feat {
	warpIndex(frame, p, r.m.area, &r.patch)
	f := indexFeat(&r.patch)
	return &f
}

// cornerOf is the index patch's correlation with card i's calibrated corner (see corners).
func (r *Recognizer) cornerOf(ix *indexScores, i int) float64 {
	m := r.m
	f := ix.patch
	best := -2.0
	for dy := ix.by - 1; dy <= ix.by+1; dy++ {
		for dx := ix.bx - 1; dx <= ix.bx+1; dx++ {
			if !shiftInside(m.alignWin, dx, dy, f.w, f.h) {
				continue
			}
			fs := statsAt(f, bright, m.alignWin, dx, dy)
			for v := range m.idxV {
				best = max(best, corrOf(fs, m.cornerStats[v][i], dotAt(f, m.idxV[v][i].c[:], f.w, bright, m.alignWin, dx, dy)))
			}
		}
	}
	return best
}

// corners correlates an aligned index patch (shift bx, by) with every card's calibrated patch
// over the alignment window, within a pixel of the alignment, in every blur variant. A shoe
// frame, which has a fifth of a table frame's time, is compared in every variant at the
// alignment only, and around it in each card's best variant there.
func (r *Recognizer) corners(f *feat, bx, by int) [52]float64 {
	m := r.m
	var out [52]float64
	var bestV [52]int
	for i := range out {
		out[i] = -2
	}
	if shiftInside(m.alignWin, bx, by, f.w, f.h) {
		fs := statsAt(f, bright, m.alignWin, bx, by)
		for v := range m.idxV {
			for i := range m.idxV[v] {
				if c := corrOf(fs, m.cornerStats[v][i], dotAt(f, m.idxV[v][i].c[:], f.w, bright, m.alignWin, bx, by)); c > out[i] {
					out[i], bestV[i] = c, v
				}
			}
		}
	}
	for dy := by - 1; dy <= by+1; dy++ {
		for dx := bx - 1; dx <= bx+1; dx++ {
			if dx == bx && dy == by || !shiftInside(m.alignWin, dx, dy, f.w, f.h) {
				continue
			}
			fs := statsAt(f, bright, m.alignWin, dx, dy)
			for i := range out {
				for v := range m.idxV {
					if r.view == vision.Shoe && v != bestV[i] {
						continue
					}
					out[i] = max(out[i], corrOf(fs, m.cornerStats[v][i], dotAt(f, m.idxV[v][i].c[:], f.w, bright, m.alignWin, dx, dy)))
				}
			}
		}
	}
	return out
}

// refineRanks is how many of the best ranks at the index's alignment are tried again around it.
const refineRanks = 4

// maxShift is how far (in index-patch pixels) a frame's index may sit from where the card's
// outline puts it.
const maxShift = 5

// maxShiftFar is how far align searches for an index that lines up at the edge of maxShift, and
// alignExtendMin how well it must line up there (a card's back or a blank card's corner does
// not).
const (
	maxShiftFar    = 10
	alignExtendMin = 0.6
)

// suitShift is how far (index-patch pixels) from the index's alignment each card's suit symbol
// is looked for, and suitShiftFar how far when the best lies at the edge of that.
const suitShift, suitShiftFar = 3, 11

// align finds where a frame's index patch sits against the mean of all the cards' patches: the
// best correlation over shifts of up to maxShift pixels (every other pixel, then around the best),
// and that shift.
//
// Some designs do not draw a card's two ends alike: seen at its other end, the index may lie
// further from where the outline puts it. When the best alignment within maxShift is at the edge
// of the search and lines up like an index at all (alignExtendMin), the search goes on to
// maxShiftFar.
func (r *Recognizer) align(f *feat) (best float64, bx, by int) {
	best, bx, by = r.alignWithin(f, maxShift)
	if best >= alignExtendMin && (max(bx, -bx) >= maxShift-1 || max(by, -by) >= maxShift-1) {
		if b2, x2, y2 := r.alignWithin(f, maxShiftFar); b2 > best {
			best, bx, by = b2, x2, y2
		}
	}
	return best, bx, by
}

// alignWithin is align over shifts of up to d pixels.

func (r *Recognizer) alignWithin(f *feat, d int) (best float64, bx, by int) {
	m := r.m
	best = -2.0
	try := func(dx, dy int) {
		if !shiftInside(m.alignWin, dx, dy, f.w, f.h) {
			return
		}
		c := corrOf(statsAt(f, bright, m.alignWin, dx, dy), m.alignStat, dotAt(f, m.alignT, f.w, bright, m.alignWin, dx, dy))
		if c > best {
			best, bx, by = c, dx, dy
		}
	}
	for dy := -d + 1; dy <= d-1; dy += 2 {
		for dx := -d + 1; dx <= d-1; dx += 2 {
			try(dx, dy)
		}
	}
	cx, cy := bx, by
	for dy := cy - 1; dy <= cy+1; dy++ {
		for dx := cx - 1; dx <= cx+1; dx++ {
			try(dx, dy)
		}
	}
	return best, bx, by
}

// fitWidth places the band on a card of which only one side edge was found (the other outside
// the window): its width is the one, among those a card may have in this camera, at which the
// index patch lines up best with the calibrated cards' patches.
func (r *Recognizer) fitWidth(frame gocv.Mat, g *shoeGeom) pose {
	w0 := r.m.widthPx
	// Seen, the card reaches at least to the frame's side.
	y := float64(frame.Rows()) * 2 / 3
	seen := 0.0
	if g.leftOK {
		seen = (float64(frame.Cols()) - g.left.at(y)) * math.Cos(g.theta)
	} else {
		seen = g.right.at(y) * math.Cos(g.theta)
	}
	best, bestW := -2.0, w0
	for k := widthLo; k <= widthHi+1e-9; k += widthStep {
		wd := w0 * k
		if wd < seen*0.97 {
			continue
		}
		p := g.pose(wd, bandW)
		s, _, _ := r.align(r.indexPatch(frame, &p))
		if s > best {
			best, bestW = s, wd
		}
	}
	return g.pose(bestW, bandW)
}

// The widths (as shares of the calibrated width) tried for a card of which one side is outside
// the window.
const widthLo, widthHi, widthStep = 0.8, 1.25, 0.025

// scoreIndex correlates the frame's index patch with every rank template, and with the four
// cards of the best rank in the suit window. The patch is aligned once, on the mean of all the
// cards' patches; the best ranks are then tried within a pixel of that alignment.
func (r *Recognizer) scoreIndex(f *feat) indexScores {
	var s indexScores
	m := r.m
	for v := range s.card {
		for i := range s.card[v] {
			s.card[v][i] = -2
		}
	}
	for i := range s.rank {
		s.rank[i] = -1
	}
	_, bx, by := r.align(f)
	s.patch, s.bx, s.by = f, bx, by
	// A mixed calibration is read by its glyphs, not by each card's corner (see split).
	if !m.indexGood && !m.mixed {
		s.corner = r.corners(f, bx, by)
	}
	// Every rank template, in every blur variant, at the alignment; the best few ranks again
	// within a pixel of it. The variant whose best rank scores highest is the one read.
	var rv [suitVariants][13]float64
	rankAt := func(ranks []int, dx, dy int) {
		if !shiftInside(m.rankWin, dx, dy, f.w, f.h) {
			return
		}
		fs := statsAt(f, bright, m.rankWin, dx, dy)
		for v := range rv {
			for _, i := range ranks {
				rv[v][i] = max(rv[v][i], corrOf(fs, m.rankStats[v][i], dotAt(f, m.rankTV[v][i], f.w, bright, m.rankWin, dx, dy)))
			}
		}
	}
	all := make([]int, 13)
	for i := range all {
		all[i] = i
		for v := range rv {
			rv[v][i] = -1
		}
	}
	rankAt(all, bx, by)
	sort.Slice(all, func(a, b int) bool {
		va, vb := -2.0, -2.0
		for v := range rv {
			va, vb = max(va, rv[v][all[a]]), max(vb, rv[v][all[b]])
		}
		return va > vb
	})
	for dy := by - 1; dy <= by+1; dy++ {
		for dx := bx - 1; dx <= bx+1; dx++ {
			if dx != bx || dy != by {
				rankAt(all[:refineRanks], dx, dy)
			}
		}
	}
	bestTop := -2.0
	for v := range rv {
		i, _ := best2(rv[v][:])
		if rv[v][i] > bestTop {
			bestTop, s.rankVar, s.rank = rv[v][i], v, rv[v]
		}
	}
	if m.suitWin.area() == 0 {
		return s
	}
	// The suit symbol is small and its place varies a little from rank to rank: each card finds
	// its own shift within suitShift pixels of the alignment (on its most blurred variant, whose
	// correlation varies smoothly: every other pixel, then around the best), and every variant is
	// then read within a pixel of that.
	r1, _ := best2(s.rank[:])
	statCache := map[[2]int]winStats{}
	stats := func(dx, dy int) (winStats, bool) {
		if !shiftInside(m.suitWin, dx, dy, f.w, f.h) {
			return winStats{}, false
		}
		k := [2]int{dx, dy}
		st, ok := statCache[k]
		if !ok {
			st = statsAt(f, colour, m.suitWin, dx, dy)
			statCache[k] = st
		}
		return st, true
	}
	score := func(v, i, dx, dy int) float64 {
		fs, ok := stats(dx, dy)
		if !ok {
			return -2
		}
		return corrOf(fs, m.cardStats[v][i], dotAt(f, m.idxV[v][i].c[:], f.w, colour, m.suitWin, dx, dy))
	}
	const coarse = suitVariants - 1
	for _, rk := range []int{r1} {
		for st := 0; st < 4; st++ {
			i := rk*4 + st
			best, sx, sy := -2.0, bx, by
			search := func(x0, x1, y0, y1 int) {
				for dy := y0; dy <= y1; dy += 2 {
					for dx := x0; dx <= x1; dx += 2 {
						if c := score(coarse, i, dx, dy); c > best {
							best, sx, sy = c, dx, dy
						}
					}
				}
			}
			search(bx-suitShift, bx+suitShift, by-suitShift, by+suitShift)
			// At the edge of the search: in a design whose ends are not drawn alike, the symbol
			// may lie further from the rank than in the calibrated end. Look on that way.
			far := func(s, b int) (int, int) {
				switch {
				case s-b >= suitShift:
					return b + suitShift, b + suitShiftFar
				case b-s >= suitShift:
					return b - suitShiftFar, b - suitShift
				}
				return b - suitShift, b + suitShift
			}
			if max(sx-bx, bx-sx) >= suitShift || max(sy-by, by-sy) >= suitShift {
				x0, x1 := far(sx, bx)
				y0, y1 := far(sy, by)
				search(x0, x1, y0, y1)
			}
			cx, cy := sx, sy
			for dy := cy - 1; dy <= cy+1; dy++ {
				for dx := cx - 1; dx <= cx+1; dx++ {
					if c := score(coarse, i, dx, dy); c > best {
						best, sx, sy = c, dx, dy
					}
				}
			}
			s.card[coarse][i] = best
			for v := 0; v < coarse; v++ {
				for dy := sy - 1; dy <= sy+1; dy++ {
					for dx := sx - 1; dx <= sx+1; dx++ {
						s.card[v][i] = max(s.card[v][i], score(v, i, dx, dy))
					}
				}
			}
		}
	}
	return s
}

// rankByCard reads the rank window against each card's own calibrated index rather than its
// rank's mean over the four suits: the card whose rank glyph matches best, and its relative lead
// (see relLead) over the best card of another rank. Some designs draw a rank's glyph a little
// differently in red and in black (another weight, another place): the mean of the four then
// fits none of them well.
func (r *Recognizer) rankByCard(ix *indexScores) (best int, score, lead float64) {
	m := r.m
	f := ix.patch
	var rc [52]float64
	var rv [52]int // the blur variant of each card's best
	for i := range rc {
		rc[i] = -2
	}
	for dy := ix.by - 1; dy <= ix.by+1; dy++ {
		for dx := ix.bx - 1; dx <= ix.bx+1; dx++ {
			if !shiftInside(m.rankWin, dx, dy, f.w, f.h) {
				continue
			}
			fs := statsAt(f, bright, m.rankWin, dx, dy)
			for v := range m.idxV {
				for i := range rc {
					if c := corrOf(fs, m.cardRankStats[v][i], dotAt(f, m.idxV[v][i].c[:], f.w, bright, m.rankWin, dx, dy)); c > rc[i] {
						rc[i], rv[i] = c, v
					}
				}
			}
		}
	}
	for i := range rc {
		if rc[i] > rc[best] {
			best = i
		}
	}
	other := -1
	for i := range rc {
		if card.FromIndex(i).Rank() != card.FromIndex(best).Rank() && (other < 0 || rc[i] > rc[other]) {
			other = i
		}
	}
	v := rv[best]
	a, b := &m.idxV[v][best], &m.idxV[v][other]
	between := corrOf(m.cardRankStats[v][best], m.cardRankStats[v][other], dotAt(a, b.c[:], b.w, bright, m.rankWin, 0, 0))
	return best, rc[best], relLead(rc[best], rc[other], between)
}

// suitOf reads the suit of a card of rank index rk from the index's suit window, against the
// four cards of that rank: the best suit, how far it leads (see relLead), and whether it could be
// read at all.
func (r *Recognizer) suitOf(ix *indexScores, rk int) (suit int, lead float64, ok bool) {
	suit, _, lead, ok = r.suitScore(ix, rk)
	return suit, lead, ok
}

// suitScore is suitOf with the best suit's correlation.
func (r *Recognizer) suitScore(ix *indexScores, rk int) (suit int, score, lead float64, ok bool) {
	if r.m.suitWin.area() == 0 || ix.card[0][rk*4] < -1 {
		return 0, 0, 0, false
	}
	// The blur variant the frame matches best decides; its runner-up is from the same variant.
	bestV, best := 0, -2.0
	for v := range ix.card {
		s1, _ := best2(ix.card[v][rk*4 : rk*4+4])
		if sc := ix.card[v][rk*4+s1]; sc > best {
			bestV, best = v, sc
		}
	}
	c := ix.card[bestV][rk*4 : rk*4+4]
	s1, s2 := best2(c)
	lead = relLead(c[s1], c[s2], r.m.cardSuitSim[bestV][rk][s1][s2])
	return s1, c[s1], lead, c[s1] >= suitMin
}

// cornerMin is the least correlation of a frame's index corner with the calibrated corner of the
// card read.
const cornerMin = 0.75

// indexCut is how many band rows of the index windows may lie outside the frame: their edges
// hold little.
const indexCut = 4

// minBandRows is the least number of band rows a shoe frame must show of a card: half the band.
const minBandRows = bandH / 2

// Acceptance thresholds. Correlations are in [-1, 1]; a margin is the lead of the best candidate
// over the runner-up. They were set on the development decks (../shared/vision-dev) so that no
// frame of any deck was read wrong, and hold for any deck because every score is measured against
// that deck's own calibration.
const (
	rankMin, rankMargin = 0.80, 0.25 // the rank window (margins relative, see relLead)
	suitMin, suitMargin = 0.80, 0.25 // the suit window
	// suitFirm and suitFirmMargin: a suit window that matches a suit's template this well needs
	// only this lead (on the 34 designs, a wrong suit's best was 0.93, a right one's often 0.99).
	suitFirm, suitFirmMargin = 0.98, 0.12
	// rankCardMin is the least correlation of a rank window with one card's own index for the
	// rank to be read from it when the rank's mean fits poorly (see rankByCard; on the 34
	// designs rendered twice, a card of a wrong rank where the mean's best agreed and the mean
	// alone read nothing scored at most 0.925, against 0.95 to 0.99 for the right one).
	rankCardMin         = 0.94
	cardMin, cardMargin = 0.90, 0.06 // the whole band, against every card
	backMin, backMargin = 0.60, 0.10 // the card back, against its template and every card
	// backPlainEnd is backMin for a frame bare where the back's calibration frame is drawn
	// and under backBareInk over its upper part (see upperInk; a blurred back of the
	// development decks keeps 0.0018 or more, plain plastic and a back's plain end 0).
	backPlainEnd, backBareInk = 0.8, 0.001
	// backPlainMin and backPlainLead: a frame whose rank window looks like an index is still
	// taken for the back when its whole band matches the back this well, and every card's face
	// by this much less.
	backPlainMin, backPlainLead = 0.9, 0.35
	// cardIndexMin is the least rank-window correlation of a card's index: under it a frame may
	// be the back or the cut card (their best is well under, a card's well over).
	cardIndexMin = 0.7
	// faceVeto and faceVetoMargin: the whole band overrules a confident index only when it is
	// this sure of another card (the body differs between a card's ends; the index does not);
	// or, faceVetoFar, when it matches another card well and the index's card far worse (an
	// index misread at a card's other end, which in some designs is not drawn as the first).
	faceVeto, faceVetoMargin       = 0.95, 0.15
	faceVetoFar, faceVetoFarMargin = 0.85, 0.3
	// faceDisagreeMin and faceDisagreeLead: the face also overrules the index, rejecting the
	// frame, when it matches another card this well, at the same end, and the index's card by
	// this much less (a blurred 6 read as an 8 by its index: face 0.98 for the 6, 0.83 for the
	// 8). rankThinLead and rankThinGap: a rank read with a relative lead under rankThinLead and a
	// plain lead under rankThinGap is not read (a blurred 5 read 3 at 0.931 against 0.899). With
	// faceConflictNear, over 18,473 index reads of the 34 designs (rendered three times, once
	// calibrated at either end), these rejected the 4 wrong cards and about 19 right ones.
	faceDisagreeMin, faceDisagreeLead = 0.9, 0.14
	rankThinLead, rankThinGap         = 0.3, 0.04
	// faceConflictMin and faceConflictLead: the face's own choice among the rank's four cards
	// disagrees with the index's suit when it matches this well and leads the index's card by
	// this much; the index then stands only when both its windows read at least indexFirm.
	faceConflictMin, faceConflictLead = 0.85, 0.1
	// faceConflictNear: a face matching its suit's card at faceVeto or better counts against a
	// suit window under indexFirm when it leads the index's card by this much (a four of spades
	// read as clubs by a suit window at 0.93, the face 0.975 against 0.92; no right read lost).
	faceConflictNear = 0.05
	indexFirm        = 0.95
	// faceWeak is a lead of the whole band among a rank's four cards too small to count against
	// the suit window.
	faceWeak = 0.1
	// faceSuitMin is the whole band's least correlation with a card for its suit to count
	// against the index, faceAgreeMin for it to second the index.
	faceSuitMin, faceAgreeMin = 0.93, 0.8
	// faceAloneLead is the least relative lead (see relLead) of the face's card over the rank's
	// runner-up when the face alone gives the suit: with every design's suit window left
	// unread, 2 of 8,450 such reads were wrong at a lead of 0.5 and 0.67, none at 0.8 or more.
	faceAloneLead = 0.8
	// blankInk is the most cornerInk a cut card may show: plastic, one colour, no index.
	blankInk = 0.005
	// noneStep is the largest colour step (99.9th percentile) an empty reader window shows:
	// felt texture and sensor noise; noneSmooth the least smoothCentre, noneEdge the strongest
	// straightEdge (levels) it shows. A dark card on dark felt fails one of them.
	noneStep   = 24
	noneSmooth = 0.7
	noneEdge   = 5.0
	// oneEndFaceMin and oneEndFaceMargin: a face read alone, in a deck whose index does not tell
	// every rank, must match a card's calibrated view this well and lead every other card by
	// this much; oneEndCornerMin and oneEndCornerTie: its corner must match the card's own this
	// well, and no other card's by more; oneEndChromaMax: its colour may differ by this much.
	oneEndFaceMin, oneEndFaceMargin  = 0.95, 0.04
	oneEndCornerMin, oneEndCornerTie = 0.85, 0.005
	oneEndChromaMax                  = 0.1
	// oneEndRival, oneEndLead, oneEndAgainst and oneEndOtherWay are oneEndTable's: the cards
	// whose face is this close are rivals; a rival is told apart by a relative lead of
	// oneEndLead of the face or of the corner, the other not against it by more than
	// oneEndAgainst; no card the other way up may come this close to the card's face.
	oneEndRival, oneEndLead, oneEndAgainst = 0.1, 0.25, 0.3
	oneEndOtherWay                         = 0.005
	// blankBack is the most a cut card may look like the card back, and blankCard like any card.
	blankBack, blankCard = 0.4, 0.8
)

// indexRead says whether the index windows read a rank, and a suit, plainly.
func (r *Recognizer) indexRead(ix *indexScores) (rankOK, suitOK bool) {
	m := r.m
	r1, r2 := best2(ix.rank[:])
	rankOK = m.indexGood && ix.rank[r1] >= rankMin && relLead(ix.rank[r1], ix.rank[r2], m.rankSim[ix.rankVar][r1][r2]) >= rankMargin
	_, lead, ok := r.suitOf(ix, r1)
	return rankOK, ok && lead >= suitMargin
}

// decide turns the measurements into an answer, or a rejection that says why.
func (r *Recognizer) decide(a *analysis) vision.Result {
	m := r.m
	if a.err != nil {
		if errors.Is(a.err, errTopAbove) {
			// The card's sides reach the window's top: a card, not yet or no longer placed.
			return vision.Rejected(a.err.Error(), 0)
		}
		if a.emptyStep > 0 {
			// An empty window is felt everywhere: no straight edge, no smooth patch, little
			// structure. Anything else with no card outline is something unread.
			if a.smooth < noneSmooth || a.edge > noneEdge {
				return vision.Rejected("something in the window, but no card outline", 0)
			}
			if a.emptyStep <= noneStep {
				return vision.Result{Kind: vision.None, Confidence: min(1, 1.5-float64(a.emptyStep)/noneStep)}
			}
		}
		return vision.Rejected(a.err.Error(), 0)
	}
	if r.view == vision.Shoe {
		// A card entering or leaving the window shows too little of itself to tell it from
		// another, or from the back or the cut card.
		if a.valid-a.top < minBandRows {
			return vision.Rejected("too little of the card in view", 0)
		}
	}
	r1, r2 := best2(a.index.rank[:])
	rankScore, rankLead := a.index.rank[r1], relLead(a.index.rank[r1], a.index.rank[r2], m.rankSim[a.index.rankVar][r1][r2])
	// A lead just over the margin between two glyphs whose scores all but meet is no lead: a
	// blurred 5 read as a 3 at 0.931 against 0.899 (relative lead 0.26).
	thin := rankLead < rankThinLead && rankScore-a.index.rank[r2] < rankThinGap
	rankOK := m.indexGood && rankScore >= rankMin && rankLead >= rankMargin && !thin
	if m.indexGood && !rankOK && !thin && rankScore >= cardIndexMin {
		// The rank's mean glyph fits poorly: each card's own may fit well. It must be the
		// same rank, matched all but exactly, plainly ahead of every other rank's cards.
		if b, sc, lead := r.rankByCard(&a.index); int(card.FromIndex(b).Rank())-1 == r1 && sc >= rankCardMin && lead >= rankMargin {
			rankOK, rankScore, rankLead = true, sc, lead
		}
	}
	// Not a card's index: the back, or the cut card, or nothing known.
	cardLike := rankScore >= cardIndexMin
	bestCard := -1.0
	for _, c := range a.scores {
		if c.i >= 0 {
			bestCard = max(bestCard, c.same, c.rot, c.fine)
		}
	}
	backEv := -1.0
	backRimOK, backRim := true, false
	// A back whose pattern looks like an index glyph to the rank window (a lattice of diamonds
	// reads as a nine at 0.8, plainly) is still the back when its whole band is the back's
	// plainly and no card's face comes close.
	backPlain := false
	if (rankOK || cardLike) && m.back != nil {
		for _, c := range a.scores {
			if c.i == -2 {
				b := max(c.same, c.fine)
				backPlain = b >= backPlainMin && b-bestCard >= backPlainLead
			}
		}
	}
	if (!rankOK && !cardLike || backPlain) && m.back != nil && a.frame != nil {
		for _, c := range a.scores {
			if c.i == -2 {
				backEv = max(c.same, c.rot, c.fine)
			}
		}
		// The back's pattern inside the card's edges, allowing a shift: a back seen from its
		// other end repeats its pattern, but not in step with the card's edge.
		backEv = max(backEv, shiftedScore(&a.frame.coarse, &m.back.coarse, 8))
		// Card stock shows a rim that plastic does not: a back whose rim stands out is seen only
		// with that rim.
		backRim, backRimOK = rimLike(a.frame.rim, m.back.rim)
		if backRimOK && backEv >= blankBack {
			// The back must lead every card where that card is drawn: a blank stretch of a
			// face looks like a blurred pattern as much as like plastic (see drawnLike).
			cardEv := r.drawnLike(a)
			// A fine pattern is the back's only where the card's width, and so the pattern's
			// scale, is measured well: a blurred edge puts it a few percent off. Where the
			// back leads every card but falls short, it is sought at widths a little off.
			if backEv < backMin && backEv-cardEv >= backMargin && a.backRescaled != nil {
				backEv = max(backEv, a.backRescaled())
			}
			// A frame bare where the back's calibration frame is drawn (its corners), and
			// bare all over its upper part, shows the back only at the back's other end, if
			// that end is plain, which the calibration never showed: plastic of any colour
			// looks as much like it (a plain cut card read as the back at 0.62, a back's plain
			// end read at 0.56 to 0.85). A blurred back keeps a trace of its pattern.
			least := backMin
			if a.topInk <= blankInk && a.upperInk < backBareInk && cornerInk(&m.back.fine) > blankInk {
				least = backPlainEnd
			}
			if backEv >= least && backEv-cardEv >= backMargin {
				return vision.Result{Kind: vision.Back, Confidence: confidence(backEv, backEv-cardEv, backMargin)}
			}
		}
	}
	// The cut card: nothing drawn where every card has its index.
	if a.topInk <= blankInk && !rankOK && !cardLike {
		switch {
		case r.view == vision.Table:
			// A table camera finds cards by their outline; a blank one there is a misplaced
			// outline more likely than a cut card on the felt.
			return vision.Rejected("a blank card on the table", 0)
		case !a.bothSides:
			return vision.Rejected("a blank card with one side outside the window", 0)
		case bestCard >= blankCard && r.drawnLike(a) >= blankCard:
			return vision.Rejected("a blank card that looks like a card", bestCard)
		case a.upperInk > blankInk:
			// A card seen at an end that has no index has pips or a figure all the same.
			return vision.Rejected("blank corners, but something drawn on the card", a.upperInk)
		case backEv >= blankBack && (backRimOK || !backRim):
			// Plastic cannot be told from a back with no rim of its own, nor from one whose
			// rim it seems to show, when it looks like the back at all.
			return vision.Rejected("a blank card that looks like the card back", backEv)
		}
		return vision.Result{Kind: vision.Cut, Confidence: 1 - a.topInk/(2*blankInk)}
	}
	if r.view == vision.Shoe && (a.top > m.index.y0+indexCut || a.valid < m.index.y1-indexCut) {
		return vision.Rejected("the card's index is not all in view", 0)
	}
	// Cards, as the whole band reads them.
	fine := func(i int) float64 {
		for _, c := range a.scores {
			if c.i == i {
				return c.fine
			}
		}
		return -1
	}
	// bestOf2 is the best card the face reads among those ok admits, its score, the runner-up
	// and its score.
	bestOf2 := func(ok func(i int) bool) (int, float64, int, float64) {
		b, bs, s, ss := -1, -1.0, -1, -1.0
		for _, c := range a.scores {
			if c.i < 0 || !ok(c.i) {
				continue
			}
			switch {
			case c.fine > bs:
				b, bs, s, ss = c.i, c.fine, b, bs
			case c.fine > ss:
				s, ss = c.i, c.fine
			}
		}
		return b, bs, s, ss
	}
	bestOf := func(ok func(i int) bool) (int, float64, float64) {
		b, bs, _, ss := bestOf2(ok)
		return b, bs, ss
	}
	anyCard := func(int) bool { return true }
	faceBest, faceScore, faceSecond := bestOf(anyCard)
	// A card that could not be compared at its other end (the frame and its template share too
	// little of the card) cannot be ruled out by the face.
	uncompared := false
	if m.length > 0 && r.view == vision.Shoe {
		for _, c := range a.scores {
			if c.i >= 0 && c.rot < -0.99 {
				uncompared = true
			}
		}
	}
	faceSure := faceScore >= cardMin && faceScore-faceSecond >= cardMargin
	if rankOK && faceSure && faceScore >= faceVeto && faceScore-faceSecond >= faceVetoMargin {
		// The face is plainly one card, of another rank than the index reads, and the rank
		// window matches that card's rank nearly as well: a design whose court cards carry no
		// letter (their corner holds the suit and a piece of the figure, alike for the three
		// figures) is read by the face, which the index does not contradict (see below).
		if fr := int(card.FromIndex(faceBest).Rank()) - 1; fr != r1 && rankScore-a.index.rank[fr] < rankMargin {
			rankOK = false
		}
	}
	if rankOK {
		rank := card.Rank(r1 + 1)
		conf := confidence(rankScore, rankLead, rankMargin)
		// The suit: the index's suit window against the four cards of the rank, and the whole
		// band among the same four. They must not disagree.
		sw, swScore, swLead, swOK := r.suitScore(&a.index, r1)
		fb, fs, fs2, fss := bestOf2(func(i int) bool { return card.FromIndex(i).Rank() == rank })
		faceSuit, faceLead := -1, fs-fss
		if fb >= 0 {
			faceSuit = int(card.FromIndex(fb).Suit())
		}
		// The face counts against the index only when it is sure; it may second it with less.
		faceSure4 := faceSuit >= 0 && fs >= faceSuitMin && faceLead >= faceWeak
		faceAgrees := faceSuit == sw && fs >= faceAgreeMin && faceLead >= faceWeak
		var pick card.Card
		switch {
		case faceSure4 && swOK && faceSuit != sw:
			return vision.Rejected(fmt.Sprintf("rank %s, index reads suit %s, face %s", rank, card.Suit(sw), card.Suit(faceSuit)), conf)
		case swOK && swLead >= suitMargin:
			pick = card.New(rank, card.Suit(sw))
			conf = min(conf, confidence(swScore, swLead, suitMargin))
		case swOK && swScore >= suitFirm && swLead >= suitFirmMargin:
			// The symbol matches one suit's template all but exactly: a smaller lead over
			// another suit's is enough (a club blurred along the slide looks like a spade, a
			// little, to every template; a wrong suit has never matched this well).
			pick = card.New(rank, card.Suit(sw))
			conf = min(conf, confidence(swScore, swLead, suitMargin))
		case swOK && faceAgrees && swLead >= suitMargin/3:
			// Both lean the same way, the index not quite enough alone.
			pick = card.New(rank, card.Suit(sw))
			conf = min(conf, confidence(fs, faceLead, faceWeak), 0.6)
		case !swOK && faceSure4 && fs2 >= 0 && relLead(fs, fss, nccRows(&m.cards[fb].fine, &m.cards[fs2].fine, 0, bandH)) >= faceAloneLead:
			// No suit window to read (a deck without a suit in its index, or a symbol too
			// blurred): the face alone, ahead of the runner-up also relative to how alike the
			// two cards' faces are.
			pick = card.New(rank, card.Suit(faceSuit))
			conf = min(conf, confidence(fs, faceLead, faceWeak))
		default:
			return vision.Rejected(fmt.Sprintf("rank %s, suit unclear", rank), conf)
		}
		// The face prefers another suit of the rank, plainly: only a firm index stands against
		// it (a one-way design seen at its other end shows its index upside down, and an
		// upside-down heart reads as a diamond, weakly).
		if faceSuit >= 0 && faceSuit != int(pick.Suit()) && (rankScore < indexFirm || swScore < indexFirm) &&
			(fs >= faceConflictMin && fs-fine(pick.Index()) >= faceConflictLead || fs >= faceVeto && fs-fine(pick.Index()) >= faceConflictNear && swScore < indexFirm) {
			return vision.Rejected(fmt.Sprintf("index reads %s, face reads %s", pick, card.New(rank, card.Suit(faceSuit))), conf)
		}
		// The face seen from the same end as its template (not turned end for end, which
		// compares the card's middle only).
		sameBest, sameScore := -1, -1.0
		for _, c := range a.scores {
			if v := max(c.fineSame, c.same); c.i >= 0 && v > sameScore {
				sameBest, sameScore = c.i, v
			}
		}
		if sameBest >= 0 && sameBest != pick.Index() && sameScore >= faceDisagreeMin && sameScore-fine(pick.Index()) >= faceDisagreeLead {
			return vision.Rejected(fmt.Sprintf("index reads %s, face reads %s", pick, card.FromIndex(sameBest)), conf)
		}
		if faceBest != pick.Index() && (faceSure && faceScore >= faceVeto && faceScore-fine(pick.Index()) >= faceVetoMargin ||
			faceScore >= faceVetoFar && faceScore-fine(pick.Index()) >= faceVetoFarMargin) {
			return vision.Rejected(fmt.Sprintf("index reads %s, face reads %s", pick, card.FromIndex(faceBest)), conf)
		}
		// The whole index corner, rank and suit and what lies about them, must be the card's
		// own: the rank window alone may find a figure in a corner that holds none (the other
		// end of a deck with its index at one end only).
		if c := r.cornerOf(&a.index, pick.Index()); c < cornerMin {
			return vision.Rejected(fmt.Sprintf("index reads %s, its corner does not", pick), c)
		}
		return vision.Result{Kind: vision.Card, Card: pick, Confidence: conf}
	}
	if m.mixed {
		// A one-ended design calibrated at either end: only its glyphs tell a card whose other
		// end may be in view (see split).
		switch {
		case m.split == nil:
			return vision.Rejected("the calibration pass shows cards at either end, and their glyphs do not read plainly: recalibrate with the index ends first", 0)
		case r.view == vision.Table:
			return r.splitTable(a)
		default:
			return r.splitShoe(a)
		}
	}
	if uncompared && !rankOK {
		return vision.Rejected("cannot read the card's index, and the face shows too little of some cards", 0)
	}
	if !m.indexGood && r.view == vision.Table && len(a.ends) > 0 {
		if res, ok := r.oneEndTable(a); ok {
			return res
		}
	}
	if !m.indexGood && faceBest >= 0 {
		// Nothing in the index corner tells every rank apart: perhaps a deck with its index at
		// one end only, whose other end may look, in what a frame shows of it, like another card
		// seen at its calibrated end. The face is taken only as that card's calibrated view,
		// plainly ahead of every other card, with the card's own corner and colour.
		c := card.FromIndex(faceBest)
		same := -1.0
		for _, s := range a.scores {
			if s.i == faceBest {
				same = s.fineSame
			}
		}
		corner := a.index.corner[faceBest]
		rival := -2.0
		for i, v := range a.index.corner {
			if i != faceBest {
				rival = max(rival, v)
			}
		}
		switch {
		case same < oneEndFaceMin || same-faceSecond < oneEndFaceMargin:
			return vision.Rejected(fmt.Sprintf("the face reads %s, not plainly", c), 0)
		case corner < oneEndCornerMin || corner < rival-oneEndCornerTie:
			return vision.Rejected(fmt.Sprintf("the face reads %s, its index corner does not", c), 0)
		case chromaDist(a.frame.chroma, m.cards[faceBest].chroma) > oneEndChromaMax:
			return vision.Rejected(fmt.Sprintf("the face reads %s, its colour does not", c), 0)
		}
		return vision.Result{Kind: vision.Card, Card: c, Confidence: confidence(same, same-faceSecond, oneEndFaceMargin)}
	}
	if faceSure {
		c := card.FromIndex(faceBest)
		// The index, where it can be read at all, must not point at another rank.
		if m.indexGood && rankScore >= rankMin && r1 != int(c.Rank())-1 && rankScore-a.index.rank[int(c.Rank())-1] >= rankMargin {
			return vision.Rejected(fmt.Sprintf("face reads %s, index reads rank %s", c, card.Rank(r1+1)), 0)
		}
		return vision.Result{Kind: vision.Card, Card: c, Confidence: confidence(faceScore, faceScore-faceSecond, cardMargin)}
	}
	return vision.Rejected("cannot read the card's index", max(rankScore, faceScore, 0))
}

// backScales are the card widths, as shares of the one measured, at which backRescaled compares
// a frame with the back.
var backScales = [...]float64{0.96, 0.97, 0.98, 0.99, 1.01, 1.02, 1.03, 1.04}

// backRescaled is the frame's best correlation with the back (shifted, see shiftedScore) with the
// band placed on the card at widths a little off the measured one (see backScales), about the
// middle of the card's top edge.
func (r *Recognizer) backRescaled(frame gocv.Mat, p pose) float64 {
	best := -1.0
	band := gocv.NewMat()
	defer band.Close()
	for _, k := range backScales {
		q := p
		for i := 0; i < 3; i++ {
			q.h[i][2] += q.h[i][0] * (1 - k) * bandW / 2
			q.h[i][0] *= k
			q.h[i][1] *= k
		}
		top, valid := warpBand(frame, &q, bandW, bandH, &band)
		if valid-top < minBandRows {
			continue
		}
		f := makeTmpl("frame", &band, top, valid, false)
		best = max(best, shiftedScore(&f.coarse, &r.m.back.coarse, 8))
	}
	return best
}

// drawnLike is how much a frame (blank, or a back) looks like a card where that card has
// something drawn: its best correlation with any card, counting a card seen from its other end
// only when the part of the card that both show holds some of the card's drawing. Seen from its
// other end, a card is compared over the part of it that lies beyond what the frame shows of its
// own end: often a stretch of the face between the pips (a two's, a four's), as blank as
// plastic, which a plain or blurred frame matches as well as it matches anything. A card whose
// drawing is too faint to count as ink still looks like the card where the card is drawn.
func (r *Recognizer) drawnLike(a *analysis) float64 {
	m := r.m
	best := -1.0
	for _, c := range a.scores {
		if c.i < 0 {
			continue
		}
		best = max(best, c.same, c.fineSame)
		if rot := max(c.rot, c.fineRot); rot > best && a.frame != nil && m.length > 0 {
			t := &m.cards[c.i].fine
			y0 := max(0, 2*m.length-a.frame.fine.valid, t.top)
			if inkShare(t, rect{6, y0, t.w - 6, t.valid}) > blankInk {
				best = rot
			}
		}
	}
	return best
}

// relLead is the lead of the best candidate's correlation over the runner-up's, as a share of
// how far apart the two templates are themselves (one minus their own correlation): 0 when the
// frame is as close to either, 1 when it is the best template exactly and the runner-up is as
// far from it as the two templates are from each other.
func relLead(best, second, between float64) float64 {
	return (best - second) / max(1-between, 0.02)
}

// confidence maps a score and its lead over the runner-up to [0, 1]: half the score at the
// acceptance margin, rising to the score at three times the margin.
func confidence(score, lead, margin float64) float64 {
	f := 0.5 + 0.25*(lead/margin-1)
	f = max(0, min(1, f))
	return max(0, min(1, score*f))
}

// shiftedScore is the best whole-band correlation of f with t over shifts of up to d pixels.
func shiftedScore(f, t *feat, d int) float64 {
	best := -1.0
	v := min(f.valid, t.valid)
	r := rect{d, f.top + d, f.w - d, v - d}
	if r.area() <= 0 {
		return best
	}
	for dy := -d; dy <= d; dy += 2 {
		for dx := -d; dx <= d; dx += 2 {
			best = max(best, ncc(f, t, colour, r, dx, dy))
		}
	}
	return best
}

// oneEndTable reads a table card of a deck whose index does not tell every rank (an index on one
// end only), for the frames the face alone does not read plainly: the whole card lies on the
// felt, so one way up shows its calibrated end, index and all. Within each way up, a card is
// taken when its face matches its calibrated view (oneEndFaceMin) and its corner its own, and
// every card nearly as alike is told from it plainly by the face or by the corner, each
// measured against how alike the two cards' own templates are (see relLead), and not plainly
// against it by the other. It must be the only card so taken over every way up, lead every
// face of the other ways up, and have the card's colour. ok is false when no card is taken.
func (r *Recognizer) oneEndTable(a *analysis) (vision.Result, bool) {
	m := r.m
	pick, pickEnd, pickLead := -1, -1, 0.0
	for k := range a.ends {
		e := &a.ends[k]
		for c := 0; c < 52; c++ {
			if e.face[c] < oneEndFaceMin || e.corner[c] < oneEndCornerMin {
				continue
			}
			// lead is the smallest margin by which a rival is told apart (three margins when
			// no card comes close).
			ok, lead := true, 3*oneEndLead
			for q := 0; q < 52 && ok; q++ {
				if q == c || e.face[q] < e.face[c]-oneEndRival {
					continue
				}
				fr := relLead(e.face[c], e.face[q], m.faceSim[c][q])
				cr := relLead(e.corner[c], e.corner[q], m.cornerSim[c][q])
				ok = fr >= oneEndLead && cr >= -oneEndAgainst || cr >= oneEndLead && fr >= -oneEndAgainst
				// A one-ended deck's corner may show the rank alone (the same on every suit's
				// card) or the suit alone: against a card of the same rank or suit, the corner
				// one card was calibrated with may be the other's uncalibrated end. Only the face
				// tells those apart.
				if sc, sq := card.FromIndex(c), card.FromIndex(q); sc.Rank() == sq.Rank() || sc.Suit() == sq.Suit() {
					ok = fr >= oneEndLead && cr >= -oneEndAgainst
					lead = min(lead, fr)
				} else {
					lead = min(lead, max(fr, cr))
				}
			}
			if !ok {
				continue
			}
			if pick >= 0 && pick != c {
				return vision.Rejected(fmt.Sprintf("the card reads %s one way up, %s the other", card.FromIndex(pick), card.FromIndex(c)), 0), true
			}
			pick, pickEnd, pickLead = c, k, lead
		}
	}
	if pick < 0 {
		return vision.Result{}, false
	}
	c := card.FromIndex(pick)
	e := &a.ends[pickEnd]
	for k := range a.ends {
		if k == pickEnd {
			continue
		}
		for q, v := range a.ends[k].face {
			if q != pick && v > e.face[pick]-oneEndOtherWay {
				return vision.Rejected(fmt.Sprintf("the face reads %s, but %s the other way up", c, card.FromIndex(q)), 0), true
			}
		}
	}
	if chromaDist(e.chroma, m.cards[pick].chroma) > oneEndChromaMax {
		return vision.Rejected(fmt.Sprintf("the face reads %s, its colour does not", c), 0), true
	}
	return vision.Result{Kind: vision.Card, Card: c, Confidence: confidence(e.face[pick], pickLead, oneEndLead)}, true
}
