package cv

import (
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision"
)

// TestBlankLooksLikeBlankFace: light grey plastic (neoclassical f00129) matches the two of clubs
// seen from its other end, over the stretch of its face between the pips, as well as a card
// matches itself; that stretch is blank, so the match says nothing and the frame reads CUT.
func TestBlankLooksLikeBlankFace(t *testing.T) {
	r, err := New(devProfile(t, "neoclassical"), vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := gocv.IMRead(filepath.Join(devDir(t), "neoclassical", "frames", "f00129.jpg"), gocv.IMReadColor)
	defer img.Close()
	a := r.analyze(img)
	best := -1.0
	for _, c := range a.scores {
		if c.i >= 0 {
			best = max(best, c.same, c.rot, c.fine)
		}
	}
	if best < blankCard {
		t.Fatalf("best card %.3f: the frame no longer tests drawnLike", best)
	}
	if d := r.drawnLike(&a); d >= blankCard {
		t.Errorf("drawnLike %.3f, want under %.2f", d, blankCard)
	}
	if res := r.decide(&a); res.Kind != vision.Cut {
		t.Errorf("read %v, want CUT", res)
	}
	// The twos and fours are blank between their pips; every other card of the deck is drawn
	// there.
	m := r.m
	for i := range m.cards {
		tf := &m.cards[i].fine
		y0 := max(0, 2*m.length-a.frame.fine.valid, tf.top)
		blank := inkShare(tf, rect{6, y0, tf.w - 6, tf.valid}) <= blankInk
		if rank := i/4 + 1; blank != (rank == 2 || rank == 4) {
			t.Errorf("card %d (rank %d): blank %v beyond the frame's rows", i, rank, blank)
		}
	}
}
