package cv

import (
	"image"
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision"
)

// TestFaintOutline reads cut cards whose outline is too faint for registerShoe's scans: dark
// plastic on dark felt, a black card whose top barely steps from the felt.
func TestFaintOutline(t *testing.T) {
	for _, tc := range []struct{ deck, file string }{
		{"nicu-ornamental", "f00034.jpg"}, // near-black plastic on near-black felt
		{"oxygen", "f00024.jpg"},          // dark plastic on dark felt
		{"neoclassical", "f00197.jpg"},    // black, printed CORTE: the sides show, the top hardly
	} {
		t.Run(tc.deck+"/"+tc.file, func(t *testing.T) {
			r, err := New(devProfile(t, tc.deck), vision.Shoe)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			img := gocv.IMRead(filepath.Join(devDir(t), tc.deck, "frames", tc.file), gocv.IMReadColor)
			defer img.Close()
			a := r.analyze(img)
			if !a.faint {
				t.Errorf("found by registerShoe (err %v), want the faint outline", a.err)
			}
			if res := r.decide(&a); res.Kind != vision.Cut {
				t.Errorf("read %v, want CUT", res)
			}
		})
	}
}

// TestFaintOutlineShapes: the faint outline is a card's, or nothing. A dark shape on dark felt
// is found when it has two straight parallel sides about the card's width apart and a top square
// to them with felt above; not when it has no top in the window (a line across it is no top), is
// too narrow, or is a sleeve's rounded shape.
func TestFaintOutlineShapes(t *testing.T) {
	const w, h, width = 320, 240, 226.0
	rect := func(x0, x1, y0 float64) func(x, y float64) bool {
		return func(x, y float64) bool { return x >= x0 && x < x1 && y >= y0 }
	}
	for _, tc := range []struct {
		name  string
		shape func(x, y float64) bool
		want  bool
	}{
		{"card", rect(40, 40+width, 45), true},
		{"card, top above the window", rect(40, 40+width, -10), false},
		{"narrow", rect(100, 100+width/2, 45), false},
		// A band across a card whose top is above the window: the sides go on past it.
		{"a band across a card", func(x, y float64) bool { return rect(40, 40+width, -10)(x, y) && (y < 40 || y >= 46) }, false},
		// A top at the window's edge leaves no felt above it to see.
		{"top at the window's top", rect(40, 40+width, 6), false},
		{"sleeve", func(x, y float64) bool {
			// A forearm's end: rounded, widening down the window.
			cx, r := 160.0, 60+0.5*y
			return math.Hypot((x-cx)/r, (y-240)/200) < 1
		}, false},
		{"nothing", func(x, y float64) bool { return false }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			frame := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
			defer frame.Close()
			px, err := frame.DataPtrUint8()
			if err != nil {
				t.Fatal(err)
			}
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					// Felt grain, a little light falling off to the right; the shape is 6 levels
					// darker and smooth.
					v := 40 - 10*float64(x)/w + rng.NormFloat64()*12
					if tc.shape(float64(x), float64(y)) {
						v = 34 - 10*float64(x)/w + rng.NormFloat64()*2
					}
					for c := 0; c < 3; c++ {
						px[(y*w+x)*3+c] = uint8(max(0, min(255, math.Round(v))))
					}
				}
			}
			blurred := gocv.NewMat()
			defer blurred.Close()
			gocv.GaussianBlur(frame, &blurred, image.Pt(5, 5), 1.5, 1.5, gocv.BorderReplicate)
			g, ok := faintOutline(blurred, width)
			if ok != tc.want {
				t.Fatalf("found %v (%+v), want %v", ok, g, tc.want)
			}
			if !ok {
				return
			}
			if d := math.Abs(g.left.at(120) - 40); d > 2 {
				t.Errorf("left side at %.1f, want 40", g.left.at(120))
			}
			if d := math.Abs(g.right.at(120) - (40 + width)); d > 2 {
				t.Errorf("right side at %.1f, want %.0f", g.right.at(120), 40+width)
			}
			if d := math.Abs(g.top.at(150) - 45); d > 2 {
				t.Errorf("top at %.1f, want 45", g.top.at(150))
			}
		})
	}
}

// TestFeltAlikeUnevenLight: the felt either side of a card may be lit unevenly; what lies
// outside a side that is a line of the card's drawing is the card, not the felt.
func TestFeltAlikeUnevenLight(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		outL, inL, outR, inR [3]int
		want                 bool
	}{
		// neoclassical f00071: black plastic, the felt half again as bright on the right.
		{"uneven light", [3]int{37, 37, 37}, [3]int{15, 16, 15}, [3]int{61, 64, 63}, [3]int{23, 23, 23}, true},
		{"even light", [3]int{40, 40, 40}, [3]int{200, 200, 200}, [3]int{44, 42, 40}, [3]int{210, 205, 200}, true},
		// The left "side" is a line drawn on a white card: its margin outside, a picture inside.
		{"a drawn line", [3]int{230, 230, 230}, [3]int{150, 140, 160}, [3]int{60, 62, 61}, [3]int{230, 230, 230}, false},
		// Too dark inside to measure the light by.
		{"dark inside", [3]int{37, 37, 37}, [3]int{4, 4, 4}, [3]int{61, 64, 63}, [3]int{6, 6, 6}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tol := min(colourDist(tc.outL, tc.inL), colourDist(tc.outR, tc.inR)) * 6 / 10
			if got := feltAlike(tc.outL, tc.inL, tc.outR, tc.inR, tol); got != tc.want {
				t.Errorf("feltAlike: %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUnevenlyLitCut reads a black cut card whose felt is lit unevenly (neoclassical f00071):
// both its sides are kept.
func TestUnevenlyLitCut(t *testing.T) {
	r, err := New(devProfile(t, "neoclassical"), vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img := gocv.IMRead(filepath.Join(devDir(t), "neoclassical", "frames", "f00071.jpg"), gocv.IMReadColor)
	defer img.Close()
	a := r.analyze(img)
	if !a.bothSides || a.faint {
		t.Errorf("both sides %v, faint %v: want both sides by registerShoe", a.bothSides, a.faint)
	}
	if res := r.decide(&a); res.Kind != vision.Cut {
		t.Errorf("read %v, want CUT", res)
	}
}
