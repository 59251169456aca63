package visiontest

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A calibration frame's card is kept inside the window's sides down to its bottom, and its top
// clear of the window's top: calibration refuses a frame whose index corners the window cuts.
func TestCalibrationLookInWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		l := RandomShoeLook(rng, Mild, 1.4)
		// The widest, farthest right and most turned a mild look may be, every other time.
		if i%2 == 0 {
			l.Corners = rectCorners(60, 0, 260, 364, (2*rng.Float64()-1)*1.5*math.Pi/180)
		}
		clearOfTop(&l)
		clearOfSides(&l)
		if top := min(l.Corners[0][1], l.Corners[1][1]); top < calibTop-1e-9 {
			t.Fatalf("look %d: the card's top at %.1f", i, top)
		}
		for _, side := range [][2]int{{0, 3}, {1, 2}} {
			a, b := l.Corners[side[0]], l.Corners[side[1]]
			for y := max(a[1], 0); y <= float64(ShoeSize.Y); y++ {
				x := a[0] + (y-a[1])/(b[1]-a[1])*(b[0]-a[0])
				if x < calibSide-1e-9 || x > float64(ShoeSize.X)-calibSide+1e-9 {
					t.Fatalf("look %d: the card's side at x %.1f, y %.0f: %v", i, x, y, l.Corners)
				}
			}
		}
	}
}

// A calibration photograph shows the whole card, photoMargin pixels inside the frame.
func TestCalibrationPhotoInView(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 2000 {
		l := RandomPhotoLook(rng, 1.4)
		inView(&l, PhotoSize, photoMargin)
		for _, c := range l.Corners {
			if c[0] < photoMargin-1e-9 || c[1] < photoMargin-1e-9 || c[0] > float64(PhotoSize.X)-photoMargin+1e-9 || c[1] > float64(PhotoSize.Y)-photoMargin+1e-9 {
				t.Fatalf("look %d: the card's corners %v leave the frame", i, l.Corners)
			}
		}
	}
}
