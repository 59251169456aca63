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

// planes is an 8-bit or float image as interleaved BGR float32, w × h.
type planes struct {
	w, h int
	px   []float32
}

func (p *planes) at(x, y int) (float32, float32, float32) {
	i := (y*p.w + x) * 3
	return p.px[i], p.px[i+1], p.px[i+2]
}

// scanner holds a frame's smoothed planes for the edge scans; it is reused between frames.
type scanner struct {
	f, hb, vb gocv.Mat // float frame, box-smoothed along x (for rows' steps) and along y
	h, v      planes
	prof      []float32 // one profile, 3 values a sample
	steps     []stepAt
}

func newScanner() *scanner {
	return &scanner{f: gocv.NewMat(), hb: gocv.NewMat(), vb: gocv.NewMat()}
}

func (s *scanner) Close() {
	s.f.Close()
	s.hb.Close()
	s.vb.Close()
}

// load smooths an 8-bit BGR frame for scanning.
func (s *scanner) load(frame gocv.Mat) error {
	frame.ConvertTo(&s.f, gocv.MatTypeCV32FC3)
	gocv.GaussianBlur(s.f, &s.f, image.Pt(0, 0), 1.0, 1.0, gocv.BorderReplicate)
	gocv.Blur(s.f, &s.hb, image.Pt(9, 1))
	gocv.Blur(s.f, &s.vb, image.Pt(1, 9))
	var err error
	if s.h.px, err = s.hb.DataPtrFloat32(); err != nil {
		return err
	}
	if s.v.px, err = s.vb.DataPtrFloat32(); err != nil {
		return err
	}
	s.h.w, s.h.h = frame.Cols(), frame.Rows()
	s.v.w, s.v.h = s.h.w, s.h.h
	return nil
}

// stepAt is the first lasting step of one scan line: where (in pixels along the line) and how
// large (the colour distance between the means either side), or none.
type stepAt struct {
	line  float64 // the scan line's coordinate (x of a column, y of a row)
	pos   float64 // the step's position along it
	size  float32 // the lasting difference at the step
	most  float32 // the largest lasting difference anywhere on the line
	found bool
}

// Profile spans around a step: the step itself is measured over ±stepHalf pixels, the colour
// either side of it from stepGap to stepGap+stepSpan pixels away (so that a blurred edge does not
// count itself).
const (
	stepHalf = 2
	stepGap  = 3
	stepSpan = 8
)

// firstStep finds the first lasting step of a profile (n samples of 3 values) from its start,
// at least thr large: the position where the colour before and after differ by thr or more and
// the local step is at its peak.
func firstStep(prof []float32, n int, thr float32) (float64, float32, float32) {
	// Cumulative sums of each channel: the means either side of a point in constant time.
	var cum [3][]float32
	var buf [3][512]float32
	for c := range 3 {
		if n+1 <= len(buf[c]) {
			cum[c] = buf[c][:n+1]
		} else {
			cum[c] = make([]float32, n+1)
		}
		cum[c][0] = 0
		for k := range n {
			cum[c][k+1] = cum[c][k] + prof[k*3+c]
		}
	}
	last := func(i int) float32 {
		// Means of [i-gap-span, i-gap] and [i+gap, i+gap+span], clipped to the profile.
		a0, a1 := max(0, i-stepGap-stepSpan), i-stepGap
		b0, b1 := i+stepGap, min(n-1, i+stepGap+stepSpan)
		if a1 < a0 || b1 < b0 {
			return 0
		}
		var d float32
		for c := range 3 {
			sa := cum[c][a1+1] - cum[c][a0]
			sb := cum[c][b1+1] - cum[c][b0]
			d += abs32(sb/float32(b1-b0+1) - sa/float32(a1-a0+1))
		}
		return d
	}
	local := func(i int) float32 {
		if i-stepHalf < 0 || i+stepHalf >= n {
			return 0
		}
		var d float32
		for c := range 3 {
			d += abs32(prof[(i+stepHalf)*3+c] - prof[(i-stepHalf)*3+c])
		}
		return d
	}
	var most float32
	pos, size := -1.0, float32(0)
	for i := stepGap; i < n-stepGap; i++ {
		l := last(i)
		most = max(most, l)
		if pos >= 0 || l < thr {
			continue
		}
		// The edge is the steepest point of the step: the peak of the local step over the
		// span the lasting step was measured on (a card's dark rim and its white face are one
		// edge, found at the same place whichever of the two crossed the threshold first).
		j, best := i, local(i)
		for k := i + 1; k < min(n-stepHalf, i+stepGap+stepSpan); k++ {
			if v := local(k); v > best {
				j, best = k, v
			}
		}
		// Sub-pixel: the vertex of the parabola through the peak and its neighbours.
		off := 0.0
		if j > 0 && j < n-1 {
			a, b, c := float64(local(j-1)), float64(best), float64(local(j+1))
			if den := a - 2*b + c; den < 0 {
				off = 0.5 * (a - c) / den
			}
		}
		pos, size = float64(j)+off, l
	}
	return pos, size, most
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// column fills s.prof with column x of the row-smoothed planes, from y0 down (dir +1) or up.
func (s *scanner) column(x, y0, dir int) int {
	n := 0
	s.prof = s.prof[:0]
	for y := y0; y >= 0 && y < s.h.h; y += dir {
		b, g, r := s.h.at(x, y)
		s.prof = append(s.prof, b, g, r)
		n++
	}
	return n
}

// row fills s.prof with row y of the column-smoothed planes, from x0 rightwards (dir +1) or
// leftwards.
func (s *scanner) row(y, x0, dir int) int {
	n := 0
	s.prof = s.prof[:0]
	for x := x0; x >= 0 && x < s.v.w; x += dir {
		b, g, r := s.v.at(x, y)
		s.prof = append(s.prof, b, g, r)
		n++
	}
	return n
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
	w, h := s.h.w, s.h.h
	var out shoeOutline
	// Columns first: the top edge is the first step from the top of the frame.
	cols := s.steps[:0]
	for x := 2 * scanStep; x < w-2*scanStep; x += scanStep {
		n := s.column(x, 0, 1)
		pos, size, most := firstStep(s.prof, n, math.MaxFloat32)
		_ = pos
		_ = size
		cols = append(cols, stepAt{line: float64(x), most: most})
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
		n := s.column(x, 0, 1)
		if pos, _, _ := firstStep(s.prof, n, thr); pos >= 0 {
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
		n := s.row(y, 0, 1)
		if pos, _, _ := firstStep(s.prof, n, thr); pos >= 0 {
			ly = append(ly, float64(y))
			lx = append(lx, pos)
		}
		n = s.row(y, w-1, -1)
		if pos, _, _ := firstStep(s.prof, n, thr); pos >= 0 {
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

// Edge acceptance: a step of at least minStep (8-bit levels summed over the three channels), at
// least minEdgePts scan lines agreeing on an edge, and sides within maxSkew (cosine: 3°) of
// square to the top.
const (
	minStep    = 12
	minEdgePts = 6
	maxSkew    = 0.052
)
