package cv

import (
	"math"
	"sort"
)

// point is a position in a frame, in pixels.
type point struct{ x, y float64 }

func (p point) sub(q point) point      { return point{p.x - q.x, p.y - q.y} }
func (p point) add(q point) point      { return point{p.x + q.x, p.y + q.y} }
func (p point) mul(k float64) point    { return point{p.x * k, p.y * k} }
func (p point) len() float64           { return math.Hypot(p.x, p.y) }
func (p point) dist(q point) float64   { return p.sub(q).len() }
func (p point) dot(q point) float64    { return p.x*q.x + p.y*q.y }
func (p point) cross(q point) float64  { return p.x*q.y - p.y*q.x }
func lerp(p, q point, t float64) point { return p.add(q.sub(p).mul(t)) }
func (p point) unit() point            { return p.mul(1 / p.len()) }
func (p point) perp() point            { return point{-p.y, p.x} } // 90° clockwise in image coordinates
func (p point) in(w, h float64) bool   { return p.x >= 0 && p.y >= 0 && p.x <= w-1 && p.y <= h-1 }
func mid(p, q point) point             { return lerp(p, q, 0.5) }
func angleOf(p point) float64          { return math.Atan2(p.y, p.x) }
func rotate(p point, a float64) point {
	c, s := math.Cos(a), math.Sin(a)
	return point{p.x*c - p.y*s, p.x*s + p.y*c}
}
func pointsClose(p, q point, d float64) bool { return p.dist(q) <= d }

// line is a straight edge c = a·t + b over a parameter t: for a near-horizontal edge t is x and c
// is y; for a near-vertical one t is y and c is x.
type line struct {
	a, b     float64
	vertical bool // t is y
	n        int  // the points that agree with it
	t0, t1   float64
}

func (l line) at(t float64) float64 { return l.a*t + l.b }

// pt returns the point of the line at parameter t.
func (l line) pt(t float64) point {
	if l.vertical {
		return point{l.at(t), t}
	}
	return point{t, l.at(t)}
}

// dir is the line's unit direction, pointing to increasing t.
func (l line) dir() point {
	if l.vertical {
		return point{l.a, 1}.unit()
	}
	return point{1, l.a}.unit()
}

// intersect returns where two lines cross; ok is false when they are (nearly) parallel.
func intersect(l, m line) (point, bool) {
	p, d := l.pt(0), l.dir()
	q, e := m.pt(0), m.dir()
	den := d.cross(e)
	if math.Abs(den) < 1e-6 {
		return point{}, false
	}
	s := q.sub(p).cross(e) / den
	return p.add(d.mul(s)), true
}

// fitLine finds the straight line most of the points (t[i], c[i]) agree with, within tol pixels,
// at a slope of at most maxSlope: every pair of points far enough apart proposes a line, the one
// with the most points within tol wins, and is refitted by least squares to those points. It
// returns n = 0 when fewer than minPts agree.
func fitLine(t, c []float64, tol, maxSlope float64, minPts int) line {
	n := len(t)
	best, bestN := line{}, 0
	if n < 2 {
		return line{}
	}
	// Pairs of points at least a quarter of the spread apart: short baselines give poor slopes.
	sorted := append([]float64(nil), t...)
	sort.Float64s(sorted)
	span := sorted[n-1] - sorted[0]
	step := 1
	if n > 60 {
		step = n / 60
	}
	for i := 0; i < n; i += step {
		for j := i + 1; j < n; j += step {
			dt := t[j] - t[i]
			if math.Abs(dt) < span/4 || dt == 0 {
				continue
			}
			a := (c[j] - c[i]) / dt
			if math.Abs(a) > maxSlope {
				continue
			}
			b := c[i] - a*t[i]
			k := 0
			for q := range n {
				if math.Abs(c[q]-(a*t[q]+b)) <= tol {
					k++
				}
			}
			if k > bestN {
				best, bestN = line{a: a, b: b}, k
			}
		}
	}
	if bestN < minPts {
		return line{}
	}
	// Refit to the agreeing points, twice (the refitted line may take in a few more).
	for range 2 {
		var st, sc, stt, stc float64
		k := 0
		t0, t1 := math.Inf(1), math.Inf(-1)
		for q := range n {
			if math.Abs(c[q]-best.at(t[q])) > tol {
				continue
			}
			st += t[q]
			sc += c[q]
			stt += t[q] * t[q]
			stc += t[q] * c[q]
			t0, t1 = min(t0, t[q]), max(t1, t[q])
			k++
		}
		den := float64(k)*stt - st*st
		if k < 2 || den == 0 {
			break
		}
		a := (float64(k)*stc - st*sc) / den
		if math.Abs(a) > maxSlope {
			break
		}
		best = line{a: a, b: (sc - a*st) / float64(k), n: k, t0: t0, t1: t1}
	}
	if best.n < minPts {
		return line{}
	}
	return best
}
