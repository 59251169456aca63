package cv

import (
	"image"
	"math"
	"slices"
	"sort"
	"unsafe"

	"gocv.io/x/gocv"
)

// The scoring model. A frame's card, described in card coordinates (describe.go), is compared
// with every class's template (template.go) part by part: the two corners at the top of the end
// in view (the index, wherever a design prints it: left, right or both), read fine, and the
// face, the whole card as far as the frame shows it, read coarse. Each part is compared
//
//   - at the shift (a few pixels either way) at which it fits best: the outline places the
//     card within a pixel or two, and printing is not registered to the card's edge exactly;
//   - with the template blurred as the frame is (a card sliding out of the shoe is blurred
//     along its length, a camera out of focus all round): the template's blur variant that
//     fits best;
//   - with a gain: the frame's ink may be fainter or darker than the calibration frame's;
//
// by the squared difference of each value from the template's, weighted by how much a frame of
// the class itself differs there: a value on a steep edge of the template differs by a fraction
// of a pixel's misplacement, one on blank paper or inside a pip by the sensor's noise. That
// variance, σ² = σ0² + κ·|∇t|², is measured at calibration (noise.go). A class's distance D is
// the mean weighted square over the values compared: about 1 for a frame of the class as
// harsh as calibration's perturbations, far more for another class. Every class is compared over
// the same rows: those every template knows (template.go) and the frame shows.

// The parts, in fine pixels (fineScale a card width) for the corners and coarse (faceScale) for
// the face; each searched shift either way.
const (
	cornerW     = 48 // 0.375 card widths: an index and its suit, at the left or the right
	cornerH     = 64 // 0.5 card widths down the card
	cornerShift = 3
	faceK       = 4 // fine pixels a face pixel
	faceScale   = fineScale / faceK
	faceShift   = 1
	cornerRX    = fineScale - cornerW // the right corner's left edge
)

type partID int

const (
	cornerL partID = iota
	cornerR
	face
	nParts
)

var partNames = [nParts]string{"left corner", "right corner", "face"}

// variant is a blur of the templates, in fine pixels: a box of motion pixels along the card's
// length (a card sliding out of the shoe) and a Gaussian of focus.
type variant struct {
	motion int
	focus  float64
}

