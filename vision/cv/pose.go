package cv

import "math"

// pose maps card coordinates to frame pixels. Card coordinates are measured in card widths from
// the top-left corner of the end of the card taken as its top: u across (0 at the left edge, 1
// at the right), v down the card's length.
type pose struct {
	h [3][3]float64 // (u, v, 1) → frame (x, y, w), projectively
	// widthPx is the card's width in the frame at its top, in pixels.
	widthPx float64
	// length is the card's length in card widths when its whole outline was found (a table
	// frame), 0 when only its top end is in view (the shoe).
	length float64
	// corners are the outline's corners in the frame: top-left, top-right, then (whole card
	// only) bottom-right and bottom-left.
	corners [4]point
}

// at maps card coordinates to the frame.
func (p *pose) at(u, v float64) point {
	x := p.h[0][0]*u + p.h[0][1]*v + p.h[0][2]
	y := p.h[1][0]*u + p.h[1][1]*v + p.h[1][2]
	w := p.h[2][0]*u + p.h[2][1]*v + p.h[2][2]
	return point{x / w, y / w}
}

// topPose is the pose of a card whose top edge runs from tl to tr and whose sides are square to
// it (the shoe's reader window: no perspective).
func topPose(tl, tr point) pose {
	d := tr.sub(tl)
	n := d.perp() // down the card, as long as the width
	return pose{
		h: [3][3]float64{
			{d.x, n.x, tl.x},
			{d.y, n.y, tl.y},
			{0, 0, 1},
		},
		widthPx: d.len(),
		corners: [4]point{tl, tr},
	}
}

// quadPose is the pose of a whole card whose outline has the corners q (top-left, top-right,
// bottom-right, bottom-left): the projective map of the rectangle 1 × length onto them, length
// being the outline's own aspect (the mean of its two sides over the mean of its two ends).
func quadPose(q [4]point) (pose, bool) { return quadPoseLen(q, 0) }

// quadPoseLen is quadPose for a card known to be length card widths long (0: its outline's own
// aspect): an outline seen in perspective is not the card's shape, and the card's content is
// mapped by its true shape.
func quadPoseLen(q [4]point, length float64) (pose, bool) {
	wTop, wBot := q[0].dist(q[1]), q[3].dist(q[2])
	hL, hR := q[0].dist(q[3]), q[1].dist(q[2])
	if wTop < 1 || wBot < 1 {
		return pose{}, false
	}
	if length == 0 {
		length = (hL + hR) / (wTop + wBot)
	}
	src := [4]point{{0, 0}, {1, 0}, {1, length}, {0, length}}
	h, ok := homography(src, q)
	if !ok {
		return pose{}, false
	}
	return pose{h: h, widthPx: wTop, length: length, corners: q}, true
}

// turned is the same whole card taken from its other end: the corners go round by two.
func (p *pose) turned() pose {
	q := p.corners
	t, _ := quadPoseLen([4]point{q[2], q[3], q[0], q[1]}, p.length)
	return t
}

// homography solves for the projective map taking src[i] to dst[i] (four points, no three in a
// line), by Gaussian elimination on the usual 8 × 8 system.
func homography(src, dst [4]point) ([3][3]float64, bool) {
	var a [8][9]float64
	for i := range 4 {
		x, y, X, Y := src[i].x, src[i].y, dst[i].x, dst[i].y
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -x * X, -y * X, X}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -x * Y, -y * Y, Y}
	}
	for c := range 8 {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return [3][3]float64{}, false
		}
		a[c], a[p] = a[p], a[c]
		for r := range 8 {
			if r == c {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var h [8]float64
	for i := range 8 {
		h[i] = a[i][8] / a[i][i]
	}
	return [3][3]float64{{h[0], h[1], h[2]}, {h[3], h[4], h[5]}, {h[6], h[7], 1}}, true
}
