package cv

import (
	"fmt"
	"image"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
)

// geometry is the description geometry of this build; profiles of another are refused.
var geometry = calibration.Geometry{FineScale: fineScale, FaceScale: faceScale, IndexW: idxW, IndexH: idxH}

// modelOf rebuilds the scoring model from a validated profile.
func modelOf(p *calibration.VisionProfile) (*model, error) {
	if p.Geometry != geometry {
		return nil, fmt.Errorf("%w: made with description geometry %+v, this build uses %+v: recalibrate", calibration.ErrProfile, p.Geometry, geometry)
	}
	m := &model{faceRows: p.FaceRows, inkIdx: p.InkIndex, inkFace: p.InkFace, length: p.CardLength}
	index := map[string]int{}
	for _, c := range card.Deck() {
		index[c.String()] = len(m.classes)
		m.classes = append(m.classes, c.String())
	}
	for _, v := range p.Views {
		if _, ok := index[v.Class]; !ok {
			index[v.Class] = len(m.classes)
			m.classes = append(m.classes, v.Class)
		}
	}
	for _, v := range p.Views {
		vw := view{class: index[v.Class], end: v.End, plain: v.Plain, hasIdx: len(v.Index) > 0 || v.Plain}
		idx := make([]float32, idxW*idxH*3)
		if len(v.Index) > 0 {
			idx = calibration.Floats(v.Index)
		}
		m.views = append(m.views, newView(vw, idx, calibration.Floats(v.Face), v.FaceRows, p.InkIndex, p.InkFace))
	}
	if p.Source == "shoe" && p.Passes == 1 {
		m.addTurned()
	}
	m.link()
	m.learnParts()
	return m, nil
}

// profileViews writes a model's views into profile form, with each view's calibration band.
func profileViews(m *model, bands map[int]gocv.Mat) ([]calibration.VisionView, error) {
	var out []calibration.VisionView
	for i, v := range m.views {
		if v.made {
			continue // made again from the profile's card length when it is loaded
		}
		pv := calibration.VisionView{Class: m.classes[v.class], End: v.end, Plain: v.plain, FaceRows: v.faceRows}
		if v.hasIdx && !v.plain {
			pv.Index = calibration.FloatBytes(rowMajor(&v.idx[0], idxW, idxCW, idxCH))
		}
		pv.Face = calibration.FloatBytes(rowMajor(&v.face, faceScale, faceCell, faceCell))
		if b, ok := bands[i]; ok && !b.Empty() {
			small := gocv.NewMat()
			gocv.Resize(b, &small, image.Pt(b.Cols()/2, b.Rows()/2), 0, 0, gocv.InterpolationArea)
			enc, err := gocv.IMEncode(gocv.PNGFileExt, small)
			small.Close()
			if err != nil {
				return nil, err
			}
			pv.Band = append([]byte(nil), enc.GetBytes()...)
			enc.Close()
		}
		out = append(out, pv)
	}
	return out, nil
}

// rowMajor lays a block's cells out row by row again (w pixels wide, in cells of cw × ch).
func rowMajor(c *cells, w, cw, ch int) []float32 {
	out := make([]float32, len(c.v))
	rw := w * 3
	for i := range c.n {
		cx, cy := i%c.cols, i/c.cols
		for y := range ch {
			copy(out[(cy*ch+y)*rw+cx*cw*3:][:cw*3], c.v[i*c.per+y*cw*3:][:cw*3])
		}
	}
	return out
}
