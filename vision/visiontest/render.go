package visiontest

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"sync"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Frame sizes of the two views, as ../shared/vision-dev has them.
var (
	ShoeSize  = image.Pt(320, 240)
	TableSize = image.Pt(640, 480)
)

// faceWidth is the width, in pixels, at which faces are rendered and cached.
const faceWidth = 400

// Renderer makes frames of one deck's cards. It is safe for concurrent use. Close releases it.
type Renderer struct {
	// CalibEitherEnd makes WriteCalibration show each card at either end (at random), as a
	// deck shuffled before its calibration pass passes the reader; otherwise every card shows
	// its top end, as a new deck from its box does.
	CalibEitherEnd bool

	deck  Deck
	cache *faceCache
	mu    sync.Mutex
	faces map[string]gocv.Mat // BGRA, faceWidth wide
}

// NewRenderer renders the named deck ("anglo", "oxygen", …; see Decks). Faces are cached in
// CacheDir.
func NewRenderer(deck string) (*Renderer, error) {
	d, err := LookupDeck(deck)
	if err != nil {
		return nil, err
	}
	return &Renderer{deck: d, cache: &faceCache{deck: d, dir: CacheDir(), width: faceWidth}, faces: map[string]gocv.Mat{}}, nil
}

// Deck returns the design rendered.
func (r *Renderer) Deck() Deck { return r.deck }

// String returns "card renderer (anglo)".
func (r *Renderer) String() string { return "card renderer (" + r.deck.Name + ")" }

// Close releases the loaded faces. It is idempotent.
func (r *Renderer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, m := range r.faces {
		m.Close()
		delete(r.faces, k)
	}
	return nil
}

// face returns the BGRA face of a card or "BACK" (owned by the renderer).
func (r *Renderer) face(tok string) (gocv.Mat, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.faces[tok]; ok {
		return m, nil
	}
	p, err := r.cache.path(tok)
	if err != nil {
		return gocv.Mat{}, err
	}
	m := gocv.IMRead(p, gocv.IMReadUnchanged)
	if m.Empty() || m.Channels() != 4 {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("visiontest: cached face %s is not an RGBA PNG", p)
	}
	r.faces[tok] = m
	return m, nil
}

// aspect returns the deck's card height over width.
func (r *Renderer) aspect() (float64, error) { return r.Aspect() }

// Aspect returns the deck's card height over width.
func (r *Renderer) Aspect() (float64, error) {
	m, err := r.face("As")
	if err != nil {
		return 0, err
	}
	return float64(m.Rows()) / float64(m.Cols()), nil
}

// Cut describes a cut card: plain coloured plastic, perhaps printed with a word.
type Cut struct {
	Colour color.RGBA
	Word   string     // "", "CUT", "STOP", "CORTE"
	Ink    color.RGBA // the word's colour
}

// RandomCut picks a cut card's colour and word.
func RandomCut(rng *rand.Rand) Cut {
	palette := []color.RGBA{
		{235, 200, 20, 0}, {240, 140, 20, 0}, {220, 40, 40, 0}, {40, 170, 70, 0}, {30, 70, 200, 0},
		{25, 25, 28, 0}, {235, 235, 230, 0}, {150, 150, 155, 0}, {230, 200, 210, 0},
	}
	c := Cut{Colour: palette[rng.IntN(len(palette))]}
	words := []string{"", "CUT", "STOP", "CORTE"}
	c.Word = words[rng.IntN(len(words))]
	lum := 0.3*float64(c.Colour.R) + 0.59*float64(c.Colour.G) + 0.11*float64(c.Colour.B)
	if lum > 120 {
		c.Ink = color.RGBA{20, 30, 120, 0}
	} else {
		c.Ink = color.RGBA{120, 220, 230, 0}
	}
	return c
}

// cutFace draws a cut card the size of the deck's cards (BGRA; the caller closes it).
func (r *Renderer) cutFace(c Cut) (gocv.Mat, error) {
	asp, err := r.aspect()
	if err != nil {
		return gocv.Mat{}, err
	}
	w, h := faceWidth, int(faceWidth*asp)
	m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(float64(c.Colour.B), float64(c.Colour.G), float64(c.Colour.R), 255), h, w, gocv.MatTypeCV8UC4)
	if c.Word != "" {
		scale := float64(w) * 0.8 / float64(40*len(c.Word))
		sz := gocv.GetTextSize(c.Word, gocv.FontHersheySimplex, scale, int(scale*3))
		// Across the middle of the card, as cut cards print it (and as the development
		// frames show it).
		org := image.Pt((w-sz.X)/2, (h+sz.Y)/2)
		gocv.PutText(&m, c.Word, org, gocv.FontHersheySimplex, scale, color.RGBA{c.Ink.R, c.Ink.G, c.Ink.B, 255}, int(scale*3))
	}
	roundCorners(&m, w/14)
	return m, nil
}

