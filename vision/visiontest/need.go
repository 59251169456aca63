package visiontest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sabot-tables/sabot/vision"
)

// NeedArt returns a renderer of deck for a test, or fails it (skips it, with -short) when the
// card art or rsvg-convert is not installed, saying what to install. The caller closes it.
func NeedArt(t testing.TB, deck string) *Renderer {
	t.Helper()
	if _, err := exec.LookPath("rsvg-convert"); err != nil {
		if testing.Short() {
			t.Skip("no rsvg-convert (-short)")
		}
		t.Fatal("rsvg-convert is missing: apt install librsvg2-bin (or run with -short)")
	}
	r, err := NewRenderer(deck)
	if err != nil {
		if testing.Short() && errors.Is(err, ErrNoArt) {
			t.Skip(err)
		}
		t.Fatalf("%v (apt install gnome-cards-data kdegames-card-data-kf5, or run with -short)", err)
	}
	return r
}

// Labels returns the labels of a frame set's dir/labels.csv, or fails the test.
func Labels(t testing.TB, dir string) []vision.Label {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	labels, err := vision.ReadLabels(f)
	if err != nil {
		t.Fatalf("%s: %v", f.Name(), err)
	}
	return labels
}
