package cv

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
)

// CalibrationFrame is one frame of a calibration pass: the sorted deck through the reader, one
// frame per card, plus optionally the cut card and a card back.
type CalibrationFrame struct {
	Token string   // "As" … "Kc", "CUT" or "BACK"
	Name  string   // where it came from, for error messages (a file name)
	Frame gocv.Mat // 8-bit BGR, owned by the caller
}

// CalibrateOptions names what a profile is for.
type CalibrateOptions struct {
	Deck   string // the deck design's name
	Camera string // the camera's name; the frame size is taken from the frames
	Now    func() time.Time
}

// ErrCalibration is wrapped by every Calibrate error about the frames given.
var ErrCalibration = errors.New("vision: calibration")

// Calibrate learns a profile from one frame per card (52, each named by its card) and optional
// CUT and BACK frames, all from the same reader camera. Every problem names the frame.
func Calibrate(frames []CalibrationFrame, opt CalibrateOptions) (*calibration.VisionProfile, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	p := &calibration.VisionProfile{
		Deck:       opt.Deck,
		Created:    opt.Now().UTC().Truncate(time.Second),
		BandWidth:  bandW,
		BandHeight: bandH,
		Cards:      map[string]calibration.Template{},
	}
	fine := make([]feat, 52)
	coarse := make([]feat, 52)
	poses := make([]pose, 52)
	sources := make([]gocv.Mat, 52)
	var widths []float64
	seen := map[string]string{}
	blurred := gocv.NewMat()
	defer blurred.Close()
	band := gocv.NewMat()
	defer band.Close()
	for _, f := range frames {
		if prev, dup := seen[f.Token]; dup {
			return nil, fmt.Errorf("%w: %s and %s are both %s", ErrCalibration, prev, f.Name, f.Token)
		}
		seen[f.Token] = f.Name
		isCard := f.Token != "CUT" && f.Token != "BACK"
		if isCard {
			if c, err := card.Parse(f.Token); err != nil || c.String() != f.Token {
				return nil, fmt.Errorf("%w: %s: %q is not a card, CUT or BACK", ErrCalibration, f.Name, f.Token)
			}
		}
		if err := checkFrame(f.Frame); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrCalibration, f.Name, err)
		}
		if p.Camera.Width == 0 {
			p.Camera = calibration.Camera{Name: opt.Camera, Width: f.Frame.Cols(), Height: f.Frame.Rows()}
		} else if f.Frame.Cols() != p.Camera.Width || f.Frame.Rows() != p.Camera.Height {
			return nil, fmt.Errorf("%w: %s is %dx%d, the other frames %dx%d", ErrCalibration, f.Name, f.Frame.Cols(), f.Frame.Rows(), p.Camera.Width, p.Camera.Height)
		}
		gocv.GaussianBlur(f.Frame, &blurred, image.Pt(5, 5), 1.5, 1.5, gocv.BorderReplicate)
		g, err := registerShoe(blurred, minEdgeStep)
		if err == nil && !g.bothSides() && isCard {
			err = errors.New("a side of the card is outside the frame")
		}
		if err != nil {
			if isCard {
				return nil, fmt.Errorf("%w: %s: cannot find the card: %w", ErrCalibration, f.Name, err)
			}
			// A dark cut card may show no edges; it is then recognized without a template.
			continue
		}
		if !g.bothSides() {
			continue
		}
		width := g.widthAt(f.Frame.Rows())
		ps := g.pose(width, bandW)
		top, valid := warpBand(f.Frame, &ps, bandW, bandH, &band)
		if top > maxTopRows {
			return nil, fmt.Errorf("%w: %s: the card's top edge is outside the frame", ErrCalibration, f.Name)
		}
		buf, err := gocv.IMEncode(gocv.PNGFileExt, band)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: encoding: %w", ErrCalibration, f.Name, err)
		}
		t := calibration.Template{PNG: append([]byte(nil), buf.GetBytes()...), TopRows: top, ValidRows: valid}
		buf.Close()
		switch f.Token {
		case "CUT":
			p.Cut = &t
			continue
		case "BACK":
			p.Back = &t
			continue
		}
		widths = append(widths, width)
		p.Cards[f.Token] = t
		tm := makeTmpl(f.Token, &band, top, valid, true)
		i := card.MustParse(f.Token).Index()
		fine[i], coarse[i] = tm.fine, tm.coarse
		poses[i], sources[i] = ps, f.Frame
	}
	var missing []string
	for _, c := range card.Deck() {
		if _, ok := p.Cards[c.String()]; !ok {
			missing = append(missing, c.String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: missing calibration frame(s) for %v", ErrCalibration, missing)
	}
	sort.Float64s(widths)
	p.CardWidthPx = widths[len(widths)/2]
	rw, sw, sep, err := findWindows(fine)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCalibration, err)
	}
	p.Rank = calibration.Rect{X0: rw.x0, Y0: rw.y0, X1: rw.x1, Y1: rw.y1}
	p.Suit = calibration.Rect{X0: sw.x0, Y0: sw.y0, X1: sw.x1, Y1: sw.y1}
	p.IndexSeparation = math.Round(sep*10) / 10
	// The index area, at twice the band's resolution, for every card.
	area := indexArea(rw, sw)
	p.IndexArea = calibration.Rect{X0: area.x0, Y0: area.y0, X1: area.x1, Y1: area.y1}

	p.IndexScale = indexScale
	patch := gocv.NewMat()
	defer patch.Close()
	for i, c := range card.Deck() {
		warpIndex(sources[i], &poses[i], area, &patch)
		buf, err := gocv.IMEncode(gocv.PNGFileExt, patch)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: encoding: %w", ErrCalibration, c, err)
		}
		t := p.Cards[c.String()]
		t.Index = append([]byte(nil), buf.GetBytes()...)
		buf.Close()
		p.Cards[c.String()] = t
	}
	if l, _ := findLength(coarse); l > 0 {
		p.CardLength = float64(2 * l)
	}
	if err := p.Seal(); err != nil {
		return nil, err
	}
	return p, nil
}

