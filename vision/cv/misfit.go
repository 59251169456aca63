package cv

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

// The misfit map: a picture of how the classes that fit a frame best were compared, part by
// part (`sabot vision read --explain --map`). In a dispute a technician sees where a frame
// departs from each class's template: a row per class, and for each part the frame as compared,
// the template at its gain and blur, and the misfit, each value's weighted squared difference
// (dark: within the noise calibration measured; red, then yellow: some times beyond it).

// mapScale is how many map pixels a fine (corner) pixel takes; a face pixel takes faceK times
// as many, so that the parts are drawn at one scale.
const mapScale = 2

var (
	mapUnknown = color.RGBA{70, 50, 50, 0}    // BGR order in the Mat: a row not compared
	mapText    = color.RGBA{230, 230, 230, 0} // labels
)

// misfitMap draws the fits given (best first) against the frame's ends.
func (m *model) misfitMap(ends []frameEnd, fits []candFit, titles []string) (image.Image, error) {
	const label, gap = 18, 6
	type block struct {
		img   gocv.Mat
		title string
	}
	var rows [][]block
	width, height := 0, 0
	defer func() {
		for _, r := range rows {
			for _, b := range r {
				b.img.Close()
			}
		}
	}()
	for _, f := range fits {
		var row []block
		w := 0
		for i, s := range f.slots() {
			img, d := m.partMap(ends[s.end].of(f.class), &m.views[s.view].parts[s.part], s.part, f.variant, f.shift[i], f.gain[i])
			name := partNames[s.part]
			if s.end == 1 {
				name = "far " + name
			}
			t := fmt.Sprintf("%s %.2f", name, d)
			if math.IsNaN(d) {
				t = name + " not compared"
			}
			row = append(row, block{img, t})
			w += img.Cols() + gap
			height = max(height, img.Rows())
		}
		rows = append(rows, row)
		width = max(width, w)
	}
	rowH := 2*label + height + gap
	out := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(25, 25, 25, 0), rowH*len(rows), max(width, 360), gocv.MatTypeCV8UC3)
	defer out.Close()
	for k, row := range rows {
		y0 := k * rowH
		gocv.PutText(&out, titles[k], image.Pt(4, y0+label-5), gocv.FontHersheyPlain, 1, mapText, 1)
		x := 0
		for _, b := range row {
			gocv.PutText(&out, b.title, image.Pt(x+2, y0+2*label-5), gocv.FontHersheyPlain, 0.9, mapText, 1)
			roi := out.Region(image.Rect(x, y0+2*label, x+b.img.Cols(), y0+2*label+b.img.Rows()))
			b.img.CopyTo(&roi)
			roi.Close()
			x += b.img.Cols() + gap
		}
	}
	return out.ToImage()
}

// partMap draws one part as compared: three panels (the frame, the template at the gain, the
// misfit), and returns the part's distance (NaN: not compared).
func (m *model) partMap(f *frameEnd, tp *tpart, p partID, va int, shift [2]int, g gains) (gocv.Mat, float64) {
	k := mapScale
	if p == face {
		k *= faceK
	}
	w, h := tp.width, tp.rows
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(float64(mapUnknown.R), float64(mapUnknown.G), float64(mapUnknown.B), 0), h*k, 3*w*k+4, gocv.MatTypeCV8UC3)
	if tp.ignored {
		return img, math.NaN()
	}
	planes, off, stride, lo, hi := f.window(p, shift[0], shift[1])
	var chi float64
	n := 0
	px := func(y, x, panel int, b, gr, r uint8) {
		for dy := range k {
			for dx := range k {
				c := panel*(w*k+2) + x*k + dx
				img.SetUCharAt(y*k+dy, c*3, b)
				img.SetUCharAt(y*k+dy, c*3+1, gr)
				img.SetUCharAt(y*k+dy, c*3+2, r)
			}
		}
	}
	for _, run := range tp.runs {
		for y := max(run[0], lo); y < min(run[1], hi); y++ {
			m.partRow(tp, planes, off+y*stride, y, va, g, px, &chi)
			n += 3 * w
		}
	}
	if n == 0 {
		return img, math.NaN()
	}
	return img, chi / float64(n)
}

// partRow draws row y of a part's three panels (its frame values from planes[c][at:]) and adds
// its weighted squares to chi.
func (m *model) partRow(tp *tpart, planes *[3][]float32, at, y, va int, g gains, px func(y, x, panel int, b, gr, r uint8), chi *float64) {
	grey := func(v float64) uint8 { return uint8(max(0, min(255, 170+v*170))) }
	for x := range tp.width {
		var fx, tx [3]uint8
		var r float64
		for c := range 3 {
			i := y*tp.width + x
			wt := float64(tp.w[c][i])
			t := 0.0
			if wt > 0 {
				t = float64(tp.wt[va][c][i]) / wt
			}
			v := float64(planes[c][at+x])
			r += wt * (v - g[c]*t) * (v - g[c]*t)
			fx[c], tx[c] = grey(v), grey(g[c]*t)
		}
		*chi += r
		px(y, x, 0, fx[0], fx[1], fx[2])
		px(y, x, 1, tx[0], tx[1], tx[2])
		b, gr, rd := heat(r / 3)
		px(y, x, 2, b, gr, rd)
	}
}

// heat colours a value's mean weighted square: black at 0, red at about 4 (twice the noise's
// spread), yellow from about 16.
func heat(v float64) (b, g, r uint8) {
	s := math.Sqrt(max(0, v)) / 4
	r = uint8(255 * min(1, 2*s))
	g = uint8(255 * max(0, min(1, 2*s-1)))
	return 0, g, r
}
