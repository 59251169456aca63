package cv

import (
	"context"
	"fmt"
	"image"
	"io"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
)

// Location is where a card lies in a reader frame, as the recognizer finds it.
type Location struct {
	// Band is the outline, in frame pixels, of the part of the card the recognizer compares: its
	// corners top-left, top-right, bottom-right, bottom-left.
	Band [4]image.Point
	// Rank and Suit are the index windows' outlines (empty without a profile).
	Rank, Suit [4]image.Point
	// WidthPx is the card's width in pixels; Fit how well its edges were found (0…1).
	WidthPx, Fit float64
}

// Locate finds the card in a reader (shoe) frame. With a profile it also places the index
// windows. No card in view is an error saying what was missing.
func Locate(frame gocv.Mat, p *calibration.VisionProfile) (Location, error) {
	if err := checkFrame(frame); err != nil {
		return Location{}, err
	}
	blurred := gocv.NewMat()
	defer blurred.Close()
	gocv.GaussianBlur(frame, &blurred, image.Pt(5, 5), 1.5, 1.5, gocv.BorderReplicate)
	g, err := registerShoe(blurred, minEdgeStep)
	if err != nil {
		return Location{}, fmt.Errorf("vision: no card in the reader window: %w", err)
	}
	var width float64
	switch {
	case g.bothSides():
		width = g.widthAt(frame.Rows())
	case p != nil:
		width = p.CardWidthPx
	default:
		return Location{}, fmt.Errorf("vision: no card in the reader window: %w", errOneSide)
	}
	ps := g.pose(width, bandW)
	outline := func(r rect) [4]image.Point {
		var q [4]image.Point
		for i, c := range [4][2]int{{r.x0, r.y0}, {r.x1, r.y0}, {r.x1, r.y1}, {r.x0, r.y1}} {
			x, y := ps.apply(float64(c[0]), float64(c[1]))
			q[i] = image.Pt(int(x+0.5), int(y+0.5))
		}
		return q
	}
	loc := Location{Band: outline(rect{0, 0, bandW, bandH}), WidthPx: width, Fit: g.fit}
	if p != nil {
		loc.Rank = outline(rect{p.Rank.X0, p.Rank.Y0, p.Rank.X1, p.Rank.Y1})
		if !p.Suit.Empty() {
			loc.Suit = outline(rect{p.Suit.X0, p.Suit.Y0, p.Suit.X1, p.Suit.Y1})
		}
	}
	return loc, nil
}

// SortedDeck is the order CaptureCalibration expects cards in by default: a new deck as it comes
// sorted, suit by suit in RULES.md §0 order (s, h, d, c), ace to king.
func SortedDeck() []string {
	var out []string
	for s := card.Spades; s <= card.Clubs; s++ {
		for r := card.Ace; r <= card.King; r++ {
			out = append(out, card.New(r, s).String())
		}
	}
	return out
}

// CaptureProgress is told of each card captured (its token and how many of the order are done).
type CaptureProgress func(token string, done, total int)

// CaptureCalibration watches a reader camera while the technician passes cards through it in
// the given order (card codes, "CUT", "BACK"), and keeps one frame per card: of the frames in
// which the card sits well in the window (its top edge in the top fifth, both sides found), the
// sharpest. A card's passage ends when the window has been empty for a few frames. The frames
// are returned for Calibrate; the caller closes them.
func CaptureCalibration(ctx context.Context, src Source, order []string, progress CaptureProgress) ([]CalibrationFrame, error) {
	const emptyToEnd = 3 // empty frames that end a passage
	frame := gocv.NewMat()
	defer frame.Close()
	blurred := gocv.NewMat()
	defer blurred.Close()
	gray := gocv.NewMat()
	defer gray.Close()
	lap := gocv.NewMat()
	defer lap.Close()
	var out []CalibrationFrame
	fail := func(err error) ([]CalibrationFrame, error) {
		for _, f := range out {
			f.Frame.Close()
		}
		return nil, err
	}
	best := gocv.NewMat()
	defer best.Close()
	bestScore, empty, inPassage := -1.0, 0, false
	for len(out) < len(order) {
		info, err := src.Read(ctx, &frame)
		if err == io.EOF {
			if inPassage && bestScore >= 0 {
				// The source ended during the last card: keep it.
				empty = emptyToEnd
			} else {
				return fail(fmt.Errorf("%w: %s ended after %d of %d cards (next: %s)", ErrCalibration, src, len(out), len(order), order[len(out)]))
			}
		} else if err != nil {
			return fail(err)
		} else {
			gocv.GaussianBlur(frame, &blurred, image.Pt(5, 5), 1.5, 1.5, gocv.BorderReplicate)
			g, rerr := registerShoe(blurred, minEdgeStep)
			placed := false
			if rerr == nil && g.bothSides() {
				_, cy := cornerOf(g.left, g.top)
				placed = cy >= 0 && cy < float64(frame.Rows())/5
			}
			switch {
			case placed:
				inPassage, empty = true, 0
				gocv.CvtColor(frame, &gray, gocv.ColorBGRToGray)
				gocv.Laplacian(gray, &lap, gocv.MatTypeCV64F, 3, 1, 0, gocv.BorderDefault)
				mean, dev := gocv.NewMat(), gocv.NewMat()
				gocv.MeanStdDev(lap, &mean, &dev)
				s := dev.GetDoubleAt(0, 0)
				mean.Close()
				dev.Close()
				if s > bestScore {
					bestScore = s
					frame.CopyTo(&best)
				}
			case rerr != nil:
				empty++
			}
			_ = info
		}
		if inPassage && empty >= emptyToEnd && bestScore >= 0 {
			tok := order[len(out)]
			out = append(out, CalibrationFrame{Token: tok, Name: fmt.Sprintf("%s (card %d of the pass)", tok, len(out)+1), Frame: best.Clone()})
			if progress != nil {
				progress(tok, len(out), len(order))
			}
			inPassage, bestScore = false, -1
			if err == io.EOF && len(out) < len(order) {
				return fail(fmt.Errorf("%w: %s ended after %d of %d cards (next: %s)", ErrCalibration, src, len(out), len(order), order[len(out)]))
			}
		}
	}
	return out, nil
}
