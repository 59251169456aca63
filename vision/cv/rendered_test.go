package cv_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/sabot-tables/sabot/vision/cv"
	"github.com/sabot-tables/sabot/vision/visiontest"
)

// TestOneEndedTableRendered reads a rendered oxygen-white test set (as `sabot vision render
// --deck oxygen-white --seed 8` writes it) one-ended on the table. Its corners show the rank alone
// at one end and the suit alone at the other; calibrated at its rank end, a jack of spades lent
// its "J" corner to a jack of clubs seen at that end, and the corner, not the face, picked the
// spade. Against a card of the same rank or suit only the face may tell.
func TestOneEndedTableRendered(t *testing.T) {
	calib, frames := renderDeck(t, "oxygen-white", 8, visiontest.FrameSet{Shoe: 0, Table: 1, Other: 0})
	p, err := cv.CalibrateDir(calib, cv.CalibrateOptions{Deck: "oxygen-white", Camera: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	read := cv.NoWrong(t, cv.EvalWith(t, p, frames, cv.ForceOneEnded))
	if read < 25 {
		t.Errorf("only %d of 52 table frames read", read)
	}
	t.Logf("%d of 52 table frames read", read)
}

// renderDeck renders a calibration pass and a test set of a design as `sabot vision render
// --seed seed` does (for the same frame set), into a temporary directory.
func renderDeck(t *testing.T, deck string, seed uint64, set visiontest.FrameSet) (calib, frames string) {
	t.Helper()
	return renderDeckEnds(t, deck, seed, set, false)
}

// renderDeckEnds is renderDeck with the calibration pass at either end of each card (`sabot
// vision render --either-end`) when eitherEnd is set.
func renderDeckEnds(t *testing.T, deck string, seed uint64, set visiontest.FrameSet, eitherEnd bool) (calib, frames string) {
	t.Helper()
	r := visiontest.NeedArt(t, deck)
	defer r.Close()
	r.CalibEitherEnd = eitherEnd
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 0x5ab07))
	calib, frames = filepath.Join(dir, "calib"), filepath.Join(dir, "frames")
	if err := r.WriteCalibration(calib, rng); err != nil {
		t.Fatal(err)
	}
	if _, err := visiontest.WriteFrames(context.Background(), r, frames, set, rng); err != nil {
		t.Fatal(err)
	}
	return calib, frames
}

