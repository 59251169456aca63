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

// calibTop is where clearOfTop puts a card's top at the highest (pixels): cv's topReach and a
// pixel or two for the outline's blur and the edge's fit.
const calibTop = 8
