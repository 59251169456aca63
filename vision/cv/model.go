package cv

import (
	"fmt"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
)

// blurSigma smooths bands before they are compared: frames carry motion blur and JPEG noise that
// the calibration frames have less of, and a little smoothing of both sides evens that out.
const blurSigma = 1.0

// tmpl is one template as features: fine (bandW wide) for the index window, coarse (half that)
// for the whole band.
type tmpl struct {
	name         string
	fine, coarse feat
	// rim is the card's rim against its inside, per channel (see rimContrast).
	rim [3]float64
	// chroma is the band's mean colour as shares of its sum (blue, green, red): what the card
	// is printed on, a red or a black ground, whichever end is seen.
	chroma [3]float64
}

// Radii of the high-pass filters (in band pixels) for the fine and coarse features.
const hpFine, hpCoarse = 16, 8

// suitVariants is how many blurs of each card's index the suit is read against: as calibrated,
// and smeared along the slide by a card pulled fast (motionBlur pixels of the index patch). A
// blurred club looks like a spade to a sharp template; to a blurred club template it does not.
const suitVariants = 4

var (
	motionBlur = [suitVariants]int{0, 7, 13, 0}
	focusBlur  = [suitVariants]float64{0, 0, 0, 3}
)

// indexBlur smooths index patches; at twice the band's resolution it is about half the band's
// blur, so that the glyphs keep their shape.
const indexBlur = 1.2

// indexFeat turns an 8-bit BGR index patch into features (it blurs patch in place).
func indexFeat(patch *gocv.Mat) feat {
	gocv.GaussianBlur(*patch, patch, image.Pt(0, 0), indexBlur, indexBlur, gocv.BorderReplicate)
	return newFeat(*patch, 0, patch.Rows(), 1, 0, false, true)
}

// makeTmpl turns an 8-bit BGR band into a template (it blurs band in place); bright adds the
// brightness plane (calibration's window search needs it).
func makeTmpl(name string, band *gocv.Mat, top, valid int, bright bool) tmpl {
	gocv.GaussianBlur(*band, band, image.Pt(0, 0), blurSigma, blurSigma, gocv.BorderReplicate)
	return tmpl{name: name, fine: newFeat(*band, top, valid, 1, hpFine, true, bright), coarse: newFeat(*band, top, valid, 2, hpCoarse, true, false),
		rim: rimContrast(*band, top, valid), chroma: chromaOf(*band, top, valid)}
}

// model is a profile made ready for matching.
type model struct {
	cards     [52]tmpl
	cut, back *tmpl
	// rankWin and suitWin are the index windows in index-patch pixels (the band's area around
	// the index, indexScale times finer, see warpIndex); suitWin may be empty.
	rankWin, suitWin rect
	area             rect // the index area, in band pixels
	// index spans the rank and suit windows, in band pixels: what must be in view to read them.
	index rect
	idx   [52]feat // each card's index patch
	// rankT holds the brightness plane of each rank's index patch, averaged over its four suits.
	rankT [13][][]float32
	// rankTV holds the rank templates of each blur variant (see suitVariants); rankTV[0] is rankT.
	rankTV [suitVariants][13][][]float32
	// indexGood says the rank window tells every rank from every other in the calibration
	// frames; when it does not (a deck whose index is on one end only), cards are read by their
	// whole face alone.
	indexGood bool
	// faceSim and cornerSim are how alike two cards' templates are: their whole bands at the
	// calibrated end, and their index corners (computed only when !indexGood; see oneEndTable).
	faceSim, cornerSim *[52][52]float64
	// mixed is set when the calibration pass shows cards of a one-ended design at either end
	// (see split); split then reads the glyphs those cards show (nil when they do not read
	// plainly: nothing is read by the face alone).
	mixed bool
	split *split
	// rankSim is the correlation between the rank templates themselves, over the rank window:
	// how alike two ranks are to begin with.
	rankSim [suitVariants][13][13]float64
	// cardSuitSim[v][r][a][b] is the correlation over the suit window of the templates of rank
	// r in suits a and b, in blur variant v.
	cardSuitSim [suitVariants][13][4][4]float64
	// idxV holds each card's index patch in the blur variants the suit is read against (see
	// suitVariants); idxV[0] is idx.
	idxV [suitVariants][52]feat
	// alignT is the mean brightness of all 52 index patches, for aligning a frame's patch
	// before the templates are compared; alignWin is the window it is compared over.
	alignT   [][]float32
	alignWin rect
	// rankStats and cardStats are the templates' sums over their windows (see winStats).
	rankStats [suitVariants][13]winStats
	cardStats [suitVariants][52]winStats
	// cardRankStats are each card's own patch sums over the rank window (see rankByCard).
	cardRankStats [suitVariants][52]winStats
	alignStat     winStats
	// cornerStats are each card's patch sums over alignWin, per blur variant.
	cornerStats [suitVariants][52]winStats
	length      int // the card's length in coarse band pixels; 0 when unknown
	camera      calibration.Camera
	widthPx     float64
}

