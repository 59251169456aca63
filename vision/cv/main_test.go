package cv

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/vision"
)

// TestMain fails the run when a test leaves Mats open. With -tags matprofile (as make test runs
// this package) every Mat is counted; without it the count stays 0 and the check is moot.
func TestMain(m *testing.M) {
	code := m.Run()
	if n, stacks := openMats(); n > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "%d Mats left open:\n%s", n, stacks)
		code = 1
	}
	os.Exit(code)
}

// devDir is ../shared/vision-dev: five deck designs of labelled frames. SABOT_VISION_DEV
// overrides it.
func devDir(t testing.TB) string {
	d := os.Getenv("SABOT_VISION_DEV")
	if d == "" {
		d = filepath.Join("..", "..", "..", "shared", "vision-dev")
	}
	if _, err := os.Stat(filepath.Join(d, "anglo", "calib", "As.jpg")); err != nil {
		if testing.Short() {
			t.Skipf("no dev frames at %s (-short)", d)
		}
		t.Fatalf("no dev frames at %s: set SABOT_VISION_DEV, or run with -short to skip: %v", d, err)
	}
	return d
}

// devDecks are the designs in ../shared/vision-dev.
var devDecks = []string{"anglo", "neoclassical", "nicu-ornamental", "oxygen", "tango"}

var (
	profilesMu sync.Mutex
	profiles   = map[string]*calibration.VisionProfile{}
)

// devProfile calibrates a dev deck once per test binary: calibration takes a good part of a
// second, and several tests use the same decks.
func devProfile(t testing.TB, deck string) *calibration.VisionProfile {
	profilesMu.Lock()
	defer profilesMu.Unlock()
	if p, ok := profiles[deck]; ok {
		return p
	}
	p, err := CalibrateDir(filepath.Join(devDir(t), deck, "calib"), CalibrateOptions{Deck: deck, Camera: "dev"})
	if err != nil {
		t.Fatalf("calibrating %s: %v", deck, err)
	}
	profiles[deck] = p
	return p
}

// devFrames loads a dev deck's labelled frames of one view (closed when t ends).
func devFrames(t testing.TB, deck string, view vision.View) ([]gocv.Mat, []vision.Label) {
	t.Helper()
	dir := filepath.Join(devDir(t), deck, "frames")
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := vision.ReadLabels(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var ms []gocv.Mat
	var ls []vision.Label
	for _, l := range labels {
		if l.View != view {
			continue
		}
		m, err := ReadImage(filepath.Join(dir, l.File))
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
		ls = append(ls, l)
	}
	t.Cleanup(func() {
		for _, m := range ms {
			m.Close()
		}
	})
	return ms, ls
}
