package cv

import (
	"math"
	"testing"

	"github.com/sabot-tables/sabot/vision"
)

// turnedFeat lays t turned end for end at card length l over a frame's band: frame row y shows
// t's row l-1-y, right to left; rows t does not cover are left out (top, valid).
func turnedFeat(t *feat, l int) *feat {
	v := &feat{w: t.w, h: t.h, top: max(0, l-t.valid), valid: min(t.h, l-t.top)}
	v.valid = max(v.valid, v.top)
	for c := 0; c < 3; c++ {
		v.c[c] = make([]float32, t.w*t.h)
		for y := v.top; y < v.valid; y++ {
			for x := 0; x < t.w; x++ {
				v.c[c][y*t.w+x] = t.c[c][(l-1-y)*t.w+t.w-1-x]
			}
		}
	}
	v.rowSums()
	return v
}

// TestSideViews checks the turned views' arithmetic on oxygen's templates: a frame that is a
// card's template turned at the card's length matches that card's turned view exactly, over the
// rows it knows (the middle of the card, not its index); and each similarity between two views,
// turned or not, is the correlation of the one laid out as a frame with the other.
func TestSideViews(t *testing.T) {
	p := devProfile(t, "oxygen")
	r, err := New(p, vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := r.m
	L := 2 * m.length
	if L == 0 {
		t.Fatal("oxygen's card length was not measured")
	}
	const a, b = 17, 40 // 5h and Js
	frame := turnedFeat(&m.cards[a].fine, L)
	y0, y1 := m.viewRows(frame, sideView{a, true}, L)
	if want0 := max(0, L-m.cards[a].fine.valid); y0 != want0 || y1 != frame.valid || y1-y0 < splitMinRows {
		t.Fatalf("turned view rows [%d, %d), want [%d, %d)", y0, y1, want0, frame.valid)
	}
	if s := m.viewScore(frame, sideView{a, true}, L, y0, y1); math.Abs(s-1) > 1e-6 {
		t.Errorf("a card's turned view against itself laid as a frame: %.6f, want 1", s)
	}
	if s := m.viewScore(frame, sideView{a, true}, L+2, y0+2, y1); s > 0.999 {
		t.Errorf("a card's turned view two pixels off: %.6f, want less than 1", s)
	}
	if s := m.viewScore(frame, sideView{b, true}, L, y0, y1); s > 0.9 {
		t.Errorf("%d's turned view against %d's: %.3f, want them apart", b, a, s)
	}
	// viewSim against viewScore, for each pair of kinds.
	for _, c := range []struct{ x, y sideView }{
		{sideView{a, true}, sideView{b, true}},
		{sideView{a, true}, sideView{b, false}},
		{sideView{a, false}, sideView{b, true}},
		{sideView{a, false}, sideView{b, false}},
	} {
		var asFrame *feat
		if c.x.turned {
			asFrame = turnedFeat(&m.cards[c.x.q].fine, L)
		} else {
			asFrame = &m.cards[c.x.q].fine
		}
		x0, x1 := m.viewRows(asFrame, c.x, L)
		v0, v1 := m.viewRows(asFrame, c.y, L)
		y0, y1 := max(x0, v0), min(x1, v1)
		want := m.viewScore(asFrame, c.y, L, y0, y1)
		if got := m.viewSim(c.x, L, c.y, L, y0, y1); math.Abs(got-want) > 1e-6 {
			t.Errorf("viewSim(%v, %v) = %.6f, the one laid as a frame scores %.6f", c.x, c.y, got, want)
		}
	}
	// Two turned views at different lengths.
	fa := turnedFeat(&m.cards[a].fine, L-1)
	fb := turnedFeat(&m.cards[b].fine, L+1)
	y0, y1 = max(fa.top, fb.top), min(fa.valid, fb.valid)
	if got, want := m.viewSim(sideView{a, true}, L-1, sideView{b, true}, L+1, y0, y1), nccRows(fa, fb, y0, y1); math.Abs(got-want) > 1e-6 {
		t.Errorf("turned views at two lengths: %.6f, want %.6f", got, want)
	}
}

// TestMixedLengthOff reads oxygen's dev shoe frames with the card's length set a few pixels off
// the one measured (a frame whose scale the registration misjudges, a length measured short):
// the true card's turned view is then misaligned, and a rival must still be weighed at the
// length that suits it. With rivals held to 2 pixels of the calibrated length, 2 to 9 cards
// were read wrong; no card may be.
func TestMixedLengthOff(t *testing.T) {
	p := devProfile(t, "oxygen")
	ms, ls := devFrames(t, "oxygen", vision.Shoe)
	for _, off := range []int{-3, -2, 2, 3} {
		r, err := New(p, vision.Shoe)
		if err != nil {
			t.Fatal(err)
		}
		r.m.length += off
		read := 0
		for i, m := range ms {
			res, err := r.Recognize(m)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case res.Kind == vision.Reject:
			case res.Kind != ls[i].Kind || res.Kind == vision.Card && res.Card != ls[i].Card:
				t.Errorf("length %+d: %s is %s, read %v", 2*off, ls[i].File, ls[i].Card, res)
			default:
				read++
			}
		}
		r.Close()
		t.Logf("length %+d px: %d of %d frames read", 2*off, read, len(ms))
	}
}
