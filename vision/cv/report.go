package cv

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
)

// Report layout: each class's template drawn reportWidth pixels a card width (the whole card
// as calibration knows it, the rows it does not know grey), 13 tiles across (ace to king) and a
// row per suit, then CUT and BACK.
const (
	reportWidth = 96
	reportGap   = 6
	reportCap   = 16 // the tile's caption
	reportLine  = 18 // a line of the header
)

// WriteProfileReport draws what a profile learned, for the technician: every class's template
// (the whole card as the recognizer compares frames with it: its ink dark, paper light, the rows
// calibration neither saw nor inferred grey; the two corner parts outlined), 13 columns by rank
// and 4 rows by suit, then CUT and BACK, under the profile's facts (ProfileFacts).
func WriteProfileReport(path string, p *calibration.VisionProfile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	classes, templates, err := templatesOf(p)
	if err != nil {
		return err
	}
	rows := 0
	for _, t := range templates {
		if t != nil {
			rows = t.rows
		}
	}
	tw := reportWidth
	th := rows * reportWidth / fineScale
	tileW, tileH := tw+2*reportGap, th+reportGap+reportCap
	header := ProfileFacts(p)
	// Wrap the header to the sheet's width (Hershey plain at scale 1 is about 9 pixels a
	// character).
	sheetW := 13 * tileW
	var lines []string
	for _, l := range header {
		lines = append(lines, wrap(ascii.Replace(l), sheetW/9-2)...)
	}
	top := len(lines)*reportLine + reportGap*2
	out := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(28, 28, 28, 0), top+5*tileH, sheetW, gocv.MatTypeCV8UC3)
	defer out.Close()
	for i, l := range lines {
		gocv.PutText(&out, l, image.Pt(6, reportGap+(i+1)*reportLine-5), gocv.FontHersheyPlain, 1, color.RGBA{230, 230, 230, 0}, 1)
	}
	tile := gocv.NewMat()
	defer tile.Close()
	put := func(c, col, row int) error {
		x0, y0 := col*tileW+reportGap, top+row*tileH+reportGap
		caption := classes[c]
		if t := templates[c]; t != nil {
			if err := templateTile(t, tw, th, &tile); err != nil {
				return fmt.Errorf("vision: report of %s: %w", classes[c], err)
			}
			roi := out.Region(image.Rect(x0, y0, x0+tw, y0+th))
			tile.CopyTo(&roi)
			roi.Close()
			k := float64(tw) / fineScale
			for _, x := range []int{0, cornerRX} {
				r := image.Rect(x0+int(float64(x)*k), y0, x0+int(float64(x+cornerW)*k), y0+int(cornerH*k))
				gocv.Rectangle(&out, r, color.RGBA{80, 160, 255, 0}, 1)
			}
		} else {
			caption += " (not calibrated)"
		}
		gocv.PutText(&out, caption, image.Pt(x0, y0+th+reportCap-3), gocv.FontHersheyPlain, 1, color.RGBA{200, 200, 200, 0}, 1)
		return nil
	}
	for i, c := range card.Deck() {
		if err := put(i, int(c.Rank())-1, int(c.Suit())); err != nil {
			return err
		}
	}
	for i, cl := range []string{classCut, classBack} {
		if err := put(slices.Index(classes, cl), i, 4); err != nil {
			return err
		}
	}
	if !gocv.IMWrite(path, out) {
		return fmt.Errorf("vision: cannot write %s", path)
	}
	return nil
}

