package cv

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"sync"

	"gocv.io/x/gocv"
)

// Calibration learns how a card's description varies, and where the recognizer's thresholds
// must lie, from the calibration frames themselves: each is perturbed many times, harder than a
// camera in the field should make it, and read again. A perturbation is a frame the camera could
// have taken instead: the card moved, turned and scaled a little, the light brighter or dimmer,
// tinted, falling off across the frame, the frame blurred by focus and by the card's motion,
// noisier, and JPEG-compressed.
type perturbation struct {
	angle, scale, dx, dy float64 // degrees, ratio, pixels
	gain                 float64
	tint                 [3]float64 // B, G, R
	gradient, gradAngle  float64
	motion, focus, noise float64 // pixels (vertical motion blur length), sigma, sigma
	// coarse is how much coarser the sensor is (the frame taken at 1/coarse the resolution and
	// scaled back up); sharpen the amount of a camera's unsharp mask.
	coarse, sharpen float64
	jpeg            int
}

// The perturbations' ranges: a shoe's reader sees a card turned up to 4°, blurred by up to
// 9 pixels of motion and out of focus by a Gaussian of up to about 2.5 pixels, the card nearer or
// farther by a few percent, lit unevenly, noisy and compressed; these go well past that (the
// rule is derived from frames harsher than the field's).
const (
	pertAngle  = 6.0  // degrees either way
	pertScale  = 0.10 // of the card's size either way
	pertShift  = 6.0  // pixels either way
	pertMotion = 14.0 // pixels of motion blur along the slide
	pertFocus  = 4.0  // sigma, pixels, of the focus blur
)

// randomPerturbation draws one perturbation.
func randomPerturbation(rng *rand.Rand) perturbation {
	u := func(a, b float64) float64 { return a + rng.Float64()*(b-a) }
	p := perturbation{
		angle:     u(-pertAngle, pertAngle),
		scale:     1 + u(-pertScale, pertScale),
		dx:        u(-pertShift, pertShift),
		dy:        u(-pertShift, pertShift),
		gain:      u(0.5, 1.4),
		gradient:  u(0, 0.6),
		gradAngle: u(0, 2*math.Pi),
		motion:    u(0, pertMotion),
		focus:     u(0, pertFocus),
		noise:     u(1, 10),
		coarse:    u(1, 1.6),
		sharpen:   u(0, 0.8),
		jpeg:      40 + rng.IntN(56),
	}
	for i := range p.tint {
		p.tint[i] = u(0.8, 1.2)
	}
	return p
}

// relative scales the blurs of a perturbation made for a card readerWidthPx wide to a card
// widthPx wide when that is smaller (a photograph's card may be half a reader's): a blur of so
// many pixels is harsher on a smaller card, and the perturbations are meant as harsh for every
// card, not more.
func (q *perturbation) relative(widthPx float64) {
	k := min(1, widthPx/readerWidthPx)
	q.motion *= k
	q.focus *= k
	q.coarse = 1 + (q.coarse-1)*k
}

// readerWidthPx is a card's width in a reader window's frame, about (pixels).
const readerWidthPx = 220

// perturber applies perturbations; it keeps its Mats between frames.
type perturber struct {
	a, b, light, noise gocv.Mat
}

func newPerturber() *perturber {
	return &perturber{a: gocv.NewMat(), b: gocv.NewMat(), light: gocv.NewMat(), noise: gocv.NewMat()}
}

func (p *perturber) Close() {
	p.a.Close()
	p.b.Close()
	p.light.Close()
	p.noise.Close()
}

// apply makes dst, an 8-bit BGR frame the size of src, from src by q. centre is the point turned
// and scaled about (the card's top middle, so the card stays where a reader would see it).
func (p *perturber) apply(src gocv.Mat, dst *gocv.Mat, q perturbation, centre point, rng *rand.Rand) error {
	return p.applyTo(src, dst, q, centre, centre, image.Pt(src.Cols(), src.Rows()), rng)
}

