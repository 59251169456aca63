package visiontest

import (
	"errors"
	"os/exec"
	"testing"
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
