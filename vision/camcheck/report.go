package camcheck

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"path/filepath"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
)

// Status is a measure's verdict.
type Status int

const (
	Good Status = iota
	Doubtful
	Bad
)

// String returns "good", "check" or "bad".
func (s Status) String() string {
	switch s {
	case Good:
		return "good"
	case Doubtful:
		return "check"
	}
	return "bad"
}

// Measure is one number of the report and its verdict.
type Measure struct {
	Name   string
	Value  float64
	Unit   string
	Status Status
	Advice string // what to do when it is not good
}

// Limits: good at or beyond the first value, bad beyond the second.
const (
	focusGood, focusBad       = 400.0, 150.0 // variance of the Laplacian (after a sigma-1 blur)
	contrastGood, contrastBad = 140.0, 80.0  // 99th − 1st percentile
	clipGood, clipBad         = 0.01, 0.05   // share of clipped pixels
	meanLow, meanHigh         = 50.0, 200.0  // mean brightness, good between
	widthGood, widthBad       = 0.05, 0.12   // card width off the profile's, share
)

// Report is the camera check of one frame.
type Report struct {
	Source                string
	Width, Height         int
	Focus, Contrast, Mean float64
	DarkClip, BrightClip  float64
	Histogram             [256]int
	Card                  bool // a card was found in the window
	Outline               cv.Outline
	CardError             string  // why no card was found
	ProfileWidth          float64 // the profile's card width, 0 without one (or for photographs)
	Measures              []Measure
	// frame is the frame checked, PNG-encoded, for WritePNG.
	frame []byte
}

// CheckImage checks a saved frame (a file OpenCV can decode). A profile, if given, checks the
// card's width against the calibration's.
func CheckImage(path string, p *calibration.VisionProfile) (*Report, error) {
	m, err := cv.ReadImage(path)
	defer m.Close()
	if err != nil {
		return nil, fmt.Errorf("camcheck: %w", err)
	}
	return Check(m, path, p)
}

// settleFrames are the frames a camera is given to settle its exposure before the one checked.
const settleFrames = 5

// CheckDevice checks a V4L2 camera (/dev/videoN) on one frame, after letting it settle its
// exposure over a few.
func CheckDevice(ctx context.Context, device string, p *calibration.VisionProfile) (*Report, error) {
	src, err := cv.OpenDevice(device, cv.DeviceOptions{})
	if err != nil {
		return nil, fmt.Errorf("camcheck: %w", err)
	}
	defer src.Close()
	return checkSource(ctx, src, device, p)
}

// checkSource checks the last of settleFrames frames of src.
func checkSource(ctx context.Context, src cv.Source, name string, p *calibration.VisionProfile) (*Report, error) {
	frame := gocv.NewMat()
	defer frame.Close()
	for range settleFrames {
		if _, err := src.Read(ctx, &frame); err != nil {
			return nil, fmt.Errorf("camcheck: %s: %w", name, err)
		}
	}
	return Check(frame, name, p)
}

// Check measures a frame (8-bit BGR) of a reader camera or, with a profile made from
// photographs, a technician's photograph. A profile, if given, checks the card's width against
// the calibration's (a reader camera's frames only: a photograph's card has any size).
func Check(frame gocv.Mat, source string, p *calibration.VisionProfile) (*Report, error) {
	if frame.Empty() || frame.Type() != gocv.MatTypeCV8UC3 {
		return nil, fmt.Errorf("camcheck: %s: not an 8-bit colour frame", source)
	}
	r := &Report{Source: source, Width: frame.Cols(), Height: frame.Rows()}
	// Where to look for the card: the reader window, unless the profile was made from
	// photographs; without a profile, the reader window and then a whole card anywhere.
	views := []vision.View{vision.Shoe, vision.Table}
	if p != nil {
		views = views[:1]
		if p.Source == "photo" {
			views = []vision.View{vision.Table}
		} else {
			r.ProfileWidth = p.CardWidthPx
			if p.Camera.Width != frame.Cols() || p.Camera.Height != frame.Rows() {
				return nil, fmt.Errorf("camcheck: %s is %dx%d, the profile is for %s", source, frame.Cols(), frame.Rows(), p.Camera)
			}
		}
	}
	enc, err := gocv.IMEncode(gocv.PNGFileExt, frame)
	if err != nil {
		return nil, fmt.Errorf("camcheck: %s: %w", source, err)
	}
	r.frame = append([]byte(nil), enc.GetBytes()...)
	enc.Close()
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(frame, &gray, gocv.ColorBGRToGray)
	px, err := gray.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("camcheck: %w", err)
	}
	sum := 0.0
	for _, v := range px {
		r.Histogram[v]++
		sum += float64(v)
	}
	n := len(px)
	r.Mean = sum / float64(n)
	pct := func(q float64) float64 {
		acc := 0
		for v, c := range r.Histogram {
			acc += c
			if float64(acc) >= q*float64(n) {
				return float64(v)
			}
		}
		return 255
	}
	r.Contrast = pct(0.99) - pct(0.01)
	for v := 0; v <= 5; v++ {
		r.DarkClip += float64(r.Histogram[v]) / float64(n)
	}
	for v := 250; v <= 255; v++ {
		r.BrightClip += float64(r.Histogram[v]) / float64(n)
	}
	roi := image.Rect(0, 0, frame.Cols(), frame.Rows())
	for _, v := range views {
		o, err := cv.FindCard(frame, v)
		if err != nil {
			if r.CardError == "" {
				r.CardError = err.Error()
			}
			continue
		}
		r.Card, r.Outline, r.CardError = true, o, ""
		// Focus is judged on the index corner, inside the card's edges: the card's top-left
		// quarter, from 6% to 50% of its width across and down.
		p0, p1 := o.Corners[0], o.Corners[1]
		d := p1.Sub(p0)
		at := func(u, v float64) image.Point {
			return image.Pt(p0.X+int(u*float64(d.X)-v*float64(d.Y)), p0.Y+int(u*float64(d.Y)+v*float64(d.X)))
		}
		b := image.Rectangle{Min: at(0.06, 0.06), Max: at(0.06, 0.06).Add(image.Pt(1, 1))}
		for _, q := range []image.Point{at(0.5, 0.06), at(0.06, 0.5), at(0.5, 0.5)} {
			b = b.Union(image.Rectangle{Min: q, Max: q.Add(image.Pt(1, 1))})
		}
		if b = b.Intersect(roi); b.Dx() > 8 && b.Dy() > 8 {
			roi = b
		}
		break
	}
	r.Focus = focus(gray, roi)
	r.Measures = r.verdicts()
	return r, nil
}

