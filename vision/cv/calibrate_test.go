package cv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/calibration"
)

// copyCalib copies a dev deck's calibration frames into a temporary directory, leaving out the
// named ones.
func copyCalib(t *testing.T, deck string, leave ...string) string {
	dst := t.TempDir()
	src := filepath.Join(devDir(t), deck, "calib")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{}
	for _, l := range leave {
		skip[l] = true
	}
	for _, e := range entries {
		if skip[e.Name()] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
	}
	return dst
}

func TestCalibrateProfile(t *testing.T) {
	p := devProfile(t, "anglo")
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Camera.Width != 320 || p.Camera.Height != 240 || p.Cut == nil || p.Back == nil || len(p.Cards) != 52 {
		t.Fatalf("profile %+v", p.Camera)
	}
	// The anglo index sits in the top-left corner, the rank over the suit.
	if p.Rank.X0 > 8 || p.Rank.X1 > 32 || p.Suit.Y0 < p.Rank.Y1-2 || p.IndexSeparation < MinIndexSeparation {
		t.Errorf("rank %v suit %v separation %v", p.Rank, p.Suit, p.IndexSeparation)
	}
	if p.CardLength < 190 || p.CardLength > 210 { // anglo cards are 1.55 times as long as wide
		t.Errorf("card length %v", p.CardLength)
	}
	// Written and read back, it still builds a recognizer.
	path := filepath.Join(t.TempDir(), "p.json")
	if err := calibration.SaveVision(path, p); err != nil {
		t.Fatal(err)
	}
	q, err := calibration.LoadVision(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newModel(q); err != nil {
		t.Fatal(err)
	}
}

func TestCalibrateErrors(t *testing.T) {
	t.Run("missing card", func(t *testing.T) {
		dir := copyCalib(t, "tango", "7h.jpg", "Qs.jpg")
		_, err := CalibrateDir(dir, CalibrateOptions{})
		if err == nil || err.Error() != "vision: calibration: "+dir+": missing [7h.jpg Qs.jpg]" {
			t.Fatalf("%v", err)
		}
		if !errors.Is(err, ErrCalibration) {
			t.Errorf("%v does not wrap ErrCalibration", err)
		}
	})
	t.Run("unreadable frame", func(t *testing.T) {
		dir := copyCalib(t, "tango")
		os.WriteFile(filepath.Join(dir, "5d.jpg"), []byte("not a jpeg"), 0o644)
		_, err := CalibrateDir(dir, CalibrateOptions{})
		want := "vision: calibration: " + filepath.Join(dir, "5d.jpg") + ": vision: bad frame: not an image OpenCV can decode"
		if err == nil || err.Error() != want {
			t.Fatalf("%v\nwant %s", err, want)
		}
	})
	t.Run("no card in the frame", func(t *testing.T) {
		dir := copyCalib(t, "tango")
		// An empty reader window in place of the 9 of clubs.
		b, err := os.ReadFile(filepath.Join(devDir(t), "tango", "frames", "f00010.jpg"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "9c.jpg"), b, 0o644)
		_, err = CalibrateDir(dir, CalibrateOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), "vision: calibration: "+filepath.Join(dir, "9c.jpg")+": cannot find the card: ") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("two sizes", func(t *testing.T) {
		dir := copyCalib(t, "tango")
		b, err := os.ReadFile(filepath.Join(devDir(t), "tango", "frames", "f00011.jpg")) // a table frame
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "Kd.jpg"), b, 0o644)
		_, err = CalibrateDir(dir, CalibrateOptions{})
		if err == nil || !strings.Contains(err.Error(), "Kd.jpg is 640x480, the other frames 320x240") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("no directory", func(t *testing.T) {
		_, err := CalibrateDir(filepath.Join(t.TempDir(), "nothing"), CalibrateOptions{})
		if !errors.Is(err, ErrCalibration) || !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v", err)
		}
	})
}

// TestWrongCamera: a profile made with one camera refuses another camera's frames.
func TestWrongCamera(t *testing.T) {
	p := *devProfile(t, "anglo")
	p.Camera.Width, p.Camera.Height = 640, 480
	p.Seal()
	r, err := New(&p, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.RecognizeFile(filepath.Join(devDir(t), "anglo", "calib", "As.jpg"))
	if err == nil || !strings.Contains(err.Error(), "frame is 320x240, the profile is for dev 640x480") {
		t.Fatalf("%v", err)
	}
	// A damaged profile does not build a recognizer.
	q := *devProfile(t, "anglo")
	q.Deck = "changed after sealing"
	if _, err := New(&q, 1); !errors.Is(err, calibration.ErrProfile) {
		t.Fatalf("damaged profile: %v", err)
	}
}
