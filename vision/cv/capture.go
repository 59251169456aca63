package cv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/shoe/card"
)

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

// Capture: emptyToEnd frames without a card end a card's passage; a card is placed when its top
// edge lies in the top placedShare of the window (well in view, the index corner wholly in it)
// and no nearer its top than topReach (where it is found is where it is).
const (
	emptyToEnd  = 3
	placedShare = 0.2
)

// CaptureCalibration watches a reader camera while the technician passes cards through it in
// the given order (card codes, "CUT", "BACK"), and keeps one frame per card: of the frames in
// which the card is placed (its outline found as the recognizer finds it and seen along most of
// its edges, its top edge in the top fifth of the window), the sharpest (the largest variance of the Laplacian). A card's
// passage ends when no card has been seen for a few frames. The frames are returned for
// Calibrate; the caller closes them (CloseFrames). A source that ends before the last card is an
// error naming the card it waited for.
func CaptureCalibration(ctx context.Context, src Source, order []string, progress CaptureProgress) ([]CalibrationFrame, error) {
	if len(order) == 0 {
		return nil, fmt.Errorf("%w: no cards to capture", ErrCalibration)
	}
	frame := gocv.NewMat()
	defer frame.Close()
	best := gocv.NewMat()
	defer best.Close()
	sc := newScanner()
	defer sc.Close()
	var out []CalibrationFrame
	fail := func(err error) ([]CalibrationFrame, error) {
		CloseFrames(out)
		return nil, err
	}
	ended := func() error {
		return fmt.Errorf("%w: %s ended after %d of %d cards (next: %s)", ErrCalibration, src, len(out), len(order), order[len(out)])
	}
	bestScore, empty, inPassage := -1.0, 0, false
	for len(out) < len(order) {
		_, err := src.Read(ctx, &frame)
		eof := errors.Is(err, io.EOF)
		switch {
		case eof && !inPassage:
			return fail(ended())
		case eof:
			empty = emptyToEnd // the source ended during the last card: keep it
		case err != nil:
			return fail(err)
		default:
			if err := checkFrame(frame); err != nil {
				return fail(fmt.Errorf("%w: %s: %w", ErrCalibration, src, err))
			}
			placed, found := placedIn(sc, frame)
			switch {
			case placed:
				inPassage, empty = true, 0
				if s, err := sharpness(frame); err != nil {
					return fail(err)
				} else if s > bestScore {
					bestScore = s
					frame.CopyTo(&best)
				}
			case !found:
				empty++
			}
		}
		if inPassage && empty >= emptyToEnd {
			tok := order[len(out)]
			out = append(out, CalibrationFrame{Token: tok, File: fmt.Sprintf("%s (card %d of the pass from %s)", tok, len(out)+1, src), Frame: best.Clone()})
			if progress != nil {
				progress(tok, len(out), len(order))
			}
			inPassage, bestScore, empty = false, -1, 0
		}
		if eof && len(out) < len(order) {
			return fail(ended())
		}
	}
	return out, nil
}

// placedIn says whether frame shows a card placed for calibration, and whether it shows a card
// at all: an outline whose edges are seen along most of their length (at least half the scan
// lines across its top and down its sides agree), which the felt's grain, lining up on a dozen
// scan lines at most, does not give.
func placedIn(sc *scanner, frame gocv.Mat) (placed, found bool) {
	if sc.load(frame) != nil {
		return false, false
	}
	p, o, err := sc.findShoe()
	if err != nil {
		return false, false
	}
	tl, tr := p.corners[0], p.corners[1]
	across := p.widthPx / scanStep
	down := (float64(frame.Rows()) - max(tl.y, tr.y)) / scanStep
	if float64(o.top.n) < across/2 || float64(o.left.n) < down/2 || float64(o.right.n) < down/2 {
		return false, false
	}
	lim := placedShare * float64(frame.Rows())
	return tl.y >= topReach && tr.y >= topReach && tl.y < lim && tr.y < lim, true
}

// sharpness is the variance of the Laplacian of the frame's grey image.
func sharpness(frame gocv.Mat) (float64, error) {
	gray := gocv.NewMat()
	defer gray.Close()
	lap := gocv.NewMat()
	defer lap.Close()
	mean := gocv.NewMat()
	defer mean.Close()
	dev := gocv.NewMat()
	defer dev.Close()
	gocv.CvtColor(frame, &gray, gocv.ColorBGRToGray)
	gocv.Laplacian(gray, &lap, gocv.MatTypeCV64F, 3, 1, 0, gocv.BorderDefault)
	gocv.MeanStdDev(lap, &mean, &dev)
	if dev.Empty() {
		return 0, fmt.Errorf("vision: no Laplacian of the frame")
	}
	d := dev.GetDoubleAt(0, 0)
	return d * d, nil
}

// SaveCalibrationFrames writes frames into dir (made if need be) as TOKEN.png, the layout
// CalibrateDirs reads, and sets each frame's File to where it was written, so that calibration's
// errors name the file a technician can look at.
func SaveCalibrationFrames(dir string, frames []CalibrationFrame) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("vision: %w", err)
	}
	for i := range frames {
		path := filepath.Join(dir, frames[i].Token+".png")
		if !gocv.IMWrite(path, frames[i].Frame) {
			return fmt.Errorf("vision: cannot write %s", path)
		}
		frames[i].File = path
	}
	return nil
}

// CloseFrames closes every frame's Mat.
func CloseFrames(frames []CalibrationFrame) {
	for _, f := range frames {
		f.Frame.Close()
	}
}