// focus is the variance of the Laplacian of gray over roi, after a slight blur (sigma 1) so that
// sensor noise does not pass for sharpness.
func focus(gray gocv.Mat, roi image.Rectangle) float64 {
	sub := gray.Region(roi)
	defer sub.Close()
	smooth := gocv.NewMat()
	defer smooth.Close()
	gocv.GaussianBlur(sub, &smooth, image.Pt(0, 0), 1, 1, gocv.BorderReplicate)
	lap := gocv.NewMat()
	defer lap.Close()
	gocv.Laplacian(smooth, &lap, gocv.MatTypeCV64F, 3, 1, 0, gocv.BorderDefault)
	mean, dev := gocv.NewMat(), gocv.NewMat()
	defer mean.Close()
	defer dev.Close()
	gocv.MeanStdDev(lap, &mean, &dev)
	d := dev.GetDoubleAt(0, 0)
	return d * d
}

func (r *Report) verdicts() []Measure {
	grade := func(v, good, bad float64, higherBetter bool) Status {
		if !higherBetter {
			v, good, bad = -v, -good, -bad
		}
		switch {
		case v >= good:
			return Good
		case v >= bad:
			return Doubtful
		}
		return Bad
	}
	ms := []Measure{
		{Name: "focus", Value: r.Focus, Status: grade(r.Focus, focusGood, focusBad, true),
			Advice: "refocus the camera, or clean the window (smudges blur too)"},
		{Name: "contrast", Value: r.Contrast, Unit: "levels", Status: grade(r.Contrast, contrastGood, contrastBad, true),
			Advice: "clean the window; check the lamp"},
		{Name: "mean brightness", Value: r.Mean, Unit: "of 255", Advice: "adjust exposure or the lamp"},
		{Name: "clipped black", Value: 100 * r.DarkClip, Unit: "%", Status: grade(r.DarkClip, clipGood, clipBad, false),
			Advice: "raise exposure or gain"},
		{Name: "clipped white", Value: 100 * r.BrightClip, Unit: "%", Status: grade(r.BrightClip, clipGood, clipBad, false),
			Advice: "lower exposure; check for glare on the window"},
	}
	switch {
	case r.Mean < meanLow/2 || r.Mean > (255+meanHigh)/2:
		ms[2].Status = Bad
	case r.Mean < meanLow || r.Mean > meanHigh:
		ms[2].Status = Doubtful
	}
	if r.Card {
		m := Measure{Name: "card width", Value: r.Outline.WidthPx, Unit: "px", Advice: "the camera moved or the profile is for another shoe: recalibrate"}
		if r.ProfileWidth > 0 {
			off := math.Abs(r.Outline.WidthPx-r.ProfileWidth) / r.ProfileWidth
			m.Status = grade(off, widthGood, widthBad, false)
		}
		ms = append(ms, m)
	} else {
		ms = append(ms, Measure{Name: "card in window", Status: Doubtful, Advice: "put a card in the reader window to check the region of interest"})
	}
	return ms
}

