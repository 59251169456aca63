package cv

import (
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

// A located card is described in card coordinates, whatever its size, position or rotation in
// the frame: from the end of the card taken as its top, resampled at fineScale pixels per card
// width, each channel divided by the card's white (the light and the camera's gain) and its
// local mean taken away (uneven light and the card's own colour cancel; the ink stays). The
// scoring model (model.go) reads its parts from it.
const (
	fineScale         = 128 // pixels per card width
	maxLength float64 = 1.9 // card widths: the longest card (and band) considered
	// fineMargin pixels of the band lie left of and above the card, so that a part can be
	// searched a few pixels either way of where the outline puts it.
	fineMargin = 4
	fineW      = fineScale + 2*fineMargin
)

// desc is what a frame (or a calibration frame) shows of one end of a card.
type desc struct {
	// fine is a 3-channel (BGR) plane fineW wide, its pixel (fineMargin, fineMargin) at the
	// card's top-left corner; rows run down the card. The rows [top, fineRows) were inside the
	// frame (a card turned a little may have a top corner out of it; the shoe's window shows
	// only the top of the card).
	fine          []float32
	top, fineRows int
}

// rows is how many rows of the card, from its top, the description holds.
func (d *desc) rows() int { return d.fineRows - fineMargin }

// describer turns a frame region into descs; it keeps its Mats between frames.
type describer struct {
	warp, hp, box gocv.Mat
	buf           []float32
}

func newDescriber() *describer {
	return &describer{warp: gocv.NewMat(), hp: gocv.NewMat(), box: gocv.NewMat()}
}

func (d *describer) Close() {
	d.warp.Close()
	d.hp.Close()
	d.box.Close()
}

// describe resamples the card at pose p from the float frame f into dst: length card widths of
// it from its top (at most maxLength, and only what the frame shows).
func (d *describer) describe(f gocv.Mat, p *pose, length float64, dst *desc) error {
	w, h := float64(f.Cols()), float64(f.Rows())
	rows := int(math.Ceil(min(length, maxLength) * fineScale))
	in := func(x, y float64) bool {
		return p.at((x-fineMargin)/fineScale, (y-fineMargin)/fineScale).in(w, h)
	}
	// The rows in the frame: down from the top while the row's two ends are in.
	top, valid := -1, 0
	for j := 0; j < rows+fineMargin; j++ {
		yc := float64(j) + 0.5
		ok := in(fineMargin+0.5, yc) && in(fineMargin+fineScale-0.5, yc)
		if ok && top < 0 {
			top = j
		}
		if !ok && top >= 0 {
			break
		}
		if ok {
			valid = j + 1
		}
	}
	if top < 0 || valid-fineMargin < fineScale/4 {
		return errOutline("the card's top is not in the frame")
	}
	// Frame pixel centres are integers; band pixel (i, j) is card point
	// ((i+0.5-margin)/s, (j+0.5-margin)/s).
	s := 1.0 / fineScale
	o := (0.5 - fineMargin) * s
	m := matMul(p.h, [3][3]float64{{s, 0, o}, {0, s, o}, {0, 0, 1}})
	hm, err := gocv.NewMatFromBytes(3, 3, gocv.MatTypeCV64F, f64bytes(m))
	if err != nil {
		return err
	}
	defer hm.Close()
	gocv.WarpPerspectiveWithParams(f, &d.warp, hm, image.Pt(fineW, valid), gocv.InterpolationLinear|gocv.WarpInverseMap, gocv.BorderReplicate, color.RGBA{})
	gocv.GaussianBlur(d.warp, &d.warp, image.Pt(0, 0), preBlur, preBlur, gocv.BorderReplicate)
	px, err := d.warp.DataPtrFloat32()
	if err != nil {
		return err
	}
	// Each channel's white: a high percentile of the card's pixels, so that ink, shadow and a
	// coloured face do not pull it down. Dividing by it takes away the light and the camera's
	// colour balance.
	var white [3]float32
	for c := range 3 {
		v := d.buf[:0]
		for y := max(top, fineMargin); y < valid; y += 2 {
			for x := fineMargin; x < fineMargin+fineScale; x += 2 {
				v = append(v, px[(y*fineW+x)*3+c])
			}
		}
		d.buf = v
		white[c] = max(minWhite, quantile32(v, 0.95))
	}
	// The local mean: three box blurs (a Gaussian of hpSigma, at a fifth of the cost of a
	// kernel that wide) of the card alone: the band's margins (the felt, or a light table,
	// beside and above the card) replaced by the card's own pixels mirrored at its edges, so
	// that what lies round the card does not leak into its edge pixels' mean; the band's own
	// edges mirrored too (OpenCV's default border), so that a band cut by the frame is not
	// pulled towards its edge row repeated.
	d.warp.CopyTo(&d.box)
	bx, err := d.box.DataPtrFloat32()
	if err != nil {
		return err
	}
	mirrorMargins(bx, valid, max(top, fineMargin))
	k := image.Pt(boxFor(hpSigma*fineScale), boxFor(hpSigma*fineScale))
	gocv.Blur(d.box, &d.hp, k)
	gocv.Blur(d.hp, &d.box, k)
	gocv.Blur(d.box, &d.hp, k)
	gocv.Subtract(d.warp, d.hp, &d.hp)
	hp, err := d.hp.DataPtrFloat32()
	if err != nil {
		return err
	}
	dst.fineRows = valid
	dst.fine = resize32(dst.fine, fineW*valid*3)
	for i, v := range hp {
		dst.fine[i] = v / white[i%3]
	}
	dst.top = top
	return nil
}

// mirrorMargins replaces the band's margins (px: fineW × rows × 3) by the card's pixels mirrored
// at its sides and at its top row cardTop.
func mirrorMargins(px []float32, rows, cardTop int) {
	for y := range rows {
		r := px[y*fineW*3 : (y+1)*fineW*3]
		for x := range fineMargin {
			copy(r[x*3:x*3+3], r[(2*fineMargin-1-x)*3:])
			xr := fineMargin + fineScale + x
			copy(r[xr*3:xr*3+3], r[(2*(fineMargin+fineScale)-1-xr)*3:])
		}
	}
	for y := range cardTop {
		if m := 2*cardTop - 1 - y; m < rows {
			copy(px[y*fineW*3:(y+1)*fineW*3], px[m*fineW*3:])
		}
	}
}

// preBlur is the blur (Gaussian sigma, fine pixels) every description is taken at: what a
// camera's sharpening, its sensor's resolution, JPEG's colour planes and the resampling itself
// leave at an edge differs from camera to camera, and is not what tells one card from another.
const preBlur = 1.8

// minWhite is the least white a card is divided by (8-bit levels): a black card (a cut card, a
// back) has no white of its own, and dividing by its dark would make its noise ink.
const minWhite = 64

// hpSigma is the scale of the light taken away, in card widths: larger than a pip's stroke,
// smaller than the card.
const hpSigma = 0.06

// resize32 returns b with length n, zeroed.
func resize32(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	b = b[:n]
	clear(b)
	return b
}

func matMul(a, b [3][3]float64) [3][3]float64 {
	var c [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

func f64bytes(m [3][3]float64) []byte {
	b := make([]byte, 0, 72)
	for i := range 3 {
		for j := range 3 {
			u := math.Float64bits(m[i][j])
			for k := range 8 {
				b = append(b, byte(u>>(8*k)))
			}
		}
	}
	return b
}

// errOutline is an error about the outline found.
type errOutline string

func (e errOutline) Error() string { return string(e) }

// boxFor is the box width three passes of which blur as a Gaussian of sigma does (odd).
func boxFor(sigma float64) int {
	w := int(math.Sqrt(4*sigma*sigma+1) + 0.5)
	if w%2 == 0 {
		w++
	}
	return max(3, w)
}

// quantile32 returns the q-quantile of v, reordering v (selection, not a sort).
func quantile32(v []float32, q float64) float32 {
	k := min(len(v)-1, int(q*float64(len(v))))
	lo, hi := 0, len(v)-1
	for lo < hi {
		p := v[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