// The blur variants of each view. The shoe's reader sees a card sliding out, up to about 9 of
// its pixels of motion (5 fine pixels) and out of focus by up to 2.5 (1.5); a table camera or a
// photograph sees a card at rest, out of focus, and a small card resampled larger.
var (
	shoeVariants  = []variant{{1, 0}, {4, 0}, {7, 0}, {1, 1.5}, {4, 1.5}, {1, 3}}
	tableVariants = []variant{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
)

// A template is as sharp as the calibration frame it was made from: a card photographed 118
// pixels wide gives a blunter template than one photographed 330 wide, and a sharp frame fits
// a sharp template of another class at its crisp edges better than its own blunt one (the
// template variants can blur a template, not sharpen one). So a class whose template is
// blunter than the frame is compared with the frame blurred to the template's sharpness: both
// at the resolution of the smaller card. A card w pixels wide resolves about cameraBlur of its
// pixels, fineScale·cameraBlur/w fine pixels; the frame is blurred by the difference (in
// quadrature), in steps of frameBlurStep. Letting every class choose a frame blur instead
// (the one it fits best at) read more photographs but gave wrong answers at 1.00 (a blurred
// frame loses what tells clubs from spades).
const (
	// cameraBlur: the describer's own 0.7-pixel blur and a webcam's optics, about as much.
	cameraBlur = 1.0
	// frameBlurStep: blurs closer than half a fine pixel are not told apart by the variants.
	frameBlurStep = 0.5
)

// frameBlur is the blur, in fine pixels, that brings a frame whose card is frameW pixels wide
// to the sharpness of a template made from one templateW wide (0: none, or not known).
func frameBlur(frameW, templateW float64) float64 {
	if frameW <= 0 || templateW <= 0 || templateW >= frameW {
		return 0
	}
	s := fineScale * cameraBlur * math.Sqrt(1/(templateW*templateW)-1/(frameW*frameW))
	return math.Round(s/frameBlurStep) * frameBlurStep
}

// gainMin and gainMax bound the gain a part is compared at: ink from 40% (a blurred or
// over-exposed frame) to 130% (an under-exposed one) of the template's contrast.
const (
	gainMin = 0.4
	gainMax = 1.3
)

// outlineBand is how far inside a card's outline no value is compared (fine pixels), and
// cornerRadius the radius of the rounded corners it follows: what lies there is the outline's
// own step, which the card's colour against the felt or the table sets, and the outline's error
// moves; no design prints its index there.
const (
	outlineBand  = 4
	cornerRadius = 8
)

// onOutline reports whether part p's pixel (x, y) (part pixels) lies within outlineBand of the
// card's outline (rows the length of a card of rows fine rows).
func onOutline(p partID, x, y, rows int) bool {
	switch p {
	case face:
		// A face pixel spans faceK fine pixels each way: any of them on the band.
		for j := range faceK {
			for i := range faceK {
				if onCard(x*faceK+i, y*faceK+j, rows) {
					return true
				}
			}
		}
		return false
	case cornerR:
		x += cornerRX
	}
	return onCard(x, y, rows)
}

// onCard reports whether card pixel (x, y) lies within outlineBand of the outline.
func onCard(x, y, rows int) bool {
	if x < outlineBand || x >= fineScale-outlineBand || y < outlineBand || y >= rows-outlineBand {
		return true
	}
	// The rounded corners (top ones; a corner part reaches no bottom one).
	cx, cy := min(x, fineScale-1-x), y
	if cx < cornerRadius && cy < cornerRadius {
		dx, dy := float64(cornerRadius-cx), float64(cornerRadius-cy)
		return dx*dx+dy*dy > float64((cornerRadius-outlineBand)*(cornerRadius-outlineBand))
	}
	return false
}

// channelSpread bounds how far a channel's gain may stray from the part's own: a camera's
// colour response makes an ink deeper in one channel than another by some tens of percent, not
// by three times (a black glyph's red channel faded to fit a red one's).
const channelSpread = 1.5

// noiseModel is one part's expected difference between a frame of a class and its template:
// σ² = sigma0² + kappa·g, g the template's squared gradient there (noise.go).
type noiseModel struct{ sigma0, kappa float64 }

// tpart is one part of one view's template, ready to compare, a plane per colour channel
// (rows × width values each): w the weight of each value (1/σ²), and for each blur variant
// wt = w·t and each row's sum of w·t².
type tpart struct {
	rows, width int // part pixels
	// ignored: the part is not compared for this view (the cut card's face, where casinos
	// print what they like).
	ignored bool
	known   []bool // per row: the template knows it
	// runs: the spans [from, to) of rows compared (known here and in every template).
	runs [][2]int
	w    [3][]float32
	wt   [][3][]float32
	// sttCum[va][c][y]: Σ w·t² over the rows before y.
	sttCum [][3][]float64
	// The middle variant's w and wt in binary16 (half.go), times hw and hwt: what the
	// screening pass reads.
	halfW, halfWT [3][]uint16
	hw, hwt       float32
}

// view is one end of one class: what a frame shows of the card with that end on top.
type view struct {
	class, end int
	parts      [nParts]tpart
}

// model is what the recognizer compares frames with.
type model struct {
	classes  []string
	views    []view
	variants []variant
	// length is the card's length in card widths; faceRows the face's rows.
	length   float64
	faceRows int
	// support[p][y]: part p's row y is compared (every template knows it).
	support [nParts][]bool
	noise   [nParts]noiseModel
	// delta[a][b]: how far class b's template is from class a's (see decide); ink[a] how far
	// class a's template is from a card of its design printed without ink (a blank).
	delta [][]float64
	ink   []float64
	table bool
	// widthPx[c]: the card's width in class c's calibration frame (0: not known).
	widthPx []float64
}

// newModel builds the views of every class's template (templates[c] for class c; nil: the
// class is not known) for a view of the frame. The face is not compared within inferred rows
// of the far end of the card (see inferredRows).
func newModel(classes []string, templates []*cardTemplate, length float64, noise [nParts]noiseModel, table bool, inferred int) *model {
	m := &model{classes: classes, length: length, noise: noise, table: table, variants: shoeVariants, widthPx: make([]float64, len(classes))}
	for c, t := range templates {
		if t != nil {
			m.widthPx[c] = t.widthPx
		}
	}
	if table {
		m.variants = tableVariants
	}
	rows := 0
	for _, t := range templates {
		if t != nil {
			rows = max(rows, t.rows)
		}
	}
	m.faceRows = rows / faceK
	m.support[cornerL] = make([]bool, cornerH)
	m.support[cornerR] = make([]bool, cornerH)
	m.support[face] = make([]bool, m.faceRows)
	for p := range nParts {
		for y := range m.support[p] {
			m.support[p][y] = true
		}
	}
	var ends []*cardTemplate
	for c, t := range templates {
		if t == nil {
			continue
		}
		for e, et := range []*cardTemplate{t, t.turned()} {
			if !et.knows(cornerH) {
				continue // a one-ended design passed once: its other end is not known
			}
			m.views = append(m.views, view{class: c, end: e})
			ends = append(ends, et)
			// The rows every template knows are compared.
			for y := range cornerH {
				ok := y < et.rows && et.known[y]
				m.support[cornerL][y] = m.support[cornerL][y] && ok
				m.support[cornerR][y] = m.support[cornerR][y] && ok
			}
			if classes[c] == classCut || classes[c] == classBack {
				// The cut card's face is not compared (below); the back's is where it is known,
				// and a back seen once does not narrow what the cards are compared by.
				continue
			}
			for y := range m.faceRows {
				ok := true
				for j := range faceK {
					r := y*faceK + j
					ok = ok && r < et.rows && et.known[r]
				}
				m.support[face][y] = m.support[face][y] && ok
			}
		}
	}
	b := newBlurrer()
	defer b.Close()
	for i := range m.views {
		m.views[i].parts = m.partsOf(ends[i], b)
		if classes[m.views[i].class] == classCut {
			m.views[i].parts[face].ignored = true
		}
		// The face is not compared over the far end's inferred rows: the last ones of the end
		// calibrated, the first ones of the other (seen from the far end).
		fk := m.views[i].parts[face].known
		for y := range fk {
			if r := y * faceK; m.views[i].end == 0 && r+faceK > rows-inferred || m.views[i].end == 1 && r < inferred {
				fk[y] = false
			}
		}
		for p := range nParts {
			tp := &m.views[i].parts[p]
			for y := 0; y < tp.rows; {
				for y < tp.rows && !(m.support[p][y] && tp.known[y]) {
					y++
				}
				from := y
				for y < tp.rows && m.support[p][y] && tp.known[y] {
					y++
				}
				if y > from {
					tp.runs = append(tp.runs, [2]int{from, y})
				}
			}
		}
	}
	m.delta, m.ink = m.deltas()
	return m
}

// inferredRows is how many rows at each end of a card its templates infer rather than saw: one
// pass of a two-ended design completes the far end's rows by symmetry (template.go), true of
// its index corners, not of a one-way picture or pip between them, so the face is not compared
// there.
func inferredRows(source string, passes int, length float64) int {
	if source == "shoe" && passes == 1 && length > 0 {
		return symRows
	}
	return 0
}

// partsOf makes a view's template parts from its end's template.
func (m *model) partsOf(t *cardTemplate, b *blurrer) [nParts]tpart {
	var out [nParts]tpart
	for p := range nParts {
		out[p].width, out[p].rows = cornerW, cornerH
		if p == face {
			out[p].width, out[p].rows = faceScale, m.faceRows
		}
	}
	sharp := t.v
	for vi, va := range m.variants {
		bl := b.blur(sharp, t.rows, va)
		for p := range nParts {
			tp := &out[p]
			v := m.extract(bl, t.rows, p)
			if vi == 0 {
				tp.known = make([]bool, tp.rows)
				for y := range tp.known {
					k := 1
					if p == face {
						k = faceK
					}
					tp.known[y] = true
					for j := range k {
						r := y*k + j
						tp.known[y] = tp.known[y] && r < t.rows && t.known[r]
					}
				}
				// The weights, from the sharp template's slopes.
				nm := m.noise[p]
				for c, plane := range m.extract(sharp, t.rows, p) {
					g := gradEnergy(plane, tp.width, tp.rows)
					tp.w[c] = make([]float32, len(g))
					for i := range g {
						if onOutline(p, i%tp.width, i/tp.width, t.rows) {
							continue // weight 0: not compared
						}
						tp.w[c][i] = float32(1 / (nm.sigma0*nm.sigma0 + nm.kappa*float64(g[i])))
					}
				}
			}
			var wt [3][]float32
			var cum [3][]float64
			for c := range 3 {
				wt[c] = make([]float32, len(v[c]))
				cum[c] = make([]float64, tp.rows+1)
				for i, x := range v[c] {
					wt[c][i] = tp.w[c][i] * x
					cum[c][i/tp.width+1] += float64(wt[c][i]) * float64(x)
				}
				for y := range tp.rows {
					cum[c][y+1] += cum[c][y]
				}
			}
			tp.wt = append(tp.wt, wt)
			tp.sttCum = append(tp.sttCum, cum)
			if vi == len(m.variants)/2 {
				tp.hw, tp.hwt = halfScale(tp.w), halfScale(wt)
				tp.halfW, tp.halfWT = halves(tp.w, tp.hw), halves(wt, tp.hwt)
			}
		}
	}
	return out
}

// extract takes part p out of a template band (fineScale wide, rows rows, 3 channels
// interleaved) as a plane per channel: a corner as it is, the face area-averaged to faceScale.
func (m *model) extract(band []float32, rows int, p partID) [3][]float32 {
	var il []float32
	w, h := cornerW, cornerH
	switch p {
	case cornerL, cornerR:
		x0 := 0
		if p == cornerR {
			x0 = cornerRX
		}
		il = make([]float32, cornerW*cornerH*3)
		for y := range min(cornerH, rows) {
			copy(il[y*cornerW*3:][:cornerW*3], band[(y*fineScale+x0)*3:][:cornerW*3])
		}
	default:
		w, h = faceScale, m.faceRows
		il = make([]float32, faceScale*m.faceRows*3)
		coarsen(il, band, fineScale*3, 0, 0, faceScale, min(m.faceRows, rows/faceK))
	}
	return planes3(il, w*h)
}

// planes3 splits n interleaved 3-channel values into a plane per channel.
func planes3(il []float32, n int) [3][]float32 {
	var out [3][]float32
	for c := range 3 {
		out[c] = make([]float32, n)
		for i := range n {
			out[c][i] = il[i*3+c]
		}
	}
	return out
}

// coarsen area-averages faceK × faceK blocks of a 3-channel plane (rw values a row) from
// (x0, y0) into w × h pixels of dst.
func coarsen(dst, src []float32, rw, x0, y0, w, h int) {
	const k2 = 1.0 / (faceK * faceK)
	for y := range h {
		o := dst[y*w*3 : (y+1)*w*3]
		clear(o)
		for j := range faceK {
			row := src[(y0+y*faceK+j)*rw+x0*3:]
			for x := range w {
				for i := range faceK {
					q := row[(x*faceK+i)*3:]
					o[x*3] += q[0]
					o[x*3+1] += q[1]
					o[x*3+2] += q[2]
				}
			}
		}
		for i := range o {
			o[i] *= k2
		}
	}
}

// gradEnergy is each value's squared central-difference gradient (one plane, w × h).
func gradEnergy(v []float32, w, h int) []float32 {
	out := make([]float32, len(v))
	at := func(x, y int) float32 {
		x = min(w-1, max(0, x))
		y = min(h-1, max(0, y))
		return v[y*w+x]
	}
	for y := range h {
		for x := range w {
			gx := (at(x+1, y) - at(x-1, y)) / 2
			gy := (at(x, y+1) - at(x, y-1)) / 2
			out[y*w+x] = gx*gx + gy*gy
		}
	}
	return out
}

// blurrer blurs template bands with OpenCV; it keeps its Mats.
type blurrer struct{ a, b gocv.Mat }

func newBlurrer() *blurrer { return &blurrer{a: gocv.NewMat(), b: gocv.NewMat()} }

func (b *blurrer) Close() {
	b.a.Close()
	b.b.Close()
}

// blur returns band (fineScale × rows × 3) blurred by va, in a new slice.
func (b *blurrer) blur(band []float32, rows int, va variant) []float32 {
	return b.blurW(nil, band, fineScale, rows, va)
}

// blurW returns band (width × rows × 3) blurred by va, written over dst[:0]: never band itself,
// so that a caller reusing dst cannot overwrite the band it came from.
func (b *blurrer) blurW(dst, band []float32, width, rows int, va variant) []float32 {
	if va.motion <= 1 && va.focus <= 0 {
		return append(dst[:0], band...)
	}
	m, err := gocv.NewMatFromBytes(rows, width, gocv.MatTypeCV32FC3, float32Bytes(band))
	if err != nil {
		return append(dst[:0], band...)
	}
	defer m.Close()
	src := m
	if va.motion > 1 {
		gocv.Blur(src, &b.a, image.Pt(1, va.motion))
		src = b.a
	}
	if va.focus > 0 {
		gocv.GaussianBlur(src, &b.b, image.Pt(0, 0), va.focus, va.focus, gocv.BorderReplicate)
		src = b.b
	}
	px, err := src.DataPtrFloat32()
	if err != nil {
		return append(dst[:0], band...)
	}
	return append(dst[:0], px...)
}

// frameEnd is one end of a frame's card, laid out for comparison, a plane per colour channel:
// its fine band (desc, fineW wide) and the coarse band (faceScale a card width, one pixel of
// margin all round).
type frameEnd struct {
	d           *desc
	f           [3][]float32
	c           [3][]float32
	il          []float32
	cRows       int // coarse band rows
	cTop, cEnd  int // the coarse band's rows wholly in the frame
	fTop, fEnd  int // the fine band's rows in the frame
	coarseWidth int
	// blurred[k] is the end blurred by blurs[k]; class c is compared with blurred[level[c]]
	// (none when level is nil or level[c] < 0): model.load.
	blurred []frameEnd
	bd      []desc
	blurs   []float64
	level   []int
}

// of is the end as class c is compared with it.
func (f *frameEnd) of(c int) *frameEnd {
	if f.level == nil || f.level[c] < 0 {
		return f
	}
	return &f.blurred[f.level[c]]
}

// load lays d out for a frame whose card is widthPx pixels wide (0: not known), blurred as
// each class whose template is blunter needs it (frameBlur), by b: the caller's, so that a frame
// read allocates nothing once the first has sized f.
func (m *model) load(f *frameEnd, d *desc, widthPx float64, b *blurrer) {
	f.load(d)
	f.level, f.blurs = f.level[:0], f.blurs[:0]
	if widthPx <= 0 || d.fineRows == 0 {
		f.level = nil
		return
	}
	for c := range m.classes {
		k := -1
		if s := frameBlur(widthPx, m.widthPx[c]); s > 0 {
			k = slices.Index(f.blurs, s)
			if k < 0 {
				f.blurs = append(f.blurs, s)
				k = len(f.blurs) - 1
			}
		}
		f.level = append(f.level, k)
	}
	if len(f.blurred) < len(f.blurs) {
		f.blurred = append(f.blurred, make([]frameEnd, len(f.blurs)-len(f.blurred))...)
		f.bd = append(f.bd, make([]desc, len(f.blurs)-len(f.bd))...)
	}
	if len(f.blurs) == 0 {
		return
	}
	for k, s := range f.blurs {
		f.bd[k] = desc{fine: b.blurW(f.bd[k].fine, d.fine[:d.fineRows*fineW*3], fineW, d.fineRows, variant{motion: 1, focus: s}), top: d.top, fineRows: d.fineRows}
		f.blurred[k].load(&f.bd[k])
	}
}

// load lays d out.
func (f *frameEnd) load(d *desc) {
	f.d = d
	n := d.fineRows * fineW
	for c := range 3 {
		f.f[c] = resize32(f.f[c], n)
	}
	for i := range n {
		for c := range 3 {
			f.f[c][i] = d.fine[i*3+c]
		}
	}
	f.fTop, f.fEnd = d.top, d.fineRows
	f.coarseWidth = fineW / faceK
	f.cRows = d.fineRows / faceK
	nc := f.coarseWidth * f.cRows
	f.il = resize32(f.il, nc*3)
	coarsen(f.il, d.fine, fineW*3, 0, 0, f.coarseWidth, f.cRows)
	for c := range 3 {
		f.c[c] = resize32(f.c[c], nc)
	}
	for i := range nc {
		for c := range 3 {
			f.c[c][i] = f.il[i*3+c]
		}
	}
	f.cTop = (d.top + faceK - 1) / faceK
	f.cEnd = d.fineRows / faceK
}

// window is where part p at shift (dx, dy) (part pixels) lies in the frame: part row y's values
// of channel c start at planes[c][off+y*stride], for the rows y in [lo, hi) the frame shows.
func (f *frameEnd) window(p partID, dx, dy int) (planes *[3][]float32, off, stride, lo, hi int) {
	if p == face {
		// Coarse row by = y+1+dy, wholly in the frame for by in [cTop, cEnd).
		return &f.c, (1+dy)*f.coarseWidth + 1 + dx, f.coarseWidth, f.cTop - 1 - dy, f.cEnd - 1 - dy
	}
	x0 := fineMargin + dx
	if p == cornerR {
		x0 += cornerRX
	}
	by := fineMargin + dy
	return &f.f, by*fineW + x0, fineW, f.fTop - by, f.fEnd - by
}

// row returns the frame's values of channel c for row y of part p at shift (dx, dy) (part
// pixels), or nil when that row is not in the frame.
func (f *frameEnd) row(p partID, c, y, dx, dy, width int) []float32 {
	planes, off, stride, lo, hi := f.window(p, dx, dy)
	if y < lo || y >= hi {
		return nil
	}
	return planes[c][off+y*stride:][:width]
}

// slot is one part of a frame end compared with one part of a view.
type slot struct {
	end  int // the frame's end
	view int
	part partID
}

// partFit is a slot's fit at one shift and variant: its weighted squares, how many values,
// and the gain of each channel.
type partFit struct {
	chi  float64
	xx   float64 // the weighted squares of the frame's values: chi against a blank
	n    int
	gain gains
}

// gains are a part's gain per colour channel.
type gains [3]float64

// fitPart compares a slot at shift (dx, dy) (part pixels) and variant va. The part has a gain,
// fitted over its three channels, and each channel its own within channelSpread of it: a
// camera's colour and a light's tint change how dark a red ink is in each channel, but a red
// glyph is not a black one faded in its red channel.
func (m *model) fitPart(f *frameEnd, tp *tpart, p partID, va, dx, dy int) partFit {
	return m.fitPartOf(f, tp, p, va, dx, dy, false)
}

// fitPartOf is fitPart, from the binary16 templates when half (va the middle variant).
func (m *model) fitPartOf(f *frameEnd, tp *tpart, p partID, va, dx, dy int, half bool) partFit {
	if tp.ignored {
		return partFit{gain: gains{1, 1, 1}}
	}
	var sxx, sxt, stt [3]float64
	n := 0
	w := tp.width
	planes, off, stride, lo, hi := f.window(p, dx, dy)
	for _, r := range tp.runs {
		y0, y1 := max(r[0], lo), min(r[1], hi)
		if y0 >= y1 {
			continue
		}
		for c := range 3 {
			var a, b float64
			if half {
				a, b = partSumsHalf(tp.halfW[c][y0*w:], tp.halfWT[c][y0*w:], planes[c][off+y0*stride:], w, y1-y0, w, stride)
				a, b = a/float64(tp.hw), b/float64(tp.hwt)
			} else {
				a, b = partSums(tp.w[c][y0*w:], tp.wt[va][c][y0*w:], planes[c][off+y0*stride:], w, y1-y0, w, stride)
			}
			sxx[c] += a
			sxt[c] += b
			stt[c] += tp.sttCum[va][c][y1] - tp.sttCum[va][c][y0]
		}
		n += 3 * w * (y1 - y0)
	}
	if n == 0 {
		return partFit{}
	}
	var out partFit
	out.n = n
	var xt, tt float64
	for c := range 3 {
		xt, tt = xt+sxt[c], tt+stt[c]
	}
	g := 1.0
	if tt > 0 {
		g = min(gainMax, max(gainMin, xt/tt))
	}
	glo, ghi := max(gainMin, g/channelSpread), min(gainMax, g*channelSpread)
	for c := range 3 {
		gc := g
		if stt[c] > 0 {
			gc = min(ghi, max(glo, sxt[c]/stt[c]))
		}
		out.gain[c] = gc
		out.chi += max(0, sxx[c]-2*gc*sxt[c]+gc*gc*stt[c])
		out.xx += sxx[c]
	}
	return out
}

// cand is one way a class can be what the frame shows: the view compared with the frame's end
// 0 (all its parts), and on the table the view compared with the frame's end 1 (its corners).
type cand struct {
	class int
	a, b  int // views; b is -1 in the shoe
}

// candFit is a candidate's fit: its distance, and how it was reached.
type candFit struct {
	cand
	d       float64
	blank   float64 // the distance of a blank (no ink) at the same places: see decide
	part    float64 // the largest of its parts' own distances: see decide
	variant int
	shift   [2 * nParts][2]int
	gain    [2 * nParts]gains
	refined bool
}

// slots lists a candidate's slots: the parts of view a against end 0, the corners of view b
// against end 1.
func (c cand) slots() []slot {
	s := []slot{{0, c.a, cornerL}, {0, c.a, cornerR}, {0, c.a, face}}
	if c.b >= 0 {
		s = append(s, slot{1, c.b, cornerL}, slot{1, c.b, cornerR})
	}
	return s
}

// candidates lists every candidate of the model for n frame ends.
func (m *model) candidates(n int) []cand {
	var out []cand
	other := map[[2]int]int{}
	for i, v := range m.views {
		other[[2]int{v.class, v.end}] = i
	}
	for i, v := range m.views {
		c := cand{class: v.class, a: i, b: -1}
		if o, ok := other[[2]int{v.class, 1 - v.end}]; ok && n == 2 {
			c.b = o
		}
		out = append(out, c)
	}
	return out
}

// measure fits candidate c at the given shifts and variant.
func (m *model) measure(ends []frameEnd, c *candFit, va int) (float64, [2 * nParts]gains, float64) {
	d, g, _, part := m.measureOf(ends, c, va, false)
	return d, g, part
}

// measureOf is measure, from the binary16 templates when half (the screening pass).
// Its third result is the distance of a blank at the same shifts, its fourth the largest of the
// parts' own distances (a part's weighted squares over its values).
func (m *model) measureOf(ends []frameEnd, c *candFit, va int, half bool) (float64, [2 * nParts]gains, float64, float64) {
	var chi, xx, part float64
	var gs [2 * nParts]gains
	n := 0
	for i, s := range c.slots() {
		pf := m.fitPartOf(ends[s.end].of(c.class), &m.views[s.view].parts[s.part], s.part, va, c.shift[i][0], c.shift[i][1], half)
		if pf.n > 0 {
			part = max(part, pf.chi/float64(pf.n))
		}
		chi += pf.chi
		xx += pf.xx
		n += pf.n
		gs[i] = pf.gain
	}
	if n == 0 {
		return math.Inf(1), gs, math.Inf(1), math.Inf(1)
	}
	return chi / float64(n), gs, xx / float64(n), part
}

// refineShift searches slot i of candidate c for its best shift at variant va: a coarse grid,
// then each neighbour of its best point.
func (m *model) refineShift(ends []frameEnd, c *candFit, i int, va int) {
	s := c.slots()[i]
	tp := &m.views[s.view].parts[s.part]
	f := ends[s.end].of(c.class)
	r := cornerShift
	if s.part == face {
		r = faceShift
	}
	best := [2]int{}
	bv := math.Inf(1)
	try := func(dx, dy int) {
		pf := m.fitPart(f, tp, s.part, va, dx, dy)
		if pf.n > 0 && pf.chi/float64(pf.n) < bv {
			bv, best = pf.chi/float64(pf.n), [2]int{dx, dy}
		}
	}
	step := 1
	if r >= 3 {
		step = 2
	}
	for dy := -r; dy <= r; dy += step {
		for dx := -r; dx <= r; dx += step {
			try(dx, dy)
		}
	}
	if step > 1 {
		b0 := best
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if (dx != 0 || dy != 0) && abs(b0[0]+dx) <= r && abs(b0[1]+dy) <= r {
					try(b0[0]+dx, b0[1]+dy)
				}
			}
		}
	}
	c.shift[i] = best
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// refineTop is how many of the best-fitting candidates are searched for their shifts and blur:
// the others keep the fit of their parts where the outline puts them, at the middle blur, as
// the screening pass measured it (from binary16 templates, half.go).
const refineTop = 8