// maxTopRows is the most band rows a calibration frame may miss at the card's top (a corner of a
// turned card just above the frame). They are its blank top margin, which the warp fills from the
// frame's top row, near enough to the card's own for the index patch.
const maxTopRows = bandH / 10

// CalibrationFiles lists a calibration directory: the 52 card frames named by their code
// (As.jpg … Kc.jpg; .png, .jpeg, .bmp also) and optionally CUT and BACK. A missing card is an
// error naming it.
func CalibrationFiles(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCalibration, err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		ext := filepath.Ext(name)
		switch ext {
		case ".jpg", ".jpeg", ".png", ".bmp", ".JPG", ".JPEG", ".PNG":
		default:
			continue
		}
		tok := name[:len(name)-len(ext)]
		if tok != "CUT" && tok != "BACK" {
			c, err := card.Parse(tok)
			if err != nil {
				continue // other images (a README picture) are not calibration frames
			}
			tok = c.String()
		}
		if prev, dup := files[tok]; dup {
			return nil, fmt.Errorf("%w: %s and %s are both %s", ErrCalibration, prev, name, tok)
		}
		files[tok] = filepath.Join(dir, name)
	}
	var missing []string
	for _, c := range card.Deck() {
		if _, ok := files[c.String()]; !ok {
			missing = append(missing, c.String()+".jpg")
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s: missing %v", ErrCalibration, dir, missing)
	}
	return files, nil
}

// CalibrateDir calibrates from a directory laid out as CalibrationFiles says.
func CalibrateDir(dir string, opt CalibrateOptions) (*calibration.VisionProfile, error) {
	files, err := CalibrationFiles(dir)
	if err != nil {
		return nil, err
	}
	var frames []CalibrationFrame
	defer func() {
		for _, f := range frames {
			f.Frame.Close()
		}
	}()
	toks := make([]string, 0, len(files))
	for t := range files {
		toks = append(toks, t)
	}
	sort.Strings(toks)
	for _, t := range toks {
		m, err := ReadImage(files[t])
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("%w: %w", ErrCalibration, err)
		}
		frames = append(frames, CalibrationFrame{Token: t, Name: files[t], Frame: m})
	}
	return Calibrate(frames, opt)
}
