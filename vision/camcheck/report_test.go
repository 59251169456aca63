package camcheck

import (
	"context"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/vision/cv"
	"github.com/sabot-tables/sabot/vision/visiontest"
	"github.com/sabot-tables/sabot/vision/visiontest/simcam"
)

// shoeFrame renders a mild reader frame of tok and says where the card's top corners are.
func shoeFrame(t *testing.T, r *visiontest.Renderer, tok string, seed uint64) (gocv.Mat, visiontest.Look) {
	t.Helper()
	asp, err := r.Aspect()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	l := visiontest.RandomShoeLook(rng, visiontest.Mild, asp)
	// Exposed as a technician sets a reader camera up: the card's white short of clipping.
	l.Gain = 0.8
	m := gocv.NewMat()
	if err := r.Render(&m, visiontest.ShoeSize, visiontest.Subject{Token: tok}, l, rng); err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, l
}

func status(r *Report, name string) Status {
	for _, m := range r.Measures {
		if m.Name == name {
			return m.Status
		}
	}
	return -1
}

func text(r *Report) string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}

func TestCheck(t *testing.T) {
	rd := visiontest.NeedArt(t, "anglo")
	defer rd.Close()
	sharp, look := shoeFrame(t, rd, "9s", 1)
	defer sharp.Close()
	r, err := Check(sharp, "9s.jpg", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Card || status(r, "focus") != Good || status(r, "contrast") != Good || status(r, "clipped white") != Good {
		t.Fatalf("a good frame:\n%s", text(r))
	}
	// The outline is the rendered card's: its top corners within 3.5 pixels (the card's edge is
	// anti-aliased, its corners rounded), its width within 2%.
	for i := range 2 {
		got, want := r.Outline.Corners[i], look.Corners[i]
		if math.Hypot(float64(got.X)-want[0], float64(got.Y)-want[1]) > 3.5 {
			t.Errorf("corner %d at %v, rendered at %.1f", i, got, want)
		}
	}
	wantW := math.Hypot(look.Corners[1][0]-look.Corners[0][0], look.Corners[1][1]-look.Corners[0][1])
	if math.Abs(r.Outline.WidthPx-wantW) > 0.02*wantW || r.Outline.Whole {
		t.Errorf("outline %+v, rendered width %.1f", r.Outline, wantW)
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
	rdk, err := Check(dark, "dark", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status(rdk, "mean brightness") != Bad || status(rdk, "clipped black") == Good {
		t.Errorf("dark frame: mean %.0f clipped %.3f", rdk.Mean, rdk.DarkClip)
	}
	out := filepath.Join(t.TempDir(), "report.png")
	if err := rb.WritePNG(out); err != nil {
		t.Fatal(err)
	}
	png := gocv.IMRead(out, gocv.IMReadColor)
	defer png.Close()
	if png.Cols() != 640+360 || png.Rows() != 480 {
		t.Errorf("report is %dx%d", png.Cols(), png.Rows())
	}
	// The empty window: no card, said so.
	empty := gocv.NewMat()
	defer empty.Close()
	if err := rd.Render(&empty, visiontest.ShoeSize, visiontest.Empty, look, rand.New(rand.NewPCG(2, 2))); err != nil {
		t.Fatal(err)
	}
	re, err := Check(empty, "empty", nil)
	if err != nil {
		t.Fatal(err)
	}
	if re.Card || status(re, "card in window") != Doubtful || !strings.Contains(text(re), "\n  no card: vision: no card outline: ") {
		t.Errorf("empty window:\n%s", text(re))
	}
}

// TestCheckTable finds a whole card anywhere on a table frame when there is no profile.
func TestCheckTable(t *testing.T) {
	rd := visiontest.NeedArt(t, "anglo")
	defer rd.Close()
	asp, _ := rd.Aspect()
	rng := rand.New(rand.NewPCG(3, 3))
	l := visiontest.RandomTableLook(rng, visiontest.Mild, asp)
	l.OtherEnd = false
	m := gocv.NewMat()
	defer m.Close()
	if err := rd.Render(&m, visiontest.TableSize, visiontest.Subject{Token: "Qh"}, l, rng); err != nil {
		t.Fatal(err)
	}
	r, err := Check(m, "table", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Card || !r.Outline.Whole {
		t.Fatalf("table frame:\n%s", text(r))
	}
	// Each rendered corner is near one of the outline's (the outline's top is the end nearer
	// the top of the frame, whichever end of the card that is).
	for _, want := range l.Corners {
		near := false
		for _, got := range r.Outline.Corners {
			near = near || math.Hypot(float64(got.X)-want[0], float64(got.Y)-want[1]) <= 5
		}
		if !near {
			t.Errorf("rendered corner %.1f not in the outline %v", want, r.Outline.Corners)
		}
	}
	// With a profile made from photographs, the card is looked for anywhere, of any size, in a
	// frame of any size: its width has no verdict.
	photo := &calibration.VisionProfile{Source: "photo", Camera: calibration.Camera{Name: "webcam", Width: 800, Height: 600}, CardWidthPx: 90}
	rp, err := Check(m, "table", photo)
	if err != nil || !rp.Card || !rp.Outline.Whole || rp.ProfileWidth != 0 || status(rp, "card width") != Good {
		t.Errorf("photo profile: %v\n%s", err, text(rp))
	}
}

// TestCheckWithProfile checks frames against a reader camera's profile (Check reads only its
// source, camera and card width): the card width, the wrong camera, a file, and a source as
// CheckDevice reads it.
func TestCheckWithProfile(t *testing.T) {
	rd := visiontest.NeedArt(t, "tango")
	defer rd.Close()
	frame, look := shoeFrame(t, rd, "Kd", 5)
	defer frame.Close()
	width := math.Hypot(look.Corners[1][0]-look.Corners[0][0], look.Corners[1][1]-look.Corners[0][1])
	p := &calibration.VisionProfile{Source: "shoe", Camera: calibration.Camera{Name: "shoe-reader", Width: 320, Height: 240}, CardWidthPx: width}
	dir := t.TempDir()
	path := filepath.Join(dir, "Kd.png")
	if !gocv.IMWrite(path, frame) {
		t.Fatal("cannot write the frame")
	}
	r, err := CheckImage(path, p)
	if err != nil {
		t.Fatal(err)
	}
	if r.ProfileWidth != p.CardWidthPx || !r.Card || status(r, "card width") == Bad {
		t.Errorf("report:\n%s", text(r))
	}
	if s := text(r); !strings.HasPrefix(s, "camera check: "+path+" (320x240)\n  focus ") || !strings.Contains(s, "\n  profile's card width ") || !strings.Contains(s, "\nverdict: ") {
		t.Errorf("text report:\n%s", s)
	}
	// A profile of another camera's size is refused, naming both.
	big := gocv.NewMatWithSize(480, 640, gocv.MatTypeCV8UC3)
	defer big.Close()
	if _, err := Check(big, "big", p); err == nil || err.Error() != "camcheck: big is 640x480, the profile is for shoe-reader 320x240" {
		t.Errorf("wrong camera: %v", err)
	}
	// A card much wider than the profile's is bad.
	wide := *p
	wide.CardWidthPx = p.CardWidthPx * 1.3
	if r, err := CheckImage(path, &wide); err != nil || status(r, "card width") != Bad {
		t.Errorf("a card 30%% off the profile's width: %v", err)
	}
	// A camera is read through its Source: the last of the settling frames is checked.
	src := simcamSource(t, rd)
	defer src.Close()
	rs, err := checkSource(context.Background(), src, "simulated", p)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Source != "simulated" || rs.Width != 320 || rs.Height != 240 {
		t.Errorf("source report:\n%s", text(rs))
	}
}

// simcamSource is a simulated reader camera showing the empty window.
func simcamSource(t *testing.T, rd *visiontest.Renderer) cv.Source {
	s, err := simcam.NewCameraShoe(rd, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.jpg")
	if err := os.WriteFile(junk, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckImage(junk, nil); err == nil || !strings.Contains(err.Error(), "camcheck: "+junk+": vision: bad frame") {
		t.Errorf("junk file: %v", err)
	}
	if _, err := CheckImage(filepath.Join(dir, "none.jpg"), nil); err == nil || !strings.Contains(err.Error(), "none.jpg: no such file") {
		t.Errorf("missing file: %v", err)
	}
	empty := gocv.NewMat()
	defer empty.Close()
	if _, err := Check(empty, "empty", nil); err == nil || err.Error() != "camcheck: empty: not an 8-bit colour frame" {
		t.Errorf("empty frame: %v", err)
	}
	if _, err := CheckDevice(context.Background(), "/dev/video99", nil); err == nil || !strings.Contains(err.Error(), "camcheck: vision: camera /dev/video99") {
		t.Errorf("missing camera: %v", err)
	}
}