func newModel(p *calibration.VisionProfile) (*model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.BandWidth != bandW || p.BandHeight != bandH {
		return nil, fmt.Errorf("vision: profile bands are %dx%d, this build uses %dx%d: recalibrate", p.BandWidth, p.BandHeight, bandW, bandH)
	}
	m := &model{
		area:    rect{p.IndexArea.X0, p.IndexArea.Y0, p.IndexArea.X1, p.IndexArea.Y1},
		length:  int(math.Round(p.CardLength / 2)),
		camera:  p.Camera,
		widthPx: p.CardWidthPx,
	}
	load := func(name string, t calibration.Template) (tmpl, error) {
		band, err := gocv.IMDecode(t.PNG, gocv.IMReadColor)
		if err != nil || band.Empty() {
			band.Close()
			return tmpl{}, fmt.Errorf("vision: profile template %s does not decode", name)
		}
		defer band.Close()
		if band.Cols() != bandW || band.Rows() != bandH {
			return tmpl{}, fmt.Errorf("vision: profile template %s is %dx%d", name, band.Cols(), band.Rows())
		}
		return makeTmpl(name, &band, t.TopRows, t.ValidRows, false), nil
	}
	if p.IndexScale != indexScale {
		return nil, fmt.Errorf("vision: profile index scale %d, this build uses %d: recalibrate", p.IndexScale, indexScale)
	}
	toPatch := func(r calibration.Rect) rect {
		if r.Empty() {
			return rect{}
		}
		pr := rect{(r.X0 - m.area.x0) * indexScale, (r.Y0 - m.area.y0) * indexScale, (r.X1 - m.area.x0) * indexScale, (r.Y1 - m.area.y0) * indexScale}
		pw, ph := (m.area.x1-m.area.x0)*indexScale, (m.area.y1-m.area.y0)*indexScale
		d := padIndex * indexScale
		return rect{max(0, pr.x0-d), max(0, pr.y0-d), min(pw, pr.x1+d), min(ph, pr.y1+d)}
	}
	m.rankWin, m.suitWin = toPatch(p.Rank), toPatch(p.Suit)
	m.index = rect{p.Rank.X0, p.Rank.Y0, p.Rank.X1, p.Rank.Y1}
	if !p.Suit.Empty() {
		m.index = rect{min(p.Rank.X0, p.Suit.X0), min(p.Rank.Y0, p.Suit.Y0), max(p.Rank.X1, p.Suit.X1), max(p.Rank.Y1, p.Suit.Y1)}
	}
	for i, c := range card.Deck() {
		t, err := load(c.String(), p.Cards[c.String()])
		if err != nil {
			return nil, err
		}
		m.cards[i] = t
		patch, err := gocv.IMDecode(p.Cards[c.String()].Index, gocv.IMReadColor)
		if err != nil || patch.Empty() {
			patch.Close()
			return nil, fmt.Errorf("vision: profile template %s: index does not decode", c)
		}
		for v := 1; v < suitVariants; v++ {
			b := patch.Clone()
			if motionBlur[v] > 1 {
				gocv.Blur(b, &b, image.Pt(1, motionBlur[v]))
			}
			if focusBlur[v] > 0 {
				gocv.GaussianBlur(b, &b, image.Pt(0, 0), focusBlur[v], focusBlur[v], gocv.BorderReplicate)
			}
			m.idxV[v][i] = indexFeat(&b)
			b.Close()
		}
		m.idx[i] = indexFeat(&patch)
		m.idxV[0][i] = m.idx[i]
		patch.Close()
	}
	m.indexGood = p.IndexSeparation >= MinIndexSeparation
	pw, ph := m.idx[0].w, m.idx[0].h
	n := pw * ph
	for r := 0; r < 13; r++ {
		for v := range m.rankTV {
			m.rankTV[v][r] = make([][]float32, 4)
			m.rankTV[v][r][3] = make([]float32, n)
			for s := 0; s < 4; s++ {
				for i, x := range m.idxV[v][r*4+s].c[3] {
					m.rankTV[v][r][3][i] += x / 4
				}
			}
		}
		m.rankT[r] = make([][]float32, 4)
		m.rankT[r][3] = make([]float32, n)
		for s := 0; s < 4; s++ {
			for i, v := range m.idx[r*4+s].c[3] {
				m.rankT[r][3][i] += v / 4
			}
		}
	}
	m.alignT = make([][]float32, 4)
	m.alignT[3] = make([]float32, n)
	for i := range m.idx {
		for j, v := range m.idx[i].c[3] {
			m.alignT[3][j] += v / 52
		}
	}
	m.alignWin = m.rankWin
	if m.suitWin.area() > 0 {
		m.alignWin = rect{min(m.rankWin.x0, m.suitWin.x0), min(m.rankWin.y0, m.suitWin.y0), max(m.rankWin.x1, m.suitWin.x1), max(m.rankWin.y1, m.suitWin.y1)}
	}
	m.alignStat = planeStats(m.alignT, pw, bright, m.alignWin)
	for v := range m.cornerStats {
		for i := range m.cornerStats[v] {
			m.cornerStats[v][i] = planeStats(m.idxV[v][i].c[:], pw, bright, m.alignWin)
		}
	}
	for v := range m.rankStats {
		for r := range m.rankStats[v] {
			m.rankStats[v][r] = planeStats(m.rankTV[v][r], pw, bright, m.rankWin)
		}
		for i := range m.cardRankStats[v] {
			m.cardRankStats[v][i] = planeStats(m.idxV[v][i].c[:], pw, bright, m.rankWin)
		}
	}
	if m.suitWin.area() > 0 {
		for v := range m.cardStats {
			for i := range m.cardStats[v] {
				m.cardStats[v][i] = planeStats(m.idxV[v][i].c[:], pw, colour, m.suitWin)
			}
		}
	}
	tf := func(planes [][]float32) *feat {
		f := &feat{w: pw, h: ph, top: 0, valid: ph}
		copy(f.c[:], planes)
		return f
	}
	for i := 0; i < 13; i++ {
		for j := 0; j < 13; j++ {
			for v := range m.rankSim {
				m.rankSim[v][i][j] = corrOf(m.rankStats[v][i], m.rankStats[v][j], dotAt(tf(m.rankTV[v][i]), m.rankTV[v][j], pw, bright, m.rankWin, 0, 0))
			}
		}
	}
	if m.suitWin.area() > 0 {
		for rk := 0; rk < 13; rk++ {
			for i := 0; i < 4; i++ {
				for j := 0; j < 4; j++ {
					for v := range m.cardSuitSim {
						a, b := &m.idxV[v][rk*4+i], &m.idxV[v][rk*4+j]
						m.cardSuitSim[v][rk][i][j] = corrOf(m.cardStats[v][rk*4+i], m.cardStats[v][rk*4+j], dotAt(a, b.c[:], b.w, colour, m.suitWin, 0, 0))
					}
				}
			}
		}
	}
	if p.Cut != nil {
		t, err := load("CUT", *p.Cut)
		if err != nil {
			return nil, err
		}
		m.cut = &t
	}
	if p.Back != nil {
		t, err := load("BACK", *p.Back)
		if err != nil {
			return nil, err
		}
		m.back = &t
	}
	// A calibration pass that shows many cards at an end without their index (a deck of a
	// one-ended design, passed at either end) has no index that tells every card's rank,
	// whatever the window's separation of the ranks' means.
	if m.indexGood && len(m.misindexed()) >= maxMisindexed {
		m.indexGood = false
	}
	if !m.indexGood {
		m.oneEnded()
	}
	return m, nil
}

