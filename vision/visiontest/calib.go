package visiontest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/shoe/card"
)

// WriteCalibration renders a calibration pass of the deck into dir, as a technician captures it:
// one mild shoe frame per card named by its code (As.jpg … Kc.jpg), CUT.jpg (a cut card) and
// BACK.jpg; each card at its top end, or at either (see Renderer.CalibEitherEnd).
func (r *Renderer) WriteCalibration(dir string, rng *rand.Rand) error {
	return r.WriteCalibrationContext(context.Background(), dir, rng)
}

// WriteCalibrationContext is WriteCalibration, returning ctx's error between two frames once ctx
// ends.
func (r *Renderer) WriteCalibrationContext(ctx context.Context, dir string, rng *rand.Rand) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("visiontest: %w", err)
	}
	asp, err := r.aspect()
	if err != nil {
		return err
	}
	m := gocv.NewMat()
	defer m.Close()
	write := func(name string, s Subject) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		l := RandomShoeLook(rng, Mild, asp)
		if r.CalibEitherEnd {
			l.OtherEnd = rng.IntN(2) == 1
		}
		clearOfTop(&l)
		clearOfSides(&l)
		if err := r.Render(&m, ShoeSize, s, l, rng); err != nil {
			return err
		}
		if !gocv.IMWrite(filepath.Join(dir, name+".jpg"), m) {
			return fmt.Errorf("visiontest: cannot write %s", filepath.Join(dir, name+".jpg"))
		}
		return nil
	}
	for _, c := range card.Deck() {
		if err := write(c.String(), CardSubject(c)); err != nil {
			return err
		}
	}
	if err := write("CUT", CutSubject(RandomCut(rng))); err != nil {
		return err
	}
	return write("BACK", Subject{Token: "BACK"})
}

// clearOfTop moves a calibration frame's card down until its top edge is calibTop pixels below
// the window's top: a technician's capture keeps a frame only once the card's top is clear of
// the window's (cv placedIn), and calibration refuses one that is not.
func clearOfTop(l *Look) {
	top := min(l.Corners[0][1], l.Corners[1][1])
	if top >= calibTop {
		return
	}
	for i := range l.Corners {
		l.Corners[i][1] += calibTop - top
	}
}

// clearOfSides moves a calibration frame's card across until its sides, down to the window's
// bottom, are calibSide pixels inside the window: a card turned a little near the window's side
// leaves it before its index corners end, and calibration refuses such a frame (a template
// must hold both corners whole).
func clearOfSides(l *Look) {
	// x of the side from corner a towards corner b, where it meets the window's bottom (or b).
	at := func(a, b int) float64 {
		pa, pb := l.Corners[a], l.Corners[b]
		if pb[1] <= pa[1] {
			return pb[0]
		}
		t := min(1, (float64(ShoeSize.Y)-pa[1])/(pb[1]-pa[1]))
		return pa[0] + t*(pb[0]-pa[0])
	}
	left := min(l.Corners[0][0], at(0, 3))
	right := max(l.Corners[1][0], at(1, 2))
	dx := 0.0
	switch {
	case right > float64(ShoeSize.X)-calibSide:
		dx = float64(ShoeSize.X) - calibSide - right
	case left < calibSide:
		dx = calibSide - left
	}
	for i := range l.Corners {
		l.Corners[i][0] += dx
	}
}

// calibSide is how far inside the window's sides clearOfSides keeps a card (pixels): room for
// the outline's edge scans beside it.
const calibSide = 8

// calibTop is where clearOfTop puts a card's top at the highest (pixels): cv's topReach and a
// pixel or two for the outline's blur and the edge's fit.
const calibTop = 8
