package camera

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision/cv"
)

func devFrame(t *testing.T, deck, name string) gocv.Mat {
	d := os.Getenv("SABOT_VISION_DEV")
	if d == "" {
		d = filepath.Join("..", "..", "..", "shared", "vision-dev")
	}
	path := filepath.Join(d, deck, "calib", name)
	if _, err := os.Stat(path); err != nil {
		if testing.Short() {
			t.Skipf("no dev frames (-short): %v", err)
		}
		t.Fatalf("no dev frames: %v (set SABOT_VISION_DEV or run with -short)", err)
	}
	m, err := cv.ReadImage(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func status(r *Report, name string) Status {
	for _, m := range r.Measures {
		if m.Name == name {
			return m.Status
		}
	}
	return -1
}

func TestCheck(t *testing.T) {
	sharp := devFrame(t, "anglo", "9s.jpg")
	defer sharp.Close()
	r, err := Check(sharp, "9s.jpg", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Card || status(r, "focus") != Good || status(r, "contrast") != Good || status(r, "clipped white") != Good {
		var b strings.Builder
		r.WriteText(&b)
		t.Fatalf("a good frame:\n%s", b.String())
	}
	// The same frame out of focus, and behind a fogged window (low contrast, lifted blacks).
	blurred := gocv.NewMat()
	defer blurred.Close()
	gocv.GaussianBlur(sharp, &blurred, image.Pt(0, 0), 4, 4, gocv.BorderReplicate)
	rb, err := Check(blurred, "blurred", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Focus >= r.Focus/4 || status(rb, "focus") != Bad || rb.Worst() != Bad {
		t.Errorf("blurred frame: focus %.0f (sharp %.0f), %v", rb.Focus, r.Focus, status(rb, "focus"))
	}
	fogged := gocv.NewMat()
	defer fogged.Close()
	sharp.ConvertToWithParams(&fogged, gocv.MatTypeCV8UC3, 0.3, 150)
	rf, err := Check(fogged, "fogged", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status(rf, "contrast") != Bad {
		t.Errorf("fogged frame: contrast %.0f %v", rf.Contrast, status(rf, "contrast"))
	}
	dark := gocv.NewMat()
	defer dark.Close()
	sharp.ConvertToWithParams(&dark, gocv.MatTypeCV8UC3, 0.1, 0)
	rd, err := Check(dark, "dark", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status(rd, "mean brightness") != Bad || status(rd, "clipped black") == Good {
		t.Errorf("dark frame: mean %.0f clipped %.3f", rd.Mean, rd.DarkClip)
	}
	out := filepath.Join(t.TempDir(), "report.png")
	if err := rb.WritePNG(out, blurred); err != nil {
		t.Fatal(err)
	}
	png := gocv.IMRead(out, gocv.IMReadColor)
	defer png.Close()
	if png.Cols() != 640+360 || png.Rows() != 480 {
		t.Errorf("report is %dx%d", png.Cols(), png.Rows())
	}
}

func TestCheckWithProfile(t *testing.T) {
	d := os.Getenv("SABOT_VISION_DEV")
	if d == "" {
		d = filepath.Join("..", "..", "..", "shared", "vision-dev")
	}
	frame := devFrame(t, "tango", "Kd.jpg")
	defer frame.Close()
	p, err := cv.CalibrateDir(filepath.Join(d, "tango", "calib"), cv.CalibrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Check(frame, "Kd.jpg", p)
	if err != nil {
		t.Fatal(err)
	}
	if r.ProfileWidth == 0 || r.Location.Rank == ([4]image.Point{}) || status(r, "card width") == Bad {
		t.Errorf("report %+v", r)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "camera check: Kd.jpg (320x240)\n  focus ") || !strings.Contains(b.String(), "\nverdict: ") {
		t.Errorf("text report:\n%s", b.String())
	}
	big := gocv.NewMatWithSize(480, 640, gocv.MatTypeCV8UC3)
	defer big.Close()
	if _, err := Check(big, "big", p); err == nil || err.Error() != "camera: big is 640x480, the profile is for  320x240" {
		t.Errorf("wrong camera: %v", err)
	}
	empty := gocv.NewMat()
	defer empty.Close()
	if _, err := Check(empty, "empty", nil); err == nil {
		t.Error("empty frame accepted")
	}
}