// applyTo is apply into a frame of the given size, the centre moved to the point to.
func (p *perturber) applyTo(src gocv.Mat, dst *gocv.Mat, q perturbation, centre, to point, size image.Point, rng *rand.Rand) error {
	w, h := size.X, size.Y
	a := q.angle * math.Pi / 180
	c, s := q.scale*math.Cos(a), q.scale*math.Sin(a)
	// x' = R·S·(x − centre) + to + (dx, dy), R turning by −angle in image coordinates as
	// OpenCV's rotation matrix does.
	rot := gocv.NewMatWithSize(2, 3, gocv.MatTypeCV64F)
	defer rot.Close()
	rot.SetDoubleAt(0, 0, c)
	rot.SetDoubleAt(0, 1, s)
	rot.SetDoubleAt(0, 2, to.x+q.dx-c*centre.x-s*centre.y)
	rot.SetDoubleAt(1, 0, -s)
	rot.SetDoubleAt(1, 1, c)
	rot.SetDoubleAt(1, 2, to.y+q.dy+s*centre.x-c*centre.y)
	gocv.WarpAffineWithParams(src, &p.a, rot, image.Pt(w, h), gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	if k := int(math.Round(q.motion)); k >= 2 {
		gocv.Blur(p.a, &p.a, image.Pt(1, k))
	}
	if q.focus > 0.2 {
		gocv.GaussianBlur(p.a, &p.a, image.Pt(0, 0), q.focus, q.focus, gocv.BorderReplicate)
	}
	if q.coarse > 1.05 {
		gocv.Resize(p.a, &p.b, image.Pt(int(float64(w)/q.coarse), int(float64(h)/q.coarse)), 0, 0, gocv.InterpolationArea)
		gocv.Resize(p.b, &p.a, image.Pt(w, h), 0, 0, gocv.InterpolationLinear)
	}
	if q.sharpen > 0.05 {
		gocv.GaussianBlur(p.a, &p.b, image.Pt(0, 0), 1, 1, gocv.BorderReplicate)
		gocv.AddWeighted(p.a, 1+q.sharpen, p.b, -q.sharpen, 0, &p.a)
	}
	// The light: gain, tint and a linear fall-off, as one factor per pixel and channel; then
	// the sensor's noise.
	if p.light.Rows() != h || p.light.Cols() != w {
		p.light.Close()
		p.light = gocv.NewMatWithSize(h, w, gocv.MatTypeCV32FC3)
	}
	lp, err := p.light.DataPtrFloat32()
	if err != nil {
		return err
	}
	gx, gy := math.Cos(q.gradAngle), math.Sin(q.gradAngle)
	cx, cy := float64(w)/2, float64(h)/2
	rmax := math.Hypot(cx, cy)
	for y := range h {
		for x := range w {
			f := q.gain * (1 + q.gradient*((float64(x)-cx)*gx+(float64(y)-cy)*gy)/rmax)
			i := (y*w + x) * 3
			lp[i] = float32(f * q.tint[0])
			lp[i+1] = float32(f * q.tint[1])
			lp[i+2] = float32(f * q.tint[2])
		}
	}
	p.a.ConvertTo(&p.b, gocv.MatTypeCV32FC3)
	gocv.Multiply(p.b, p.light, &p.b)
	if p.noise.Rows() != h || p.noise.Cols() != w {
		p.noise.Close()
		p.noise = gocv.NewMatWithSize(h, w, gocv.MatTypeCV32FC3)
	}
	np, err := p.noise.DataPtrFloat32()
	if err != nil {
		return err
	}
	tab := noiseTable()
	off := rng.IntN(len(tab) - len(np))
	k := float32(q.noise)
	for i := range np {
		np[i] = tab[off+i] * k
	}
	gocv.Add(p.b, p.noise, &p.b)
	p.b.ConvertTo(&p.a, gocv.MatTypeCV8UC3)
	enc, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, p.a, []int{gocv.IMWriteJpegQuality, q.jpeg})
	if err != nil {
		return err
	}
	defer enc.Close()
	m, err := gocv.IMDecode(enc.GetBytes(), gocv.IMReadColor)
	if err != nil {
		m.Close()
		return err
	}
	defer m.Close()
	m.CopyTo(dst)
	return nil
}

// noiseTable is a fixed table of standard normal values; each perturbation's sensor noise is a
// window of it taken at a random place (drawing a normal value per pixel took most of a
// perturbation's time).
var noiseTable = sync.OnceValue(func() []float32 {
	rng := rand.New(rand.NewPCG(0x5ab07, 17))
	t := make([]float32, 1<<21)
	for i := range t {
		t[i] = float32(rng.NormFloat64())
	}
	return t
})