// fit scores every class against the frame's ends (one in the shoe, two on the table): each
// class's distance in dist[c] (+Inf where no candidate could be compared), the distance of a
// blank at the same places in dist[n+c] (n classes), the largest of its parts' distances in
// dist[2n+c], and every candidate's fit, best first.
func (m *model) fit(ends []frameEnd, cands []cand, fits []candFit, dist []float64) []candFit {
	mid := len(m.variants) / 2
	fits = fits[:0]
	for _, c := range cands {
		cf := candFit{cand: c, variant: mid}
		cf.d, cf.gain, cf.blank, cf.part = m.measureOf(ends, &cf, mid, true)
		fits = append(fits, cf)
	}
	sort.Slice(fits, func(i, j int) bool { return fits[i].d < fits[j].d })
	for k := range min(refineTop, len(fits)) {
		cf := &fits[k]
		for i := range cf.slots() {
			m.refineShift(ends, cf, i, mid)
		}
		// A blank's distance does not depend on the template's blur: the one at mid holds.
		cf.d, cf.gain, cf.blank, cf.part = m.measureOf(ends, cf, mid, false)
		for va := range m.variants {
			if va == mid {
				continue
			}
			if d, g, part := m.measure(ends, cf, va); d < cf.d {
				cf.d, cf.gain, cf.part, cf.variant = d, g, part, va
			}
		}
		cf.refined = true
	}
	sort.Slice(fits, func(i, j int) bool { return fits[i].d < fits[j].d })
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	n := len(m.classes)
	for _, f := range fits {
		if f.d < dist[f.class] {
			dist[f.class], dist[n+f.class], dist[2*n+f.class] = f.d, f.blank, f.part
		}
	}
	return fits
}