// ProfileFacts says what a profile holds, a line each, for the technician: where it was made
// from, the card's width and length, each view's rule (the largest distance and the smallest
// lead a frame is accepted at) with its estimated false-accept rate and the read rate measured
// in calibration, and the notes. `sabot calibrate vision` prints them and the report heads with
// them.
func ProfileFacts(p *calibration.VisionProfile) []string {
	ends := "one pass"
	if p.Passes == 2 {
		ends = "two passes (the second turned end for end)"
	}
	out := []string{
		fmt.Sprintf("deck %q, camera %s, from %s frames, %s, created %s", p.Deck, p.Camera, p.Source, ends, p.Created.Format("2006-01-02 15:04")),
		fmt.Sprintf("card width %.1f px, %s", p.CardWidthPx, lengthText(p.CardLength)),
	}
	for _, v := range []string{"shoe", "table"} {
		if r, ok := p.Rules[v]; ok {
			out = append(out, v+": "+ruleText(r))
		}
	}
	for _, n := range p.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

func lengthText(l float64) string {
	if l == 0 {
		return "card length not measured"
	}
	return fmt.Sprintf("card length %.3f card widths", l)
}

// ruleText words a view's rule: "distance ≤ 1.820, each part ≤ 3.410 and lead ≥ 2.41;
// estimated false accepts 9.5e-05 a frame; read in calibration 97.1% (2160 perturbed frames,
// 0 wrong)".
func ruleText(r calibration.VisionRule) string {
	return fmt.Sprintf("distance ≤ %.3f, each part ≤ %.3f and lead ≥ %.2f; estimated false accepts %s a frame; read in calibration %.1f%% (%d perturbed frames, %d wrong)",
		r.MaxDistance, r.MaxPart, r.MinLead, rate(r.FalseAccept), 100*r.ReadRate, r.Samples, r.Wrong)
}

// rate prints a small rate as a person reads it: "0", "3.2e-05", "0.0012".
func rate(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 1e-3:
		return fmt.Sprintf("%.1e", v)
	}
	return fmt.Sprintf("%.4f", v)
}

// ascii replaces what OpenCV's Hershey fonts cannot draw.
var ascii = strings.NewReplacer("≤", "<=", "≥", ">=", "—", "-", "–", "-", "…", "...", "×", "x", "’", "'", "♠", "s", "♥", "h", "♦", "d", "♣", "c")

// templateTile draws a template into dst (8-bit BGR, tw × th): the card's values about paper
// grey, stretched by their spread, the rows not known mid grey.
func templateTile(t *cardTemplate, tw, th int, dst *gocv.Mat) error {
	ss := 0.0
	for _, x := range t.v {
		ss += float64(x) * float64(x)
	}
	sd := math.Sqrt(ss / float64(len(t.v)))
	if sd == 0 {
		sd = 1
	}
	px := make([]byte, len(t.v))
	for i, x := range t.v {
		if !t.known[i/(fineScale*3)] {
			px[i] = 90
			continue
		}
		px[i] = uint8(max(0, min(255, math.Round(200+40*float64(x)/sd))))
	}
	m, err := gocv.NewMatFromBytes(t.rows, fineScale, gocv.MatTypeCV8UC3, px)
	if err != nil {
		return err
	}
	defer m.Close()
	gocv.Resize(m, dst, image.Pt(tw, th), 0, 0, gocv.InterpolationArea)
	return nil
}

// wrap breaks s into lines of at most n characters, at spaces.
func wrap(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := strings.LastIndex(s[:n], " ")
		if i <= 0 {
			i = n
		}
		out = append(out, s[:i])
		s = "    " + strings.TrimLeft(s[i:], " ")
	}
	return append(out, s)
}

// ReadFile reads an image file with the recognizer of its view: the shoe's when the frame is
// its profile's reader camera's size, the table's otherwise (either may be nil: then the other
// reads every frame), and says which view read it. With explain it also returns the frame's
// Trace. A file that cannot be decoded, or a frame the recognizer cannot take (a reader frame of
// another camera's size), is an error naming the file.
func ReadFile(path string, shoe, table *Recognizer, explain bool) (vision.Result, vision.View, *Trace, error) {
	m, err := ReadImage(path)
	defer m.Close()
	if err != nil {
		return vision.Result{}, 0, nil, err
	}
	r := shoe
	if r == nil || table != nil && (m.Cols() != r.p.Camera.Width || m.Rows() != r.p.Camera.Height) {
		r = table
	}
	if r == nil {
		return vision.Result{}, 0, nil, fmt.Errorf("vision: %s: no recognizer", path)
	}
	var res vision.Result
	var tr *Trace
	if explain {
		res, tr, err = r.Explain(m)
	} else {
		res, err = r.Recognize(m)
	}
	if err != nil {
		return vision.Result{}, r.view, nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, r.view, tr, nil
}
