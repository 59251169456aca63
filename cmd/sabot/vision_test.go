package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// visionDev is ../shared/vision-dev (SABOT_VISION_DEV overrides it).
func visionDev(t *testing.T) string {
	d := os.Getenv("SABOT_VISION_DEV")
	if d == "" {
		d = filepath.Join("..", "..", "..", "shared", "vision-dev")
	}
	if _, err := os.Stat(filepath.Join(d, "tango", "calib", "As.jpg")); err != nil {
		if testing.Short() {
			t.Skipf("no dev frames (-short): %v", err)
		}
		t.Fatalf("no dev frames at %s (set SABOT_VISION_DEV, or -short): %v", d, err)
	}
	return d
}

func sabot(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String() + errb.String(), err
}

// TestVisionCommands calibrates on a dev deck, reads frames and scores the deck's labelled set,
// through the command line.
func TestVisionCommands(t *testing.T) {
	dev := visionDev(t)
	dir := t.TempDir()
	profile := filepath.Join(dir, "tango.json")
	out, err := sabot(t, "calibrate", "vision", "--dir", filepath.Join(dev, "tango", "calib"), "--out", profile, "--report", filepath.Join(dir, "calib.png"))
	if err != nil {
		t.Fatalf("calibrate vision: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "profile "+profile+`: deck "tango", camera shoe-reader 320x240`) {
		t.Errorf("calibrate vision printed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "calib.png")); err != nil {
		t.Error(err)
	}
	if strings.Contains(out, "note:") {
		t.Errorf("a two-ended deck calibrated with a note:\n%s", out)
	}
	// oxygen's pass shows its cards at either end of a one-ended design: the technician is told.
	out, err = sabot(t, "calibrate", "vision", "--dir", filepath.Join(dev, "oxygen", "calib"), "--out", filepath.Join(dir, "oxygen.json"))
	if err != nil || !strings.Contains(out, "note: the pass shows 24 cards at their rank end and 26 at their suit end, 2 undecided (a one-ended design passed at either end)") {
		t.Errorf("calibrate vision oxygen: %v\n%s", err, out)
	}

	// vision read: one JSON line per file, a bad file is an error line and exit status 1.
	junk := filepath.Join(dir, "junk.jpg")
	os.WriteFile(junk, []byte("junk"), 0o644)
	out, err = sabot(t, "vision", "read", "--profile", profile, filepath.Join(dev, "tango", "calib", "Qh.jpg"), junk)
	if err == nil || err.Error() != "vision read: 1 of 2 files could not be read" {
		t.Errorf("vision read: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("vision read printed:\n%s", out)
	}
	var first, second map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first["card"] != "Qh" || first["view"] != "shoe" || first["confidence"].(float64) <= 0.5 || first["ms"].(float64) <= 0 {
		t.Errorf("first line %s", lines[0])
	}
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
		t.Fatal(err)
	}
	if second["card"] != nil || !strings.Contains(second["error"].(string), "junk.jpg: vision: bad frame") {
		t.Errorf("second line %s", lines[1])
	}

	// vision eval: per view, and the contact sheet.
	sheet := filepath.Join(dir, "misread.png")
	out, err = sabot(t, "vision", "eval", "--profile", profile, "--frames", filepath.Join(dev, "tango", "frames"), "--sheet", sheet)
	if err != nil {
		t.Fatalf("vision eval: %v\n%s", err, out)
	}
	for _, want := range []string{"\nshoe    168 frames ", "\ntable    52 frames ", "\nnone      6 frames ", " 0 wrong "} {
		if !strings.Contains(out, want) {
			t.Errorf("vision eval output lacks %q:\n%s", want, out)
		}
	}

	// A damaged profile is refused with the file named.
	b, _ := os.ReadFile(profile)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, bytes.Replace(b, []byte(`"tango"`), []byte(`"mango"`), 1), 0o644)
	if _, err := sabot(t, "vision", "read", "--profile", bad, junk); err == nil || !strings.Contains(err.Error(), bad+": calibration: bad profile: checksum mismatch") {
		t.Errorf("damaged profile: %v", err)
	}
	// A missing calibration card is named.
	if _, err := sabot(t, "calibrate", "vision", "--dir", dir, "--out", filepath.Join(dir, "x.json")); err == nil || !strings.Contains(err.Error(), "missing [As.jpg") {
		t.Errorf("empty calibration directory: %v", err)
	}
}

func TestCalibrateCamera(t *testing.T) {
	dev := visionDev(t)
	dir := t.TempDir()
	out, err := sabot(t, "calibrate", "camera", "--image", filepath.Join(dev, "anglo", "calib", "Ks.jpg"), "--out", filepath.Join(dir, "cam.png"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "camera check: ") || !strings.Contains(out, "\nverdict: ") || !strings.Contains(out, "report "+filepath.Join(dir, "cam.png")) {
		t.Errorf("calibrate camera printed:\n%s", out)
	}
	if _, err := sabot(t, "calibrate", "camera", "--out", filepath.Join(dir, "cam.png")); err == nil {
		t.Error("no --device or --image accepted")
	}
}