// deltas measures how far each class's template is from every other's: the distance the
// class's template, compared sharp and where the outline puts it, would give a frame that is
// the other class's template. On the shoe, the larger of the two ends' (a frame shows one end;
// the larger is the stricter yardstick); on the table, the whole card. And how far each class's
// template is from a blank, the same card without ink: the distance it would give a frame that
// shows no index at all (a plain card of another design, a blank).
func (m *model) deltas() ([][]float64, []float64) {
	n := len(m.classes)
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, n)
	}
	byKey := map[[2]int]int{}
	for i, v := range m.views {
		byKey[[2]int{v.class, v.end}] = i
	}
	// dist compares a with b at end e; with a blank when b < 0.
	dist := func(a, b int, e int) float64 {
		blank := b < 0
		if blank {
			b = a
		}
		va, okA := byKey[[2]int{a, e}]
		vb, okB := byKey[[2]int{b, e}]
		if !okA || !okB {
			return math.NaN()
		}
		var chi float64
		cnt := 0
		add := func(va, vb int, p partID) {
			ta, tb := &m.views[va].parts[p], &m.views[vb].parts[p]
			if ta.ignored || tb.ignored {
				return
			}
			w := ta.width
			// t_b − t_a: the weighted templates divided by their weights give the values.
			for y := range ta.rows {
				if !m.support[p][y] || !ta.known[y] || !tb.known[y] {
					continue
				}
				for c := range 3 {
					for i := y * w; i < (y+1)*w; i++ {
						if ta.w[c][i] == 0 || tb.w[c][i] == 0 {
							continue // on the outline
						}
						t := float64(ta.wt[0][c][i]) / float64(ta.w[c][i])
						x := 0.0
						if !blank {
							x = float64(tb.wt[0][c][i]) / float64(tb.w[c][i])
						}
						chi += float64(ta.w[c][i]) * (x - t) * (x - t)
					}
				}
				cnt += 3 * w
			}
		}
		for p := range nParts {
			add(va, vb, p)
		}
		o1, ok1 := byKey[[2]int{a, 1 - e}]
		o2, ok2 := byKey[[2]int{b, 1 - e}]
		if m.table && ok1 && ok2 {
			add(o1, o2, cornerL)
			add(o1, o2, cornerR)
		}
		if cnt == 0 {
			return math.NaN()
		}
		return chi / float64(cnt)
	}
	either := func(a, b int) float64 {
		d0, d1 := dist(a, b, 0), dist(a, b, 1)
		switch {
		case math.IsNaN(d0) && math.IsNaN(d1):
			return math.NaN()
		case math.IsNaN(d1) || m.table:
			return d0
		case math.IsNaN(d0):
			return d1
		}
		return max(d0, d1)
	}
	ink := make([]float64, n)
	for a := range n {
		ink[a] = either(a, -1)
		for b := range n {
			if a != b {
				out[a][b] = either(a, b)
			}
		}
	}
	// Symmetric: the mean of the two ways round (each weighted by its own class's noise).
	for a := range n {
		for b := range a {
			d := (out[a][b] + out[b][a]) / 2
			out[a][b], out[b][a] = d, d
		}
	}
	return out, ink
}

// float32Bytes is v's memory as bytes (for an OpenCV Mat made from it).
func float32Bytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}
