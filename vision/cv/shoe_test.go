package cv

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"gocv.io/x/gocv"
)

// TestScanSmoothing: the scan lines' smoothing made where a scan needs it agrees with OpenCV's
// box filter of the whole frame (9×1 across a column, 1×9 down a row, its default border), to
// float32's precision, at the frame's borders as inside.
func TestScanSmoothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const w, h = 37, 23
	buf := make([]byte, w*h*3)
	for i := range buf {
		buf[i] = byte(rng.IntN(256))
	}
	frame, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC3, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer frame.Close()
	s := newScanner()
	defer s.Close()
	if err := s.load(frame); err != nil {
		t.Fatal(err)
	}
	hb, vb := gocv.NewMat(), gocv.NewMat()
	defer hb.Close()
	defer vb.Close()
	gocv.Blur(s.f, &hb, image.Pt(smoothW, 1))
	gocv.Blur(s.f, &vb, image.Pt(1, smoothW))
	hp, _ := hb.DataPtrFloat32()
	vp, _ := vb.DataPtrFloat32()
	near := func(a, b float32) bool { return math.Abs(float64(a-b)) <= 1e-4*max(1, math.Abs(float64(b))) }
	col := make([]float32, h*3)
	for x := range w {
		s.smoothColumn(x, col)
		for y := range h {
			for c := range 3 {
				if got, want := col[y*3+c], hp[(y*w+x)*3+c]; !near(got, want) {
					t.Fatalf("column %d row %d channel %d: %v, OpenCV %v", x, y, c, got, want)
				}
			}
		}
	}
	var px [3]float32
	for y := range h {
		for x := range w {
			s.smoothAt(x, y, px[:])
			for c := range 3 {
				if got, want := px[c], vp[(y*w+x)*3+c]; !near(got, want) {
					t.Fatalf("row %d column %d channel %d: %v, OpenCV %v", y, x, c, got, want)
				}
			}
		}
	}
}