// roundCorners makes the corners of a BGRA card transparent outside a radius.
func roundCorners(m *gocv.Mat, rad int) {
	w, h := m.Cols(), m.Rows()
	px, err := m.DataPtrUint8()
	if err != nil {
		return
	}
	for y := 0; y < rad; y++ {
		for x := 0; x < rad; x++ {
			dx, dy := float64(rad-x)-0.5, float64(rad-y)-0.5
			if dx*dx+dy*dy <= float64(rad*rad) {
				continue
			}
			for _, p := range [][2]int{{x, y}, {w - 1 - x, y}, {x, h - 1 - y}, {w - 1 - x, h - 1 - y}} {
				px[(p[1]*w+p[0])*4+3] = 0
			}
		}
	}
}

// Look is everything about a frame but the card: where the card lies, the light, the optics.
type Look struct {
	// Corners are where the card's four corners (top-left, top-right, bottom-right, bottom-left
	// of its face, upright) land in the frame. OtherEnd turns the card end for end first.
	Corners  [4][2]float64
	OtherEnd bool
	// Felt is the background's colour and Texture its grain (0…30 levels).
	Felt    color.RGBA
	Texture float64
	// Gain scales the light, Tint each channel (R, G, B), and Gradient adds a linear ramp across
	// the frame (fraction of the light, at angle GradientAngle) and Vignette darkens the corners.
	Gain          float64
	Tint          [3]float64
	Gradient      float64
	GradientAngle float64
	Vignette      float64
	// MotionBlur is the length in pixels of the blur along the slide (vertical); Focus the
	// sigma of the defocus blur; Noise the sigma of the sensor noise; JPEG the quality (0: none).
	MotionBlur float64
	Focus      float64
	Noise      float64
	JPEG       int
}

// Strength says how hard a random Look is: Mild for calibration passes, Hard for test frames.
type Strength int

const (
	Mild Strength = iota
	Hard
)

func between(rng *rand.Rand, a, b float64) float64 { return a + rng.Float64()*(b-a) }

// randomLight fills in the light, optics and felt of a look.
func randomLight(rng *rand.Rand, s Strength, l *Look, felt color.RGBA) {
	l.Felt = felt
	l.Texture = between(rng, 3, 7)
	l.Gain = between(rng, 0.85, 1.1)
	for i := range l.Tint {
		l.Tint[i] = between(rng, 0.92, 1.08)
	}
	l.Gradient = between(rng, 0, 0.15)
	l.GradientAngle = between(rng, 0, 2*math.Pi)
	l.Vignette = between(rng, 0, 0.15)
	l.Focus = between(rng, 0.3, 0.8)
	l.Noise = between(rng, 1, 3)
	l.JPEG = 92
	if s == Hard {
		l.Gain = between(rng, 0.65, 1.2)
		for i := range l.Tint {
			l.Tint[i] = between(rng, 0.85, 1.15)
		}
		l.Gradient = between(rng, 0, 0.35)
		l.Vignette = between(rng, 0, 0.3)
		l.Focus = between(rng, 0.4, 1.4)
		l.Noise = between(rng, 2, 5)
		l.JPEG = 60 + rng.IntN(36)
	}
}

// RandomShoeLook places a card in the reader window: its top edge 0…45 pixels from the window's
// top, its left edge 15…60 from the left, 190…260 pixels wide, turned up to 4° (1.5° for Mild),
// either end first (Hard only), with motion blur along the slide (Hard: up to 9 pixels).
func RandomShoeLook(rng *rand.Rand, s Strength, aspect float64) Look {
	var l Look
	grey := between(rng, 35, 70)
	felt := color.RGBA{uint8(grey * between(rng, 0.9, 1.1)), uint8(grey), uint8(grey * between(rng, 0.9, 1.1)), 0}
	randomLight(rng, s, &l, felt)
	w := between(rng, 190, 260)
	maxAngle := 1.5
	if s == Hard {
		maxAngle = 4
		l.OtherEnd = rng.IntN(2) == 1
		l.MotionBlur = between(rng, 0, 9)
	}
	a := between(rng, -maxAngle, maxAngle) * math.Pi / 180
	x0, y0 := between(rng, 15, 60), between(rng, 0, 45)
	l.Corners = rectCorners(x0, y0, w, w*aspect, a)
	return l
}