// Window search constants. The index is in a top corner of every playing card; a window is
// searched within cornerW x cornerH band pixels of either top corner.
const (
	cornerW = bandW * 45 / 100
	cornerH = bandW * 60 / 100
	// noiseFloor is the within-class variance every pixel is charged at least, in units of the
	// card background level squared.
	noiseFloor = 0.002
)

const pixelCost = 0.5

// findWindows learns where the index is, from the 52 calibration bands (in card order, see
// card.FromIndex). The rank window is the corner rectangle in which every two ranks differ most
// (the worst pair, in brightness, so that red and black ink count alike) for the least variation
// among the four suits of one rank; the suit window likewise for suits, in colour, under the rank.
// A window around a pip or a court figure tells some ranks apart but never all of them, so the
// windows fit the index glyphs of whatever deck is being calibrated, and leave out the card's
// body, which differs between a card's two ends while the index does not.
func findWindows(cards []feat) (rankWin, suitWin rect, sep float64, err error) {
	if len(cards) != 52 {
		return rect{}, rect{}, 0, fmt.Errorf("vision: need 52 calibration bands, have %d", len(cards))
	}
	w := cards[0].w
	h := cornerH
	for i := range cards {
		h = min(h, cards[i].valid)
	}
	n := w * h
	// Per pixel: the mean brightness of each rank and the within-rank variance; the mean colour
	// of each suit and the within-suit variance.
	rankMean := make([][]float64, 13)
	for r := range rankMean {
		rankMean[r] = make([]float64, n)
	}
	suitMean := make([][]float64, 12) // suit*3 + channel
	for i := range suitMean {
		suitMean[i] = make([]float64, n)
	}
	noiseR := make([]float64, n)
	noiseS := make([]float64, n)
	for p := 0; p < n; p++ {
		for r := 0; r < 13; r++ {
			var g [4]float64
			var m float64
			for s := 0; s < 4; s++ {
				c := &cards[r*4+s]
				g[s] = float64(c.c[3][p])
				m += g[s] / 4
			}
			var v float64
			for s := 0; s < 4; s++ {
				v += (g[s] - m) * (g[s] - m) / 4
			}
			rankMean[r][p] = m
			noiseR[p] += v / 13
		}
		noiseR[p] += noiseFloor
		for s := 0; s < 4; s++ {
			for k := 0; k < 3; k++ {
				var m, mm float64
				for r := 0; r < 13; r++ {
					v := float64(cards[r*4+s].c[k][p])
					m += v / 13
					mm += v * v / 13
				}
				suitMean[s*3+k][p] = m
				noiseS[p] += (mm - m*m) / 4
			}
		}
		noiseS[p] += 3 * noiseFloor
	}
	pairs := func(means [][]float64, noise []float64, groups, planes int) []integral {
		return pairIntegrals(means, noise, groups, planes, w, h, nil)
	}
	rankPairs := pairs(rankMean, noiseR, 13, 1)
	suitPairs := pairs(suitMean, noiseS, 4, 3)
	// A window scores the separation of its worst pair (the sum over its pixels of the squared
	// difference over the noise), less pixelCost for each pixel it holds.
	score := func(pairs []integral, _ *integral, r rect) float64 {
		worst := math.Inf(1)
		for i := range pairs {
			worst = math.Min(worst, pairs[i].sum(r))
		}
		return worst - pixelCost*float64(r.area())
	}
	var nr, ns integral
	var best rect
	bestScore := math.Inf(-1)
	for _, right := range []bool{false, true} {
		for _, r := range cornerRects(w, h, right) {
			if s := score(rankPairs, &nr, r); s > bestScore {
				best, bestScore = r, s
			}
		}
	}
	sep = math.Inf(1)
	for i := range rankPairs {
		sep = math.Min(sep, rankPairs[i].sum(best))
	}
	// The window that separates the ranks best may cut through a wide glyph (a "10"): grow it
	// over whatever of the glyphs lies next to it, so that a rank is read whole.
	between := make([]float64, n)
	for p := 0; p < n; p++ {
		var m, mm float64
		for r := 0; r < 13; r++ {
			m += rankMean[r][p] / 13
			mm += rankMean[r][p] * rankMean[r][p] / 13
		}
		between[p] = (mm - m*m) / noiseR[p]
	}
	g := w * 4 / 100
	lim := rect{max(w*3/100, best.x0-g), max(w*3/100, best.y0-g), min(w-w*3/100, best.x1+g), min(h, best.y1+g)}
	rankWin = grow(best, between, w, lim, glyphShare)
	// The suit symbol sits under the rank, about as wide; in some designs it sits instead in the
	// other top corner, level with the rank (a rank at the left, its suit at the right).
	d := w * 3 / 100
	suitSep := func(r rect) float64 {
		s := math.Inf(1)
		for i := range suitPairs {
			s = math.Min(s, suitPairs[i].sum(r))
		}
		return s
	}
	search := func(area rect, step int) (rect, float64) {
		var out rect
		bestScore := math.Inf(-1)
		for x0 := area.x0; x0 < area.x1; x0 += step {
			for x1 := x0 + w*4/100; x1 <= area.x1; x1 += step {
				for y0 := area.y0; y0 < area.y1; y0 += step {
					for y1 := y0 + w*4/100; y1 <= area.y1; y1 += step {
						r := rect{x0, y0, x1, y1}
						if s := score(suitPairs, &ns, r); s > bestScore {
							out, bestScore = r, s
						}
					}
				}
			}
		}
		return out, bestScore
	}
	suitWin, _ = search(rect{max(0, best.x0-d), best.y0, min(w, best.x1+d), min(h, best.y1+w*30/100)}, 1)
	// A deck whose index holds no suit (its suit is told by the pips) has no suit window: the
	// best window tells the suits apart no better than noise.
	if suitSep(suitWin) < MinSuitSeparation {
		// The other top corner, across from the rank window and about its height.
		other := rect{max(0, w-best.x1-3*d), max(0, best.y0-2*d), min(w, w-best.x0+3*d), min(h, best.y1+2*d)}
		// The rank's own corner was searched above.
		if best.x0+best.x1 < w {
			other.x0 = max(other.x0, best.x1)
		} else {
			other.x1 = min(other.x1, best.x0)
		}
		if alt, _ := search(other, 1); suitSep(alt) >= MinSuitSeparation {
			suitWin = alt
		} else {
			suitWin = rect{}
		}
	}
	return rankWin, suitWin, sep, nil
}