// TestLetterlessCourtCards reads a rendered guyenne-classic test set (`sabot vision render --deck
// guyenne-classic --seed 7`). Its court cards carry no letter: their corner holds the suit and a
// piece of the figure, which the rank window reads as another figure nearly as well (a jack as a
// king, 0.89 against 0.84), and those cards were rejected as "rank K, suit unclear". The face,
// plainly the jack's and not contradicted by the index, now reads them.
func TestLetterlessCourtCards(t *testing.T) {
	calib, frames := renderDeck(t, "guyenne-classic", 7, visiontest.FrameSet{Shoe: 3, Table: 1, Other: 6})
	p, err := cv.CalibrateDir(calib, cv.CalibrateOptions{Deck: "guyenne-classic", Camera: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	e := cv.EvalWith(t, p, frames, nil)
	cv.NoWrong(t, e)
	for _, g := range e.Groups {
		if g.Group == "shoe" && g.Accuracy() < 0.97 {
			t.Errorf("shoe: %.1f%% correct, floor 97%%", 100*g.Accuracy())
		}
		t.Logf("%s: %.1f%% correct", g.Group, 100*g.Accuracy())
	}
}

// TestMixedCalibration reads one-ended designs calibrated at either end of each card (`sabot
// vision render --deck D --either-end --seed S`), as the development deck oxygen was: tango_nuevo
// (seed 12) prints its index at one end and a large pip at the other, oxygen (seed 11) and
// oxygen-white (seed 12) a rank at one end and a bare suit symbol at the other. Half of each
// calibration pass shows the end without a rank. Read as decks calibrated at their index end,
// the first two test sets gave 57 and 7 wrong cards: the rank window's means over the four suits
// still told the ranks apart (tango_nuevo), or a card's face was taken at an end whose look the
// calibration never showed (oxygen). The pass must be found mixed, and no card read wrong.
//
// ancient-egyptians (seed 12) has a back plain at one end, and its calibration pass shows the
// other: a plain cut card matched the back at 0.62 and was read as the back (see backPlainEnd).
//
// oxygen-white's card length is measured, so its shoe frames are read with the cards' turned
// views (see splitShoe); two of its jacks of spades, whose corner reads as a club, read as the
// jack of clubs when the jack of spades' turned view was laid only at the length that suited the
// winner's rivals (a rival must be given every length), and 35.7% of its shoe frames read.
func TestMixedCalibration(t *testing.T) {
	for _, c := range []struct {
		deck       string
		seed       uint64
		shoe, tabl float64 // floors
	}{{"tango_nuevo", 12, 0, 0}, {"oxygen", 11, 0, 0.75}, {"oxygen-white", 12, 0.35, 0.55}, {"ancient-egyptians", 12, 0, 0}} {
		c := c
		t.Run(c.deck, func(t *testing.T) {
			e := readEitherEnd(t, c.deck, c.seed, true)
			for _, g := range e.Groups {
				floor := map[string]float64{"shoe": c.shoe, "table": c.tabl}[g.Group]
				if g.Accuracy() < floor {
					t.Errorf("%s: %.1f%% correct, floor %.0f%%", g.Group, 100*g.Accuracy(), 100*floor)
				}
			}
		})
	}
}

// TestSingleGlyphEnd renders oxygen's calibration pass at either end with seed 32, in which the
// 8 of diamonds shows its suit end and is the only 8 taken at its rank end: a glyph learned from
// one card reads as that card's own, so the check of each card against the glyphs had let it
// stand, and every diamond's corner read as an 8. Read against the glyphs learned without it, its
// corner reads plainly as a suit: it must be set undecided.
func TestSingleGlyphEnd(t *testing.T) {
	calib, _ := renderDeckEnds(t, "oxygen", 32, visiontest.FrameSet{}, true)
	p, err := cv.CalibrateDir(calib, cv.CalibrateOptions{Deck: "oxygen", Camera: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	if got := cv.CalibratedEnd(t, p, "8d"); got != "unknown" {
		t.Errorf("8d taken at its %s end, want unknown", got)
	}
	for c, want := range map[string]string{"Kh": "rank", "9c": "suit", "8h": "suit"} {
		if got := cv.CalibratedEnd(t, p, c); got != want {
			t.Errorf("%s taken at its %s end, want %s", c, got, want)
		}
	}
}

// TestEitherEndTwoEnded reads three two-ended designs calibrated at either end of each card
// (`sabot vision render --deck D --either-end --seed 21`). Their sets read four cards wrong: a
// blurred 6 of diamonds whose index read 8 while its face read the 6 at 0.98 (the 8 at 0.83), a
// 4 of hearts read 6 with the face for the 4, a 4 of spades read as clubs by a suit window at
// 0.93 with the face for the spade, and a blurred 5 of spades read 3 at 0.931 against 0.899. The
// face seen from the same end now overrules a disagreeing index, and a thin rank lead is none.
func TestEitherEndTwoEnded(t *testing.T) {
	for _, deck := range []string{"jolly-royal", "slavic_costumes", "anglo_modern_4_color"} {
		t.Run(deck, func(t *testing.T) {
			e := readEitherEnd(t, deck, 21, false)
			for _, g := range e.Groups {
				if g.Group == "shoe" && g.Accuracy() < 0.65 {
					t.Errorf("shoe: %.1f%% correct, floor 65%%", 100*g.Accuracy())
				}
			}
		})
	}
}

// readEitherEnd renders a design with its calibration pass at either end of each card (`sabot
// vision render --deck deck --either-end --seed seed`), checks that the pass is found mixed or
// not, reads the test set, fails t for any card read wrong, and returns the evaluation.
func readEitherEnd(t *testing.T, deck string, seed uint64, mixed bool) *cv.Evaluation {
	t.Helper()
	calib, frames := renderDeckEnds(t, deck, seed, visiontest.FrameSet{Shoe: 3, Table: 1, Other: 6}, true)
	p, err := cv.CalibrateDir(calib, cv.CalibrateOptions{Deck: deck, Camera: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	if got := cv.Mixed(t, p); got != mixed {
		t.Fatalf("the calibration pass found mixed: %v, want %v", got, mixed)
	}
	e := cv.EvalWith(t, p, frames, nil)
	cv.NoWrong(t, e)
	for _, g := range e.Groups {
		t.Logf("%s: %.1f%% correct", g.Group, 100*g.Accuracy())
	}
	return e
}