// RandomTableLook places a whole card on the felt of a table camera: 150…220 pixels wide, any
// rotation, its corners moved by up to 5% of its width for perspective, its centre anywhere that
// keeps the card in view.
func RandomTableLook(rng *rand.Rand, s Strength, aspect float64) Look {
	var l Look
	felts := []color.RGBA{{25, 95, 45, 0}, {30, 60, 110, 0}, {90, 90, 35, 0}, {100, 30, 35, 0}, {40, 110, 90, 0}}
	randomLight(rng, s, &l, felts[rng.IntN(len(felts))])
	w := between(rng, 150, 220)
	h := w * aspect
	a := between(rng, 0, 2*math.Pi)
	// Keep the whole card in view: its half diagonal from the frame's edges.
	half := math.Hypot(w, h) / 2
	cx := between(rng, half, float64(TableSize.X)-half)
	cy := between(rng, min(half, float64(TableSize.Y)/2), max(float64(TableSize.Y)-half, float64(TableSize.Y)/2))
	c, sn := math.Cos(a), math.Sin(a)
	pts := [4][2]float64{{-w / 2, -h / 2}, {w / 2, -h / 2}, {w / 2, h / 2}, {-w / 2, h / 2}}
	for i, p := range pts {
		jx, jy := between(rng, -0.05, 0.05)*w, between(rng, -0.05, 0.05)*w
		l.Corners[i] = [2]float64{cx + p[0]*c - p[1]*sn + jx, cy + p[0]*sn + p[1]*c + jy}
	}
	l.OtherEnd = rng.IntN(2) == 1
	return l
}

// rectCorners returns the corners of a w x h card with its top-left corner at (x0, y0), turned
// by angle a (radians) about that corner.
func rectCorners(x0, y0, w, h, a float64) [4][2]float64 {
	c, s := math.Cos(a), math.Sin(a)
	pt := func(u, v float64) [2]float64 { return [2]float64{x0 + u*c - v*s, y0 + u*s + v*c} }
	return [4][2]float64{pt(0, 0), pt(w, 0), pt(w, h), pt(0, h)}
}

// Subject is what a frame shows: a card token ("As" … "Kc", "BACK"), or a cut card, or nothing.
type Subject struct {
	Token string // a card or "BACK"; "" with Cut nil: the empty window or felt
	Cut   *Cut   // a cut card
}

// CardSubject, CutSubject and Empty are the common subjects.
func CardSubject(c card.Card) Subject { return Subject{Token: c.String()} }
func CutSubject(c Cut) Subject        { return Subject{Cut: &c} }

var Empty = Subject{}

// Render makes one frame of size (ShoeSize or TableSize) showing s as l says, into dst (8-bit
// BGR). Noise comes from rng.
func (r *Renderer) Render(dst *gocv.Mat, size image.Point, s Subject, l Look, rng *rand.Rand) error {
	w, h := size.X, size.Y
	if w < 32 || h < 32 {
		return errors.New("visiontest: frame too small")
	}
	bg := make([]float64, w*h*3)
	felt(bg, w, h, l, rng)
	if s.Token != "" || s.Cut != nil {
		var face gocv.Mat
		if s.Cut != nil {
			m, err := r.cutFace(*s.Cut)
			if err != nil {
				return err
			}
			defer m.Close()
			face = m
		} else {
			m, err := r.face(s.Token)
			if err != nil {
				return err
			}
			face = m
		}
		if err := place(bg, w, h, face, l); err != nil {
			return err
		}
	}
	light(bg, w, h, l)
	buf := make([]byte, len(bg))
	for i, v := range bg {
		buf[i] = uint8(max(0, min(255, math.Round(v))))
	}
	m, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC3, buf)
	if err != nil {
		return fmt.Errorf("visiontest: %w", err)
	}
	defer m.Close()
	if l.MotionBlur >= 1 {
		k := int(math.Round(l.MotionBlur))
		gocv.Blur(m, &m, image.Pt(1, k))
	}
	if l.Focus > 0 {
		gocv.GaussianBlur(m, &m, image.Pt(0, 0), l.Focus, l.Focus, gocv.BorderReplicate)
	}
	if l.Noise > 0 {
		px, _ := m.DataPtrUint8()
		for i := range px {
			px[i] = uint8(max(0, min(255, math.Round(float64(px[i])+rng.NormFloat64()*l.Noise))))
		}
	}
	if l.JPEG > 0 {
		enc, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, m, []int{gocv.IMWriteJpegQuality, l.JPEG})
		if err != nil {
			return fmt.Errorf("visiontest: %w", err)
		}
		d, err := gocv.IMDecode(enc.GetBytes(), gocv.IMReadColor)
		enc.Close()
		if err != nil {
			d.Close()
			return fmt.Errorf("visiontest: %w", err)
		}
		d.CopyTo(dst)
		d.Close()
		return nil
	}
	m.CopyTo(dst)
	return nil
}

