package cv

import (
	"math"
	"sort"
)

// The rule's two numbers come from calibration, not from a hand: every calibration frame is
// perturbed many times and read again, twice — with the whole profile (its own class present: the
// read rate, and how far any other class ever comes from beating it) and against the profile
// without its class (a card the profile does not hold: how well the best wrong class then fits,
// and by how much it leads). The threshold and the margin are the pair that reads the most
// perturbed frames right while the estimated false-accept rate stays under the target, both
// ways: a frame of a card the profile does not know accepted as another, and a frame of a known
// card accepted as another. Too few perturbed frames fall in the tails to count a rate of 1 in
// 10,000 directly; each tail is fitted with an exponential to its most extreme tenth (a tail that
// falls off faster than an exponential, as these do, is over-estimated: the estimate errs on the
// safe side).

// falseAcceptTarget is the most false accepts per frame a profile may be estimated to give: 1 in
// 10,000 (issue 17).
const falseAcceptTarget = 1e-4

// trial is what one perturbed calibration frame gave.
type trial struct {
	// With the whole profile: the best class's distance and lead, whether it was the frame's own
	// class, and the best other class's lead over the frame's own class (negative while the
	// own class fits better).
	d, lead float64
	right   bool
	overOwn float64
	otherD  float64 // the distance of that best other class
	// Against the profile without the frame's class: the best class's distance and lead.
	impD, impLead float64
	measured      bool // the frame's card was found and described
	own, imp      string
}

// fitted is a derived rule with its figures.
type fitted struct {
	maxDist, minLead          float64
	farAbsent, farPresent     float64
	readRate                  float64
	samples, impostors, wrong int
}

// fitRule derives the threshold and the margin from the trials.
func fitRule(trials []trial) fitted {
	var gen []float64 // distances of frames read as their own class
	var imp []trial   // the measured frames, for their impostor figures
	for _, t := range trials {
		if !t.measured {
			continue
		}
		imp = append(imp, t)
		if t.right {
			gen = append(gen, t.d)
		}
	}
	out := fitted{samples: len(trials), impostors: len(imp)}
	if len(gen) == 0 || len(imp) == 0 {
		out.maxDist, out.minLead, out.farAbsent, out.farPresent = 1e-6, 10, 1, 1
		return out
	}
	sort.Float64s(gen)

	// Candidate thresholds: the genuine distances from their 80th percentile up.
	var cands []float64
	for q := 0.80; q < 1; q += 0.0025 {
		cands = append(cands, gen[min(len(gen)-1, int(q*float64(len(gen))))])
	}
	cands = append(cands, gen[len(gen)-1])
	best := fitted{readRate: -1}
	absD, absL := make([]float64, len(imp)), make([]float64, len(imp))
	preD, preL := make([]float64, len(imp)), make([]float64, len(imp))
	for i, t := range imp {
		absD[i], absL[i] = t.impD, t.impLead
		preD[i], preL[i] = t.otherD, t.overOwn
	}
	for _, T := range cands {
		absent := newJoint(absD, absL, T)
		present := newJoint(preD, preL, T)
		// The smallest margin that keeps both false-accept estimates under the target.
		for M := 0.0; M <= 3; M += 0.01 {
			fa, fp := absent.at(M), present.at(M)
			if fa > falseAcceptTarget || fp > falseAcceptTarget {
				continue
			}
			rr, wrong := 0, 0
			for _, t := range imp {
				if t.d <= T && t.lead >= M {
					if t.right {
						rr++
					} else {
						wrong++
					}
				}
			}
			r := float64(rr) / float64(len(trials))
			if r > best.readRate || r == best.readRate && fa+fp < best.farAbsent+best.farPresent {
				best = fitted{maxDist: T, minLead: M, farAbsent: fa, farPresent: fp, readRate: r, samples: len(trials), impostors: len(imp), wrong: wrong}
			}
			break
		}
	}
	if best.readRate < 0 {
		return fitted{maxDist: 1e-6, minLead: 10, farAbsent: 1, farPresent: 1, samples: len(trials), impostors: len(imp)}
	}
	return best
}

// joint estimates P(D ≤ T and lead ≥ M) for a rival class: the share that fits within T (its
// lower tail fitted), times the share of those that lead by M (the leads of the rivals fitting
// within T, or of the 20 fitting best when fewer do: their upper tail fitted).
type joint struct {
	pT    float64
	leads []float64
}

func newJoint(ds, leads []float64, T float64) joint {
	sd := append([]float64(nil), ds...)
	sort.Float64s(sd)
	j := joint{pT: lowerTail(sd, T)}
	idx := make([]int, len(ds))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ds[idx[a]] < ds[idx[b]] })
	for k, i := range idx {
		if ds[i] > T && k >= 20 {
			break
		}
		j.leads = append(j.leads, leads[i])
	}
	sort.Float64s(j.leads)
	return j
}

func (j joint) at(M float64) float64 { return j.pT * upperTail(j.leads, M) }

// tailShare is the share of the most extreme values an exponential tail is fitted to, and
// tailMin the fewest.
const (
	tailShare = 0.02
	tailMin   = 10
)

// upperTail estimates P(X ≥ x) from sorted samples: counted where at least tailMin samples are
// that large; beyond, an exponential fitted to the largest tenth.
func upperTail(s []float64, x float64) float64 {
	n := len(s)
	if n == 0 {
		return 1
	}
	i := sort.SearchFloat64s(s, x) // first ≥ x
	if k := n - i; k >= tailMin {
		return float64(k) / float64(n)
	}
	m := max(tailMin, int(tailShare*float64(n)))
	m = min(m, n)
	u := s[n-m]
	beta := 0.0
	for _, v := range s[n-m:] {
		beta += v - u
	}
	beta /= float64(m)
	if beta <= 0 {
		beta = 1e-3
	}
	if x <= u {
		return float64(m) / float64(n)
	}
	return float64(m) / float64(n) * math.Exp(-(x-u)/beta)
}

// lowerTail estimates P(X ≤ x) likewise.
func lowerTail(s []float64, x float64) float64 {
	n := len(s)
	if n == 0 {
		return 1
	}
	neg := make([]float64, n)
	for i, v := range s {
		neg[n-1-i] = -v
	}
	return upperTail(neg, -x)
}
