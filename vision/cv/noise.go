package cv

import (
	"math"
	"sort"
)

// The noise model: how much a frame of a class differs from the class's template, value by
// value, measured at calibration. Each calibration frame is perturbed (perturb.go) and compared
// with its own class's template exactly as a frame is read (its parts at their best shifts,
// blur variant and gains); the squared differences are binned by the template's squared
// gradient there, and σ² = σ0² + κ·g is the least-squares line through the bins' means. The
// differences grow with the slope: a value on an edge differs by what a fraction of a pixel's
// misplacement or a misjudged blur makes of it, one on paper or inside a pip by the noise.

// noiseSample is one perturbed calibration frame: its description(s), its class and the end of
// the card on top (1: a frame of the second pass, turned end for end).
type noiseSample struct {
	class, end int
	ends       []*desc // one (a shoe frame) or two (a whole card: its two ends)
}

// noiseBins is how many bins of the template's squared gradient the differences are averaged
// in.
const noiseBins = 20

// fitNoise measures the noise model of each part from the samples, against templates.
func fitNoise(classes []string, templates []*cardTemplate, length float64, samples []noiseSample, table bool, inferred int) [nParts]noiseModel {
	var unit [nParts]noiseModel
	for p := range unit {
		unit[p] = noiseModel{sigma0: 1}
	}
	m := newModel(classes, templates, length, unit, table, inferred)
	type obs struct{ g, r2 float32 }
	var per [nParts][]obs
	grads := make([][nParts][3][]float32, len(m.views))
	ends := make([]frameEnd, 2)
	for _, s := range samples {
		for e, d := range s.ends {
			ends[e].load(d)
		}
		cands := m.candidates(len(s.ends))
		for _, c := range cands {
			// Its own class with the end it shows on top: a turned pass's frame compared with
			// the other end would count the two ends' difference as noise.
			if c.class != s.class || m.views[c.a].end != s.end {
				continue
			}
			cf := candFit{cand: c}
			mid := len(m.variants) / 2
			for i := range c.slots() {
				m.refineShift(ends, &cf, i, mid)
			}
			cf.d, cf.gain, _ = m.measure(ends, &cf, mid)
			cf.variant = mid
			for va := range m.variants {
				if d, g, _ := m.measure(ends, &cf, va); d < cf.d {
					cf.d, cf.gain, cf.variant = d, g, va
				}
			}
			for i, sl := range c.slots() {
				if m.views[sl.view].parts[sl.part].ignored {
					continue
				}
				tp := &m.views[sl.view].parts[sl.part]
				if grads[sl.view][sl.part][0] == nil {
					// The sharp template's slopes: w is 1 and wt the values themselves.
					for c := range 3 {
						grads[sl.view][sl.part][c] = gradEnergy(tp.wt[0][c], tp.width, tp.rows)
					}
				}
				g := grads[sl.view][sl.part]
				m.residuals(&ends[sl.end], tp, sl.part, cf.variant, cf.shift[i], cf.gain[i], func(c, j int, r float32) {
					per[sl.part] = append(per[sl.part], obs{g[c][j], r * r})
				})
			}
		}
	}
	var out [nParts]noiseModel
	for p := range nParts {
		o := per[p]
		if len(o) < noiseBins*10 {
			out[p] = noiseModel{sigma0: 0.05}
			continue
		}
		sort.Slice(o, func(i, j int) bool { return o[i].g < o[j].g })
		var xs, ys []float64
		for b := range noiseBins {
			lo, hi := b*len(o)/noiseBins, (b+1)*len(o)/noiseBins
			var sg, sr float64
			for _, q := range o[lo:hi] {
				sg += float64(q.g)
				sr += float64(q.r2)
			}
			xs = append(xs, sg/float64(hi-lo))
			ys = append(ys, sr/float64(hi-lo))
		}
		a, b := lineFit(xs, ys)
		// The noise floor: never under the flattest bin's own mean (a line fitted to bins
		// whose spread grows with the slope may cross zero).
		out[p] = noiseModel{sigma0: math.Sqrt(max(a, ys[0]/2, 1e-6)), kappa: max(b, 0)}
	}
	return out
}

// lineFit is the least-squares line y = a + b·x.
func lineFit(xs, ys []float64) (float64, float64) {
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	n := float64(len(xs))
	den := n*sxx - sx*sx
	if den == 0 {
		return sy / n, 0
	}
	b := (n*sxy - sx*sy) / den
	return (sy - b*sx) / n, b
}

// residuals calls fn with each compared value's channel, index in the part's plane and
// difference from the template at the given shift, variant and gains.
func (m *model) residuals(f *frameEnd, tp *tpart, p partID, va int, shift [2]int, g gains, fn func(int, int, float32)) {
	w := tp.width
	for y := range tp.rows {
		if !m.support[p][y] || !tp.known[y] {
			continue
		}
		for c := range 3 {
			x := f.row(p, c, y, shift[0], shift[1], w)
			if x == nil {
				break
			}
			for i, v := range x {
				j := y*w + i
				if tp.w[c][j] == 0 {
					continue // on the outline: not compared
				}
				fn(c, j, v-float32(g[c])*tp.wt[va][c][j]/tp.w[c][j])
			}
		}
	}
}
