package cv

import (
	"fmt"
	"math"
	"sort"
)

// The rule's numbers come from calibration, not from a hand. Every calibration frame is
// perturbed many times (perturb.go: harder than a camera in the field should make it), each
// perturbed frame read against the profile — whose templates were made from the unperturbed
// frames, never from the frame being read — and for each read two figures are kept: the
// distance of the frame's own class, and how near it came to being read as another card (the
// lead, over every rival and its blank, of the other class nearest to acceptance). The
// threshold T passes fitShare of the frames' own distances; the margin M is the least lead at
// which the estimated share of frames read wrong is under the target. Too few perturbed frames
// fall in the tail to count a rate of 1 in 10,000 directly: the largest near misses are fitted
// with an exponential tail (a tail that falls off faster, as these do, is over-estimated: the
// estimate errs on the safe side).

// falseAcceptTarget is the most false accepts per frame a profile may be estimated to give: 1 in
// 10,000 (issue 17).
const falseAcceptTarget = 1e-4

// fitShare is the share of the perturbed calibration frames whose fit to their own class the
// threshold passes: the worst twentieth of frames perturbed harder than the field's (the
// outline misplaced, the card blurred past reading) are as far from their class as from
// another.
const fitShare = 0.95

// trial is one perturbed calibration frame read against the profile.
type trial struct {
	measured bool      // the card was found and described
	own      int       // its class
	dist     []float64 // every class's distance
}

// fitted is a derived rule with its figures.
type fitted struct {
	maxDist, minLead       float64
	maxPart                float64 // +Inf where the trials carry no parts' distances
	falseAccept            float64
	readRate               float64
	samples, measured      int
	wrong                  int // trials the rule read as another class
	leads                  []float64
	genuineP50, genuineP99 float64
	// tailPair is the pair (a class's frames, the class that led them) holding the most of
	// the largest leads the margin was set from (pairShare of them); what a
	// technician recaptures when the margin is too high to read.
	tailPair     [2]int
	pairShare    float64
	tailPairLead float64
}

// pairNote says which pair the margin was set by, for a refusal: "; the margin is set most by
// 5c's frames led by 6c (...)", or nothing when no class led another.
func (f fitted) pairNote(classes []string) string {
	a, b := f.tailPair[0], f.tailPair[1]
	if a < 0 || b < 0 || a >= len(classes) || b >= len(classes) {
		return ""
	}
	return fmt.Sprintf("; the margin is set most by %s's perturbed frames led by %s (%.0f%% of the largest leads, up to %.2f): recapture those two cards, or pass the deck again showing more of them", classes[a], classes[b], 100*f.pairShare, f.tailPairLead)
}

// tail estimates P(X ≥ x) from sorted samples: counted where at least tailMin samples are that
// large; beyond, an exponential fitted to the largest tailShare of them (at least tailMin).
const (
	tailShare = 0.02
	tailMin   = 10
)

func upperTail(s []float64, x float64) float64 {
	n := len(s)
	if n == 0 {
		return 1
	}
	k := n - sort.SearchFloat64s(s, x) // how many are ≥ x
	if k >= tailMin {
		return float64(k) / float64(n)
	}
	// The largest tailShare of the finite samples (at least tailMin).
	f := n - sort.Search(n, func(i int) bool { return !math.IsInf(s[i], -1) })
	m := min(f, max(tailMin, int(tailShare*float64(n))))
	if m < 2 {
		return float64(k) / float64(n)
	}
	u := s[n-m]
	beta := 0.0
	for _, v := range s[n-m:] {
		beta += v - u
	}
	beta /= float64(m)
	est := float64(m) / float64(n)
	if x > u {
		est *= math.Exp(-(x - u) / max(beta, 1e-3))
	}
	// Never under what was counted.
	return max(est, float64(k)/float64(n))
}