// Worst returns the worst verdict of the report.
func (r *Report) Worst() Status {
	w := Good
	for _, m := range r.Measures {
		w = max(w, m.Status)
	}
	return w
}

// WriteText prints the report for a terminal, one measure a line.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "camera check: %s (%dx%d)\n", r.Source, r.Width, r.Height)
	for _, m := range r.Measures {
		line := fmt.Sprintf("  %-16s %8.1f %-7s %s", m.Name, m.Value, m.Unit, m.Status)
		if m.Status != Good {
			line += ": " + m.Advice
		}
		fmt.Fprintln(w, line)
	}
	if r.Card {
		if r.ProfileWidth > 0 {
			fmt.Fprintf(w, "  profile's card width %.1f px\n", r.ProfileWidth)
		}
		fmt.Fprintf(w, "  card outline     %v\n  index corner     %v\n  found by         %s\n", r.Outline.Corners, r.Outline.Index, r.Outline.How)
	} else {
		fmt.Fprintf(w, "  no card: %s\n", r.CardError)
	}
	_, err := fmt.Fprintf(w, "verdict: %s\n", r.Worst())
	return err
}

var statusColour = map[Status]color.RGBA{Good: {60, 200, 80, 0}, Doubtful: {240, 180, 0, 0}, Bad: {230, 50, 50, 0}}

// WritePNG draws the report: the frame (doubled, or halved when larger than 640 pixels across)
// with the card's outline and its index corner, the brightness histogram with the clipping
// limits, and the measures coloured by verdict.
func (r *Report) WritePNG(path string) error {
	frame, err := gocv.IMDecode(r.frame, gocv.IMReadColor)
	defer frame.Close()
	if err != nil || frame.Empty() {
		return fmt.Errorf("camcheck: the report holds no frame")
	}
	scale := 2.0
	if r.Width > 640 {
		scale = 0.5
	}
	fw, fh := int(float64(r.Width)*scale), int(float64(r.Height)*scale)
	panelW := 360
	h := max(fh, 420)
	out := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(28, 28, 28, 0), h, fw+panelW, gocv.MatTypeCV8UC3)
	defer out.Close()
	big := gocv.NewMat()
	defer big.Close()
	gocv.Resize(frame, &big, image.Pt(fw, fh), 0, 0, gocv.InterpolationNearestNeighbor)
	roi := out.Region(image.Rect(0, 0, fw, fh))
	big.CopyTo(&roi)
	roi.Close()
	at := func(p image.Point) image.Point {
		return image.Pt(int(float64(p.X)*scale), int(float64(p.Y)*scale))
	}
	poly := func(q [4]image.Point, c color.RGBA) {
		for i := range q {
			gocv.Line(&out, at(q[i]), at(q[(i+1)%4]), c, 2)
		}
	}
	if r.Card {
		poly(r.Outline.Corners, color.RGBA{0, 200, 255, 0})
		poly(r.Outline.Index, color.RGBA{60, 255, 60, 0})
	}
	// Histogram.
	x0, y0, hw, hh := fw+20, 20, 256, 120
	gocv.Rectangle(&out, image.Rect(x0-1, y0-1, x0+hw+1, y0+hh+1), color.RGBA{90, 90, 90, 0}, 1)
	mx := 1
	for _, c := range r.Histogram {
		mx = max(mx, c)
	}
	for v, c := range r.Histogram {
		bh := int(math.Round(float64(hh) * math.Sqrt(float64(c)/float64(mx))))
		col := color.RGBA{200, 200, 200, 0}
		if v <= 5 || v >= 250 {
			col = color.RGBA{230, 50, 50, 0}
		}
		gocv.Line(&out, image.Pt(x0+v, y0+hh), image.Pt(x0+v, y0+hh-bh), col, 1)
	}
	gocv.PutText(&out, "brightness histogram (sqrt scale)", image.Pt(x0, y0+hh+16), gocv.FontHersheyPlain, 1, color.RGBA{200, 200, 200, 0}, 1)
	y := y0 + hh + 44
	gocv.PutText(&out, filepath.Base(r.Source), image.Pt(x0, y), gocv.FontHersheyPlain, 1, color.RGBA{230, 230, 230, 0}, 1)
	y += 24
	for _, m := range r.Measures {
		txt := fmt.Sprintf("%-15s %7.1f %s", m.Name, m.Value, m.Unit)
		if m.Name == "card in window" {
			txt = "no card in the window"
		}
		gocv.PutText(&out, txt, image.Pt(x0, y), gocv.FontHersheyPlain, 1.1, statusColour[m.Status], 1)
		y += 22
	}
	y += 8
	gocv.PutText(&out, "verdict: "+r.Worst().String(), image.Pt(x0, y), gocv.FontHersheyDuplex, 0.8, statusColour[r.Worst()], 1)
	if !gocv.IMWrite(path, out) {
		return fmt.Errorf("camcheck: cannot write %s", path)
	}
	return nil
}
