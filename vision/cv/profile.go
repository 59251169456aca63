package cv

import (
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
)

// geometry is the description geometry of this build; profiles of another are refused.
var geometry = calibration.Geometry{FineScale: fineScale, CornerW: cornerW, CornerH: cornerH, FaceScale: faceScale}

// allClasses are the classes a profile may know, in the recognizer's order: the 52 cards, then
// the back and the cut card.
func allClasses() []string {
	var out []string
	for _, c := range card.Deck() {
		out = append(out, c.String())
	}
	return append(out, classBack, classCut)
}

// templatesOf decodes a validated profile's templates, in allClasses order (nil: not known).
func templatesOf(p *calibration.VisionProfile) ([]string, []*cardTemplate, error) {
	if p.Geometry != geometry {
		return nil, nil, fmt.Errorf("%w: made with description geometry %+v, this build uses %+v: recalibrate", calibration.ErrProfile, p.Geometry, geometry)
	}
	classes := allClasses()
	out := make([]*cardTemplate, len(classes))
	for _, pt := range p.Templates {
		t := newTemplate(pt.Rows)
		t.widthPx = pt.WidthPx
		for i, b := range pt.Card {
			t.v[i] = float32(float64(int8(b)) * pt.Scale)
		}
		for _, k := range pt.Known {
			for y := k[0]; y <= k[1]; y++ {
				t.known[y] = true
			}
		}
		for i, c := range classes {
			if c == pt.Class {
				out[i] = t
			}
		}
	}
	return classes, out, nil
}

// noiseOf reads a rule's noise models.
func noiseOf(r calibration.VisionRule) [nParts]noiseModel {
	var out [nParts]noiseModel
	for i, n := range r.Noise {
		if i < int(nParts) {
			out[i] = noiseModel{sigma0: n.Sigma0, kappa: n.Kappa}
		}
	}
	return out
}

// noiseRecord writes noise models in profile form.
func noiseRecord(nm [nParts]noiseModel) []calibration.NoiseModel {
	out := make([]calibration.NoiseModel, nParts)
	for p := range nParts {
		out[p] = calibration.NoiseModel{Part: partNames[p], Sigma0: round6(nm[p].sigma0), Kappa: round6(nm[p].kappa)}
	}
	return out
}

// profileTemplates writes templates in profile form (each value a signed byte times the
// template's scale), with the calibration bands of each class.
func profileTemplates(classes []string, templates []*cardTemplate, bands map[int][]gocv.Mat) ([]calibration.VisionTemplate, error) {
	var out []calibration.VisionTemplate
	for c, t := range templates {
		if t == nil {
			continue
		}
		peak := 0.0
		for _, v := range t.v {
			peak = max(peak, math.Abs(float64(v)))
		}
		scale := max(peak, 1e-3) / 127
		pt := calibration.VisionTemplate{Class: classes[c], Rows: t.rows, Scale: scale, Card: make([]byte, len(t.v)), WidthPx: math.Round(t.widthPx*10) / 10}
		for i, v := range t.v {
			pt.Card[i] = byte(int8(max(-127, min(127, math.Round(float64(v)/scale)))))
		}
		for y := 0; y < t.rows; y++ {
			if !t.known[y] {
				continue
			}
			if n := len(pt.Known); n > 0 && pt.Known[n-1][1] == y-1 {
				pt.Known[n-1][1] = y
			} else {
				pt.Known = append(pt.Known, [2]int{y, y})
			}
		}
		for _, b := range bands[c] {
			if b.Empty() {
				continue
			}
			small := gocv.NewMat()
			gocv.Resize(b, &small, image.Pt(b.Cols()/2, b.Rows()/2), 0, 0, gocv.InterpolationArea)
			enc, err := gocv.IMEncode(gocv.PNGFileExt, small)
			small.Close()
			if err != nil {
				return nil, err
			}
			pt.Bands = append(pt.Bands, append([]byte(nil), enc.GetBytes()...))
			enc.Close()
		}
		out = append(out, pt)
	}
	return out, nil
}
