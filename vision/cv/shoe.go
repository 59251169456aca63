package cv

import (
	"errors"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// The reader window of a shoe shows the top of the card as it slides out: its top edge and its
// two sides, square to each other, the rest of the card running off the bottom of the frame.
// The outline is found from edges: along each column (for the top) and each row (for the sides),
// the first lasting colour step met from the outside in; the straight line most of those steps
// agree with is the edge. Nothing assumes a dark background or a light card: a step is measured
// against the steps of the frame itself.

// scanner holds a frame's smoothed planes for the edge scans; it is reused between frames.
type scanner struct {
	f    gocv.Mat  // the float frame, smoothed
	px   []float32 // its values, BGR interleaved
	w, h int
	// A scan line's profile is the frame box-smoothed across the line over smoothW pixels
	// (a line's steps are a card's edge, not a speck): the columns', made once a frame; a
	// row's, as far as its scan reads.
	cols  []float32 // column profiles, h×3 values each, of the columns scanned
	ps    profileSteps
	steps []stepAt
	// The row being scanned, from the left or (rev) from the right, and the sampler of it
	// made once (a closure a row would be an allocation a row).
	rowY   int
	rowRev bool
	rowFn  func(int, []float32)
}

// smoothW is the width of a scan line's smoothing (odd).
const smoothW = 9

func newScanner() *scanner {
	s := &scanner{f: gocv.NewMat()}
	s.rowFn = s.rowSample
	return s
}

// rowSample fills the smoothed values of sample k of the row being scanned.
func (s *scanner) rowSample(k int, dst []float32) {
	if s.rowRev {
		k = s.w - 1 - k
	}
	s.smoothAt(k, s.rowY, dst)
}

func (s *scanner) Close() { s.f.Close() }

// load smooths an 8-bit BGR frame for scanning.
func (s *scanner) load(frame gocv.Mat) error {
	frame.ConvertTo(&s.f, gocv.MatTypeCV32FC3)
	gocv.GaussianBlur(s.f, &s.f, image.Pt(0, 0), 1.0, 1.0, gocv.BorderReplicate)
	var err error
	if s.px, err = s.f.DataPtrFloat32(); err != nil {
		return err
	}
	s.w, s.h = frame.Cols(), frame.Rows()
	return nil
}

// reflect101 maps i into [0, n) as OpenCV's default border does (… 2 1 | 0 1 2 … n-1 | n-2 …).
func reflect101(i, n int) int {
	if n == 1 {
		return 0
	}
	for i < 0 || i >= n {
		if i < 0 {
			i = -i
		} else {
			i = 2*(n-1) - i
		}
	}
	return i
}

// smoothColumn writes column x of the frame, each pixel the mean of smoothW across the column
// (sums in float64, as OpenCV's box filter takes them), into dst (h×3 values).
func (s *scanner) smoothColumn(x int, dst []float32) {
	const r = smoothW / 2
	var xs [smoothW]int
	for k := range smoothW {
		xs[k] = reflect101(x-r+k, s.w) * 3
	}
	for y := range s.h {
		row := s.px[y*s.w*3:]
		var s0, s1, s2 float64
		for _, o := range xs {
			v := row[o : o+3]
			s0 += float64(v[0])
			s1 += float64(v[1])
			s2 += float64(v[2])
		}
		d := dst[y*3 : y*3+3]
		d[0], d[1], d[2] = float32(s0*(1.0/smoothW)), float32(s1*(1.0/smoothW)), float32(s2*(1.0/smoothW))
	}
}

// smoothAt writes pixel (x, y) of the frame, the mean of smoothW down the row (sums in
// float64, as OpenCV's box filter takes them), into dst (3 values).
func (s *scanner) smoothAt(x, y int, dst []float32) {
	const r = smoothW / 2
	var s0, s1, s2 float64
	for k := range smoothW {
		v := s.px[(reflect101(y-r+k, s.h)*s.w+x)*3:][:3]
		s0 += float64(v[0])
		s1 += float64(v[1])
		s2 += float64(v[2])
	}
	dst[0], dst[1], dst[2] = float32(s0*(1.0/smoothW)), float32(s1*(1.0/smoothW)), float32(s2*(1.0/smoothW))
}

// stepAt is one scan line's largest lasting step (the colour distance between the means either
// side).
type stepAt struct {
	line float64 // the scan line's coordinate (x of a column, y of a row)
	most float32
}

// Profile spans around a step: the step itself is measured over ±stepHalf pixels, the colour
// either side of it from stepGap to stepGap+stepSpan pixels away (so that a blurred edge does not
// count itself).
const (
	stepHalf = 2
	stepGap  = 3
	stepSpan = 8
)

// profileSteps measures the steps of a profile (n samples of 3 values), read from its start
// only as far as a scan needs: cumulative sums of each channel give the means either side of a
// point in constant time.
type profileSteps struct {
	n      int
	src    func(k int, dst []float32) // fills sample k's 3 values (nil: prof is whole)
	prof   []float32
	cum    [3][]float32
	filled int // samples [0, filled) are in prof and their sums in cum
}

// load starts a profile of n samples, whole in prof, or made sample by sample by src.
func (p *profileSteps) load(prof []float32, n int, src func(int, []float32)) {
	p.n, p.src, p.filled = n, src, 0
	if src == nil {
		p.prof = prof
	} else {
		p.prof = resize32(p.prof, 3*n)
	}
	for c := range 3 {
		p.cum[c] = resize32(p.cum[c], n+1)
	}
}

// ensure makes samples [0, k] (clipped to the profile) and their sums.
func (p *profileSteps) ensure(k int) {
	k = min(k, p.n-1)
	if k < p.filled {
		return
	}
	if p.src != nil {
		for i := p.filled; i <= k; i++ {
			p.src(i, p.prof[3*i:3*i+3])
		}
	}
	c0, c1, c2 := p.cum[0], p.cum[1], p.cum[2]
	s0, s1, s2 := c0[p.filled], c1[p.filled], c2[p.filled]
	for i := p.filled; i <= k; i++ {
		v := p.prof[3*i : 3*i+3]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		c0[i+1], c1[i+1], c2[i+1] = s0, s1, s2
	}
	p.filled = k + 1
}

// last is the lasting step at i: the colour distance between the means of [i-gap-span, i-gap]
// and [i+gap, i+gap+span], clipped to the profile.
func (p *profileSteps) last(i int) float32 {
	a0, a1 := max(0, i-stepGap-stepSpan), i-stepGap
	b0, b1 := i+stepGap, min(p.n-1, i+stepGap+stepSpan)
	if a1 < a0 || b1 < b0 {
		return 0
	}
	p.ensure(b1)
	var d float32
	for c := range 3 {
		sa := p.cum[c][a1+1] - p.cum[c][a0]
		sb := p.cum[c][b1+1] - p.cum[c][b0]
		d += abs32(sb/float32(b1-b0+1) - sa/float32(a1-a0+1))
	}
	return d
}

// local is the step over ±stepHalf at i.
func (p *profileSteps) local(i int) float32 {
	if i-stepHalf < 0 || i+stepHalf >= p.n {
		return 0
	}
	p.ensure(i + stepHalf)
	var d float32
	for c := range 3 {
		d += abs32(p.prof[(i+stepHalf)*3+c] - p.prof[(i-stepHalf)*3+c])
	}
	return d
}

// largest is the largest lasting step anywhere on the profile.
func (p *profileSteps) largest() float32 {
	var most float32
	for i := stepGap; i < p.n-stepGap; i++ {
		most = max(most, p.last(i))
	}
	return most
}

// first finds the first lasting step from the profile's start at least thr large: the
// position where the colour before and after differ by thr or more and the local step is at
// its peak, and the lasting step's size there; -1 when there is none.
func (p *profileSteps) first(thr float32) (float64, float32) {
	n := p.n
	for i := stepGap; i < n-stepGap; i++ {
		l := p.last(i)
		if l < thr {
			continue
		}
		// The edge is the steepest point of the step: the peak of the local step over the
		// span the lasting step was measured on (a card's dark rim and its white face are one
		// edge, found at the same place whichever of the two crossed the threshold first).
		j, best := i, p.local(i)
		for k := i + 1; k < min(n-stepHalf, i+stepGap+stepSpan); k++ {
			if v := p.local(k); v > best {
				j, best = k, v
			}
		}
		// Sub-pixel: the vertex of the parabola through the peak and its neighbours.
		off := 0.0
		if j > 0 && j < n-1 {
			a, b, c := float64(p.local(j-1)), float64(best), float64(p.local(j+1))
			if den := a - 2*b + c; den < 0 {
				off = 0.5 * (a - c) / den
			}
		}
		if float64(j)+off < 0 {
			// An edge at the profile's very start, its vertex extrapolated before it: the
			// scan goes on to the next point (as it always has; a clamped vertex, measured,
			// moved calibrations enough to read a dev frame wrong).
			continue
		}
		return float64(j) + off, l
	}
	return -1, 0
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// Scan geometry: every scanStep pixels, and edges at most maxTilt off square to the frame.
const (
	scanStep = 4
	maxTilt  = 0.14 // tan 8°
)

// errNoCard is wrapped when no outline is found.
var errNoCard = errors.New("no card outline")

// shoeOutline is the outline found in a reader frame, with what the scans saw (for the trace).
type shoeOutline struct {
	top, left, right line
	thr              float32 // the step size taken as an edge
	contrast         float32 // the median of the scan lines' largest steps
	peak             float32 // their 90th percentile: what the frame shows at its strongest
}

// findShoe finds the card's top edge and sides in a reader frame loaded into s.
func (s *scanner) findShoe() (pose, shoeOutline, error) {
	w, h := s.w, s.h
	var out shoeOutline
	// Columns first: the top edge is the first step from the top of the frame.
	cols := s.steps[:0]
	s.cols = resize32(s.cols, max(0, (w-4*scanStep+scanStep-1)/scanStep)*h*3)
	for x := 2 * scanStep; x < w-2*scanStep; x += scanStep {
		prof := s.cols[len(cols)*h*3:][:h*3]
		s.smoothColumn(x, prof)
		s.ps.load(prof, h, nil)
		cols = append(cols, stepAt{line: float64(x), most: s.ps.largest()})
	}
	if len(cols) == 0 {
		return pose{}, out, errors.Join(errNoCard, errors.New("no top edge"))
	}
	// How large a step counts: a share of what the frame's own lines show at their largest,
	// so a dark card on a dark felt is found as a white one on a green felt is.
	mosts := make([]float64, len(cols))
	for i, c := range cols {
		mosts[i] = float64(c.most)
	}
	sort.Float64s(mosts)
	med := float32(mosts[len(mosts)/2])
	thr := max(0.4*med, minStep)
	out.thr, out.contrast, out.peak = thr, med, float32(mosts[len(mosts)*9/10])
	var ts, cs []float64
	for i := range cols {
		x := int(cols[i].line)
		s.ps.load(s.cols[i*h*3:][:h*3], h, nil)
		if pos, _ := s.ps.first(thr); pos >= 0 {
			ts = append(ts, float64(x))
			cs = append(cs, pos)
		}
	}
	s.steps = cols
	out.top = fitLine(ts, cs, 1.5, maxTilt, minEdgePts)
	if out.top.n == 0 {
		return pose{}, out, errors.Join(errNoCard, errors.New("no top edge"))
	}
	// Then rows below the top edge: the sides are the first steps from the frame's sides.
	var ly, lx, ry, rx []float64
	topAt := func(x float64) float64 { return out.top.at(x) }
	yStart := int(math.Max(topAt(0), topAt(float64(w-1)))) + 2*stepGap + stepSpan
	for y := max(yStart, 0); y < h-stepHalf; y += scanStep {
		s.rowY, s.rowRev = y, false
		s.ps.load(nil, w, s.rowFn)
		if pos, _ := s.ps.first(thr); pos >= 0 {
			ly = append(ly, float64(y))
			lx = append(lx, pos)
		}
		s.rowRev = true
		s.ps.load(nil, w, s.rowFn)
		if pos, _ := s.ps.first(thr); pos >= 0 {
			ry = append(ry, float64(y))
			rx = append(rx, float64(w-1)-pos)
		}
	}
	out.left = fitLine(ly, lx, 1.5, maxTilt, minEdgePts)
	out.right = fitLine(ry, rx, 1.5, maxTilt, minEdgePts)
	out.left.vertical, out.right.vertical = true, true
	if out.left.n == 0 || out.right.n == 0 {
		return pose{}, out, errors.Join(errNoCard, errors.New("no side edge"))
	}
	tl, ok1 := intersect(out.top, out.left)
	tr, ok2 := intersect(out.top, out.right)
	if !ok1 || !ok2 || tr.x-tl.x < float64(w)/4 {
		return pose{}, out, errors.Join(errNoCard, errors.New("sides do not meet the top edge"))
	}
	// The sides are square to the top (a card is a rectangle, the window sees it straight on).
	topDir := out.top.dir()
	for _, side := range []line{out.left, out.right} {
		if c := math.Abs(topDir.dot(side.dir())); c > maxSkew {
			return pose{}, out, errors.Join(errNoCard, errors.New("sides not square to the top edge"))
		}
	}
	return topPose(tl, tr), out, nil
}

// topReach: a top edge found nearer the window's top than this (pixels) may be one above the
// scan's reach found a few pixels low (a step at rows 0–2 is first measured at row 3 or 4): no
// calibration frame is taken from such a frame, whose template would be described off its card.
const topReach = stepGap + stepHalf

// Edge acceptance: a step of at least minStep (8-bit levels summed over the three channels), at
// least minEdgePts scan lines agreeing on an edge, and sides within maxSkew (cosine: 3°) of
// square to the top.
const (
	minStep    = 12
	minEdgePts = 6
	maxSkew    = 0.052
)
