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

// TestBackAtCardLength: a glossy back seen from its other end in a frame cut short by the
// window's bottom (tango f00224) shares too little of itself with the calibrated back for the
// search over the back's length, but at the card's own length it matches.
func TestBackAtCardLength(t *testing.T) {
	r, err := New(devProfile(t, "tango"), vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := gocv.IMRead(filepath.Join(devDir(t), "tango", "frames", "f00224.jpg"), gocv.IMReadColor)
	defer img.Close()
	a := r.analyze(img)
	back := &a.scores[len(a.scores)-1]
	if back.i != -2 {
		t.Fatalf("last candidate %d, want the back", back.i)
	}
	if s, _ := rotScoreSpan(&a.frame.coarse, &r.m.back.coarse, bandW/2*115/100, bandW/2*190/100); s >= backMin {
		t.Errorf("the length search alone scores %.3f: the frame no longer tests the card's length", s)
	}
	// rotLen is at full resolution once the back is compared there.
	if d := back.rotLen - 2*r.m.length; d < -3 || d > 3 {
		t.Errorf("back matched at length %d, the card's is %d", back.rotLen, 2*r.m.length)
	}
	if res := r.decide(&a); res.Kind != vision.Back {
		t.Errorf("read %v, want BACK", res)
	}
}

// TestBackRescaled: a back pulled fast (neoclassical f00209) blurs its edges, and the card's
// width is measured a few percent off; the back's fine pattern then matches the calibrated back
// only at the right scale. A stretch of the four's face between its pips, as blank as the
// blurred pattern, is no card it looks like.
func TestBackRescaled(t *testing.T) {
	r, err := New(devProfile(t, "neoclassical"), vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := gocv.IMRead(filepath.Join(devDir(t), "neoclassical", "frames", "f00209.jpg"), gocv.IMReadColor)
	defer img.Close()
	a := r.analyze(img)
	back, best := -1.0, -1.0
	for _, c := range a.scores {
		switch {
		case c.i == -2:
			back = max(back, c.same, c.rot, c.fine)
		case c.i >= 0:
			best = max(best, c.same, c.rot, c.fine)
		}
	}
	back = max(back, shiftedScore(&a.frame.coarse, &r.m.back.coarse, 8))
	if back >= backMin || best < back {
		t.Fatalf("back %.3f, best card %.3f: the frame no longer tests the rescaled back", back, best)
	}
	if d := r.drawnLike(&a); back-d < backMargin {
		t.Errorf("drawnLike %.3f: the back does not lead it", d)
	}
	if s := a.backRescaled(); s < backMin {
		t.Errorf("rescaled back %.3f, want %.2f at least", s, backMin)
	}
	if res := r.decide(&a); res.Kind != vision.Back {
		t.Errorf("read %v, want BACK", res)
	}
}