// felt fills a BGR float image with the felt: its colour and a soft grain.
func felt(bg []float64, w, h int, l Look, rng *rand.Rand) {
	// Grain: noise on a grid a quarter the size, smoothly interpolated.
	gw, gh := w/4+2, h/4+2
	grain := make([]float64, gw*gh)
	for i := range grain {
		grain[i] = rng.NormFloat64() * l.Texture
	}
	base := [3]float64{float64(l.Felt.B), float64(l.Felt.G), float64(l.Felt.R)}
	for y := 0; y < h; y++ {
		fy := float64(y) / 4
		y0 := int(fy)
		ty := fy - float64(y0)
		for x := 0; x < w; x++ {
			fx := float64(x) / 4
			x0 := int(fx)
			tx := fx - float64(x0)
			g := grain[y0*gw+x0]*(1-tx)*(1-ty) + grain[y0*gw+x0+1]*tx*(1-ty) +
				grain[(y0+1)*gw+x0]*(1-tx)*ty + grain[(y0+1)*gw+x0+1]*tx*ty
			for c := 0; c < 3; c++ {
				bg[(y*w+x)*3+c] = base[c] + g
			}
		}
	}
}

// place warps a BGRA face onto the frame at the look's corners and blends it in by its alpha.
func place(bg []float64, w, h int, face gocv.Mat, l Look) error {
	// Shrink the face close to its size in the frame first, averaging, so that the warp does
	// not alias fine lines.
	cardW := math.Hypot(l.Corners[1][0]-l.Corners[0][0], l.Corners[1][1]-l.Corners[0][1])
	if k := cardW / float64(face.Cols()); k < 0.8 {
		small := gocv.NewMat()
		defer small.Close()
		gocv.Resize(face, &small, image.Pt(int(float64(face.Cols())*k*1.25), int(float64(face.Rows())*k*1.25)), 0, 0, gocv.InterpolationArea)
		face = small
	}
	fw, fh := float32(face.Cols()), float32(face.Rows())
	src := []gocv.Point2f{{X: 0, Y: 0}, {X: fw, Y: 0}, {X: fw, Y: fh}, {X: 0, Y: fh}}
	if l.OtherEnd {
		src = []gocv.Point2f{{X: fw, Y: fh}, {X: 0, Y: fh}, {X: 0, Y: 0}, {X: fw, Y: 0}}
	}
	dst := make([]gocv.Point2f, 4)
	for i, c := range l.Corners {
		dst[i] = gocv.Point2f{X: float32(c[0]), Y: float32(c[1])}
	}
	sv := gocv.NewPoint2fVectorFromPoints(src)
	defer sv.Close()
	dv := gocv.NewPoint2fVectorFromPoints(dst)
	defer dv.Close()
	hm := gocv.GetPerspectiveTransform2f(sv, dv)
	defer hm.Close()
	warped := gocv.NewMat()
	defer warped.Close()
	gocv.WarpPerspectiveWithParams(face, &warped, hm, image.Pt(w, h), gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	px, err := warped.DataPtrUint8()
	if err != nil || len(px) < w*h*4 {
		return errors.New("visiontest: warping the face failed")
	}
	for i := 0; i < w*h; i++ {
		a := float64(px[i*4+3]) / 255
		if a == 0 {
			continue
		}
		for c := 0; c < 3; c++ {
			bg[i*3+c] = bg[i*3+c]*(1-a) + float64(px[i*4+c])*a
		}
	}
	return nil
}

// light applies gain, tint, a linear gradient and a vignette.
func light(bg []float64, w, h int, l Look) {
	gx, gy := math.Cos(l.GradientAngle), math.Sin(l.GradientAngle)
	cx, cy := float64(w)/2, float64(h)/2
	rmax := math.Hypot(cx, cy)
	tint := [3]float64{l.Tint[2], l.Tint[1], l.Tint[0]} // B, G, R
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			f := l.Gain * (1 + l.Gradient*(dx*gx+dy*gy)/rmax)
			r := math.Hypot(dx, dy) / rmax
			f *= 1 - l.Vignette*r*r
			for c := 0; c < 3; c++ {
				bg[(y*w+x)*3+c] *= f * tint[c]
			}
		}
	}
}
