package cv

import (
	"fmt"
	"image"
	"math"
	"strings"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision"
)

// Outline is where a card lies in a frame, as the recognizer finds it: for the tools that show a
// technician what the recognizer sees (`sabot calibrate camera`), so that they need no Mat and no
// knowledge of the search.
type Outline struct {
	// Corners are the card's outline in frame pixels: top-left, top-right, bottom-right,
	// bottom-left, the top being the end the index is read at. In the shoe's reader window the
	// card runs off the bottom of the frame: its bottom corners are where its sides leave it.
	Corners [4]image.Point
	// Index is the top-left corner part the recognizer compares (where most designs print the
	// index; the top-right one is compared too), in the same order.
	Index [4]image.Point
	// WidthPx is the card's width across its top, in pixels.
	WidthPx float64
	// Whole says the whole card is in view (a table frame or a photograph), not only its top.
	Whole bool
	// How is what the search saw, in words (the trace's outline line).
	How string
}

// FindCard finds the card in an 8-bit BGR frame as the recognizer of view would: the reader
// window's top edge and sides (vision.Shoe), or a whole card anywhere at any rotation
// (vision.Table, and photographs). No card in view is an error wrapping ErrNoCard, saying what
// was missing.
func FindCard(frame gocv.Mat, view vision.View) (Outline, error) {
	if err := checkFrame(frame); err != nil {
		return Outline{}, err
	}
	var o Outline
	var p pose
	switch view {
	case vision.Shoe:
		sc := newScanner()
		defer sc.Close()
		if err := sc.load(frame); err != nil {
			return Outline{}, fmt.Errorf("vision: %w", err)
		}
		var so shoeOutline
		var err error
		p, so, err = sc.findShoe()
		if err != nil {
			return Outline{}, noCard(err)
		}
		// As the trace words it (recognize.go).
		o.How = fmt.Sprintf("top edge %s, left side %s, right side %s (steps of %.0f and more; the window's columns' largest steps: median %.0f, 90th percentile %.0f)",
			so.top, so.left, so.right, so.thr, so.contrast, so.peak)
		// The sides down to the bottom of the frame (t of a side is y).
		bottom := float64(frame.Rows() - 1)
		o.Corners = [4]image.Point{pt(p.corners[0]), pt(p.corners[1]), pt(so.right.pt(bottom)), pt(so.left.pt(bottom))}
	case vision.Table:
		tf := newTableFinder()
		defer tf.Close()
		var to tableOutline
		var err error
		p, to, err = tf.findTable(frame)
		if err != nil {
			return Outline{}, noCard(err)
		}
		o.How = fmt.Sprintf("%d outline(s) of a card's shape; gradient threshold %.0f; sides' edge points off their lines %.0f%%", to.candidates, to.thr, 100*to.fit)
		for i, c := range p.corners {
			o.Corners[i] = pt(c)
		}
		o.Whole = to.whole
	default:
		return Outline{}, fmt.Errorf("vision: FindCard: unknown view %v", view)
	}
	o.WidthPx = p.widthPx
	// The left corner part as the model compares it: cornerW × cornerH fine pixels from the
	// card's corner.
	u, v := float64(cornerW)/fineScale, float64(cornerH)/fineScale
	for i, c := range [4][2]float64{{0, 0}, {u, 0}, {u, v}, {0, v}} {
		o.Index[i] = pt(p.at(c[0], c[1]))
	}
	return o, nil
}

// ErrNoCard is wrapped by FindCard's error when no card is in view.
var ErrNoCard = errNoCard

// noCard words a search's failure on one line ("vision: no card outline: no top edge"); it
// still wraps what it says.
func noCard(err error) error { return oneLine{err} }

type oneLine struct{ err error }

func (e oneLine) Error() string { return "vision: " + strings.ReplaceAll(e.err.Error(), "\n", ": ") }
func (e oneLine) Unwrap() error { return e.err }

func pt(p point) image.Point { return image.Pt(int(math.Round(p.x)), int(math.Round(p.y))) }
