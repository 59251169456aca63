package cv

import (
	"context"
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/shoe/card"
)

// A reader frame whose card's top edge touches the window's top is found a few pixels low (the
// edge scans cannot measure a step at its first rows), and a template described from it would be
// off its card: calibration refuses the frame, naming it and why, and a capture does not keep it.
func TestCalibrationCardAtTop(t *testing.T) {
	const w, h = 320, 240
	frame := func(top int) gocv.Mat {
		m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(45, 70, 40, 0), h, w, gocv.MatTypeCV8UC3)
		gocv.Rectangle(&m, image.Rect(60, top, 260, h), color.RGBA{R: 235, G: 235, B: 230}, -1)
		gocv.Rectangle(&m, image.Rect(70, top+12, 90, top+50), color.RGBA{R: 30, G: 30, B: 30}, -1)
		return m
	}
	low, high := frame(20), frame(1)
	defer low.Close()
	defer high.Close()
	sc := newScanner()
	defer sc.Close()
	for _, c := range []struct {
		top    int
		m      gocv.Mat
		placed bool
	}{{20, low, true}, {1, high, false}} {
		if placed, found := placedIn(sc, c.m); placed != c.placed || !found {
			t.Errorf("card's top at row %d: placed %v found %v, want placed %v found", c.top, placed, found, c.placed)
		}
	}
	var pass []CalibrationFrame
	for _, c := range card.Deck() {
		f := CalibrationFrame{Token: c.String(), File: c.String() + ".jpg", Frame: low}
		if c.String() == "7h" {
			f.Frame = high
		}
		pass = append(pass, f)
	}
	_, err := Calibrate(context.Background(), [][]CalibrationFrame{pass}, CalibrateOptions{Deck: "test", Camera: "test", Source: "shoe"})
	if !errors.Is(err, ErrCalibration) || !strings.Contains(err.Error(), "7h.jpg: the card's top edge is 3.0 pixels from the window's top") {
		t.Fatalf("a pass whose 7h touches the window's top: %v", err)
	}
}
