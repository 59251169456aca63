package cv

import (
	"fmt"
	"image"
	"image/color"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
)

// WriteProfileReport draws what a profile learned, for the technician: every card's template
// band (13 columns by rank, 4 rows by suit, then CUT and BACK) with the rank window in green and
// the suit window in magenta, and the profile's figures.
func WriteProfileReport(path string, p *calibration.VisionProfile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	const cell, capH = bandW + 4, 44
	cols, rows := 13, 5
	out := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(28, 28, 28, 0), rows*cell+capH, cols*cell, gocv.MatTypeCV8UC3)
	defer out.Close()
	put := func(t calibration.Template, col, row int) error {
		m, err := gocv.IMDecode(t.PNG, gocv.IMReadColor)
		if err != nil || m.Empty() {
			m.Close()
			return fmt.Errorf("vision: profile template does not decode")
		}
		defer m.Close()
		x, y := col*cell+2, capH+row*cell+2
		roi := out.Region(image.Rect(x, y, x+bandW, y+bandH))
		m.CopyTo(&roi)
		roi.Close()
		r := func(w calibration.Rect, c color.RGBA) {
			if !w.Empty() {
				gocv.Rectangle(&out, image.Rect(x+w.X0, y+w.Y0, x+w.X1, y+w.Y1), c, 1)
			}
		}
		r(p.Rank, color.RGBA{60, 255, 60, 0})
		r(p.Suit, color.RGBA{255, 0, 255, 0})
		if t.ValidRows < bandH {
			gocv.Line(&out, image.Pt(x, y+t.ValidRows), image.Pt(x+bandW, y+t.ValidRows), color.RGBA{255, 60, 60, 0}, 1)
		}
		return nil
	}
	for _, c := range card.Deck() {
		if err := put(p.Cards[c.String()], int(c.Rank())-1, int(c.Suit())); err != nil {
			return err
		}
	}
	if p.Cut != nil {
		if err := put(*p.Cut, 0, 4); err != nil {
			return err
		}
	}
	if p.Back != nil {
		if err := put(*p.Back, 1, 4); err != nil {
			return err
		}
	}
	line1 := fmt.Sprintf("deck %q  camera %s  card width %.1f px  created %s", p.Deck, p.Camera, p.CardWidthPx, p.Created.Format("2006-01-02 15:04"))
	line2 := fmt.Sprintf("rank window %v (green)  suit window %v (magenta)  index separation %.0f  card length %.0f", p.Rank, p.Suit, p.IndexSeparation, p.CardLength)
	gocv.PutText(&out, line1, image.Pt(6, 16), gocv.FontHersheyPlain, 1.1, color.RGBA{230, 230, 230, 0}, 1)
	gocv.PutText(&out, line2, image.Pt(6, 36), gocv.FontHersheyPlain, 1.1, color.RGBA{230, 230, 230, 0}, 1)
	if !gocv.IMWrite(path, out) {
		return fmt.Errorf("vision: cannot write %s", path)
	}
	return nil
}