// pairIntegrals returns, for every two groups a < b (both present, when present is not nil), the
// summed-area table (w x h) of the squared difference of their mean planes (planes per group, in
// means[group*planes+k]) over the noise: how much each pixel tells the two apart.
func pairIntegrals(means [][]float64, noise []float64, groups, planes, w, h int, present func(int) bool) []integral {
	var out []integral
	d := make([]float64, w*h)
	for a := 0; a < groups; a++ {
		for b := a + 1; b < groups; b++ {
			if present != nil && (!present(a) || !present(b)) {
				continue
			}
			for p := range d {
				d[p] = 0
				for k := 0; k < planes; k++ {
					x := means[a*planes+k][p] - means[b*planes+k][p]
					d[p] += x * x
				}
				d[p] /= noise[p]
			}
			out = append(out, newIntegral(d, w, h))
		}
	}
	return out
}

// glyphShare is the least signal, as a share of the strongest in a window, that a strip next to
// the window must hold for grow to take it in.
const glyphShare = 0.3

// grow widens r one row or column at a time, within lim, while the strip it would take in holds
// a pixel whose signal (a per-pixel plane w wide) reaches share of the strongest inside r.
func grow(r rect, signal []float64, w int, lim rect, share float64) rect {
	peak := 0.0
	for y := r.y0; y < r.y1; y++ {
		for x := r.x0; x < r.x1; x++ {
			peak = max(peak, signal[y*w+x])
		}
	}
	th := share * peak
	strip := func(s rect) bool {
		for y := s.y0; y < s.y1; y++ {
			for x := s.x0; x < s.x1; x++ {
				if signal[y*w+x] >= th {
					return true
				}
			}
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		if r.x0 > lim.x0 && strip(rect{r.x0 - 1, r.y0, r.x0, r.y1}) {
			r.x0--
			changed = true
		}
		if r.x1 < lim.x1 && strip(rect{r.x1, r.y0, r.x1 + 1, r.y1}) {
			r.x1++
			changed = true
		}
		if r.y0 > lim.y0 && strip(rect{r.x0, r.y0 - 1, r.x1, r.y0}) {
			r.y0--
			changed = true
		}
		if r.y1 < lim.y1 && strip(rect{r.x0, r.y1, r.x1, r.y1 + 1}) {
			r.y1++
			changed = true
		}
	}
	return r
}

// cornerRects lists the candidate rank windows at one top corner: starting within an eighth of
// the card's width from its side and a seventh from its top, and no larger than an index can be.
// A window keeps 3% of the width off the card's edges, where a card seen a pixel off shows felt.
func cornerRects(w, h int, right bool) []rect {
	var out []rect
	for a := w * 3 / 100; a <= w*12/100; a++ { // the window's outer side, off the card's edge
		for b := a + w*5/100; b <= min(a+w*22/100, cornerW); b++ { // its inner side
			x0, x1 := a, b
			if right {
				x0, x1 = w-b, w-a
			}
			for y0 := w * 3 / 100; y0 <= w*15/100; y0 += 2 {
				for y1 := y0 + w*8/100; y1 <= min(y0+w*30/100, cornerH, h); y1 += 2 {
					out = append(out, rect{x0, y0, x1, y1})
				}
			}
		}
	}
	return out
}

// integral is a summed-area table of a w x h plane.
type integral struct {
	w, h int
	t    []float64 // (h+1) x (w+1)
}

func newIntegral(v []float64, w, h int) integral {
	it := integral{w: w, h: h, t: make([]float64, (h+1)*(w+1))}
	for y := 0; y < h; y++ {
		row := 0.0
		for x := 0; x < w; x++ {
			row += v[y*w+x]
			it.t[(y+1)*(w+1)+x+1] = it.t[y*(w+1)+x+1] + row
		}
	}
	return it
}

func (it *integral) sum(r rect) float64 {
	s := it.w + 1
	return it.t[r.y1*s+r.x1] - it.t[r.y1*s+r.x0] - it.t[r.y0*s+r.x1] + it.t[r.y0*s+r.x0]
}

// findLength measures the card's length (in coarse band pixels) from the calibration bands: a
// card's pip layout is symmetric end for end, so a band turned end for end and slid down by the
// right length matches itself where the two overlap. Each band votes with its correlation at
// every candidate length; the best length wins if it stands out. It returns 0 when no length
// does (then the other end of a card is read from its index alone).
func findLength(cards []feat) (int, float64) {
	if len(cards) == 0 {
		return 0, 0
	}
	w := cards[0].w
	lo, hi := w*115/100, w*180/100
	score := make([]float64, hi+1)
	for l := lo; l <= hi; l++ {
		var s, n float64
		for i := range cards {
			a := &cards[i]
			y0 := max(l-a.valid, a.top) // rows y with l-1-y < valid
			if a.valid-y0 < 4 {
				continue
			}
			c := nccRot(a, a, rect{0, y0, w, a.valid}, l)
			k := float64(a.valid - y0)
			s += c * k
			n += k
		}
		if n > 0 {
			score[l] = s / n
		}
	}
	best := lo
	for l := lo; l <= hi; l++ {
		if score[l] > score[best] {
			best = l
		}
	}
	vals := append([]float64(nil), score[lo:hi+1]...)
	sort.Float64s(vals)
	med := vals[len(vals)/2]
	if score[best] < 0.5 || score[best]-med < 0.15 {
		return 0, score[best]
	}
	return best, score[best]
}

// MinIndexSeparation is the least worst-pair separation (see findWindows) at which a rank window
// is trusted, MinSuitSeparation a suit window (the development decks' suit windows separate
// their suits by 100 to 3,000; a deck with no suit in its index, by under 30).
const MinIndexSeparation, MinSuitSeparation = 100, 30

// maxMisindexed is the least number of calibration cards whose own index does not read their
// rank (see misindexed) at which a deck is read as one whose index is at one end only: over the
// 34 designs calibrated at their top end, at most 13 (a design with no suit in its index); over
// five one-ended designs calibrated at either end (three passes each), 19 to 42.
const maxMisindexed = 16

// pad grows a non-empty window by d pixels on each side, within the band.
func pad(r rect, d int) rect {
	if r.area() == 0 {
		return r
	}
	return rect{max(0, r.x0-d), max(0, r.y0-d), min(bandW, r.x1+d), min(bandH, r.y1+d)}
}

// padIndex is the margin (band pixels) added around the learned windows when reading them.
const padIndex = 2

// oneEnded readies a deck whose index does not tell every rank: the similarities of its cards'
// templates and, for a mixed calibration pass, the split.
func (m *model) oneEnded() {
	m.oneEndSims()
	end, nRank, nSuit := m.calibratedEnds()
	m.mixed = nRank >= minMixed && nSuit >= minMixed
	m.split = nil
	if m.mixed {
		m.split = m.newSplit(end)
	}
}

// oneEndSims fills faceSim and cornerSim.
func (m *model) oneEndSims() {
	var fs, cs [52][52]float64
	pw := m.idx[0].w
	for i := 0; i < 52; i++ {
		for j := i; j < 52; j++ {
			f := nccRows(&m.cards[i].fine, &m.cards[j].fine, 0, bandH)
			c := corrOf(m.cornerStats[0][i], m.cornerStats[0][j], dotAt(&m.idx[i], m.idx[j].c[:], pw, bright, m.alignWin, 0, 0))
			fs[i][j], fs[j][i] = f, f
			cs[i][j], cs[j][i] = c, c
		}
	}
	m.faceSim, m.cornerSim = &fs, &cs
}

// misindexed lists the calibration cards whose own index patch does not read their own rank
// plainly (rankMin, rankMargin) against the rank templates, over the rank window: cards seen at
// an end that holds no index (a deck calibrated at either end, of a design that prints its index
// at one end only), whose rank the templates' means blur.
func (m *model) misindexed() []int {
	var out []int
	pw := m.idx[0].w
	for i := range m.idx {
		f := &m.idx[i]
		fs := statsAt(f, bright, m.rankWin, 0, 0)
		var v [13]float64
		for rk := range v {
			v[rk] = corrOf(fs, m.rankStats[0][rk], dotAt(f, m.rankTV[0][rk], pw, bright, m.rankWin, 0, 0))
		}
		r1, r2 := best2(v[:])
		if r1 != i/4 || v[r1] < rankMin || relLead(v[r1], v[r2], m.rankSim[0][r1][r2]) < rankMargin {
			out = append(out, i)
		}
	}
	return out
}