// fitRule derives the threshold and the margin from the trials (of n classes), leads measured
// by lead.
func fitRule(trials []trial, n int, lead func(best, rival int, dist []float64) float64) fitted {
	out := fitted{samples: len(trials)}
	// The threshold: the distance within which fitShare of the perturbed frames fit their own
	// class. A frame that fits no class as well is not read: a card of another deck, a card
	// the outline missed, a frame too blurred to tell.
	var gen []float64
	for _, t := range trials {
		if !t.measured {
			continue
		}
		out.measured++
		gen = append(gen, t.dist[t.own])
	}
	if out.measured == 0 {
		out.minLead, out.falseAccept = math.Inf(1), 1
		return out
	}
	sort.Float64s(gen)
	out.genuineP50, out.genuineP99 = gen[len(gen)/2], gen[min(len(gen)-1, len(gen)*99/100)]
	out.maxDist = round6(gen[min(len(gen)-1, int(fitShare*float64(len(gen))))])
	// The part threshold, the same way from each frame's worst-fitting part of its own class: a
	// frame fits a class only where every part of it does (decide).
	out.maxPart = math.Inf(1)
	var parts []float64
	for _, t := range trials {
		if t.measured && len(t.dist) >= distLen*n {
			parts = append(parts, t.dist[2*n+t.own])
		}
	}
	if len(parts) > 0 {
		sort.Float64s(parts)
		out.maxPart = round6(parts[min(len(parts)-1, int(fitShare*float64(len(parts))))])
	}
	// The margin: for each frame, how near it came to being read as another class — the least
	// lead, over every rival and its blank, of the other class within the threshold nearest to
	// being accepted: not the lead over the frame's own class alone, which a frame showing no
	// index (led by its blank) can give a wrong class at any size. The part threshold is not
	// applied here: most frames of a design would then show no near miss at all, and the tail
	// be fitted to the few (nicu-ornamental's shoe: 40 of 2130), a spread that puts M past
	// every lead seen; leaving it out only over-counts.
	type led struct {
		l          float64
		own, rival int
	}
	byLead := make([]led, 0, out.measured)
	for _, t := range trials {
		if !t.measured {
			continue
		}
		w, wc := math.Inf(-1), -1
		for c, d := range t.dist[:n] {
			if c == t.own || math.IsNaN(d) || d > out.maxDist || nonCard(c) && nonCard(t.own) {
				continue // the cut card and the back, read one for the other: no card either way
			}
			if l := leadOver(c, t.dist, n, lead); l > w {
				w, wc = l, c
			}
		}
		byLead = append(byLead, led{w, t.own, wc})
	}
	// Largest first; worst, the same leads ascending, is what the tail is estimated from.
	sort.Slice(byLead, func(i, j int) bool { return byLead[i].l > byLead[j].l })
	worst := make([]float64, len(byLead))
	for i, b := range byLead {
		worst[len(byLead)-1-i] = b.l
	}
	out.leads = worst
	// The pair most of the tail comes from.
	top := byLead[:min(len(byLead), max(tailMin, int(tailShare*float64(len(byLead)))))]
	count, most := map[[2]int]int{}, map[[2]int]float64{}
	for _, b := range top {
		if b.rival >= 0 {
			k := [2]int{b.own, b.rival}
			if count[k] == 0 {
				most[k] = b.l // top is sorted: its first lead is its largest
			}
			count[k]++
		}
	}
	out.tailPair = [2]int{-1, -1}
	for k, c := range count {
		if c > count[out.tailPair] || c == count[out.tailPair] && most[k] > out.tailPairLead {
			out.tailPair, out.tailPairLead = k, most[k]
		}
	}
	if out.tailPair[0] >= 0 {
		out.pairShare = float64(count[out.tailPair]) / float64(len(top))
	}
	M := 0.0
	for ; upperTail(worst, M) > falseAcceptTarget; M += 0.01 {
	}
	out.minLead = round6(M)
	out.falseAccept = upperTail(worst, M)
	read := 0
	for _, t := range trials {
		if !t.measured {
			continue
		}
		best, _, l := bestAndRunner(t.dist, n, lead)
		if best < 0 || l < out.minLead || t.dist[best] > out.maxDist || len(t.dist) >= distLen*n && t.dist[2*n+best] > out.maxPart {
			continue
		}
		switch {
		case best == t.own:
			read++
		case !nonCard(best) || !nonCard(t.own):
			out.wrong++
		}
	}
	out.readRate = float64(read) / float64(len(trials))
	return out
}

// nonCard reports whether class c is the back or the cut card (the 52 cards come first).
func nonCard(c int) bool { return c >= 52 }

// bestAndRunner returns the best of the n classes, the rival it leads least and its lead over
// it. A card's rivals are the other classes and, where dist holds the blanks' distances
// (model.fit), its blank, n+best; the back and the cut card have none (a plain one is a blank).
func bestAndRunner(dist []float64, n int, lead func(best, rival int, dist []float64) float64) (best, runner int, l float64) {
	best, runner = -1, -1
	for c, d := range dist[:n] {
		if !math.IsNaN(d) && !math.IsInf(d, 1) && (best < 0 || d < dist[best]) {
			best = c
		}
	}
	if best < 0 {
		return -1, -1, math.Inf(-1)
	}
	runner, l = rivalOf(best, dist, n, lead)
	return best, runner, l
}

// leadOver is class c's least lead over every other class and, a card, its blank: what decide
// compares with the margin were c the best.
func leadOver(c int, dist []float64, n int, lead func(best, rival int, dist []float64) float64) float64 {
	_, l := rivalOf(c, dist, n, lead)
	return l
}

// rivalOf returns the rival class c leads least (n+c for its blank) and its lead over it.
func rivalOf(c int, dist []float64, n int, lead func(best, rival int, dist []float64) float64) (runner int, l float64) {
	runner, l = -1, math.Inf(1)
	for r, d := range dist[:n] {
		if r != c && !math.IsNaN(d) {
			if v := lead(c, r, dist); v < l || runner < 0 {
				runner, l = r, min(l, v)
			}
		}
	}
	if len(dist) >= 2*n && !nonCard(c) {
		if v := lead(c, n+c, dist); v < l {
			runner, l = n+c, v
		}
	}
	return runner, l
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
