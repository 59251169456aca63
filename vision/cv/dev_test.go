//go:build dev

package cv_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/vision/cv"
)

// The checks on ../shared/vision-dev (labelled frames of five designs, and oxygen passed twice),
// run by `make test-dev`: the repository's own tests need nothing beside it (issue 16).
// SABOT_VISION_DEV overrides where the frames are.
func devDir(t *testing.T) string {
	d := os.Getenv("SABOT_VISION_DEV")
	if d == "" {
		d = filepath.Join("..", "..", "..", "shared", "vision-dev")
	}
	if _, err := os.Stat(filepath.Join(d, "anglo", "calib", "As.jpg")); err != nil {
		t.Fatalf("no dev frames at %s (set SABOT_VISION_DEV): %v", d, err)
	}
	return d
}

func TestDevDecks(t *testing.T) {
	root := devDir(t)
	for _, deck := range []string{"anglo", "neoclassical", "nicu-ornamental", "oxygen", "oxygen-two-pass", "tango"} {
		t.Run(deck, func(t *testing.T) {
			dir := filepath.Join(root, deck)
			passes := []string{filepath.Join(dir, "calib")}
			if _, err := os.Stat(filepath.Join(dir, "calib-turned")); err == nil {
				passes = append(passes, filepath.Join(dir, "calib-turned"))
			}
			p, err := cv.CalibrateDirs(context.Background(), passes, cv.CalibrateOptions{Deck: deck, Camera: "dev"})
			if strings.HasPrefix(deck, "oxygen") && errors.Is(err, cv.ErrCalibration) {
				// A one-ended design passed once with its cards at either end (and, before
				// 3 December, passed twice): calibration finds that it cannot keep the
				// false-accept estimate under its target, and writes no profile (issue 17's
				// targets for oxygen: not reached).
				t.Logf("refused, no profile written: %v", err)
				// The refusal suggests a second pass turned end for end only to one pass.
				if hint := strings.Contains(err.Error(), "--turned"); hint != (len(passes) == 1) {
					t.Errorf("%d passes refused with the hint of a second pass %v: %v", len(passes), hint, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for v, r := range p.Rules {
				t.Logf("%s rule: distance ≤ %.3f, each part ≤ %.3f, lead ≥ %.2f, estimated false accepts %.1e a frame, read %.1f%% in calibration; noise %+v", v, r.MaxDistance, r.MaxPart, r.MinLead, r.FalseAccept, 100*r.ReadRate, r.Noise)
			}
			for _, n := range p.Notes {
				t.Logf("note: %s", n)
			}
			shoe, table := recognizers(t, p)
			e, err := cv.Evaluate(filepath.Join(dir, "frames"), shoe, table)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range e.Groups {
				var b strings.Builder
				g.WriteTo(&b)
				t.Log(strings.TrimSpace(b.String()))
			}
			misreads(t, e)
		})
	}
}
