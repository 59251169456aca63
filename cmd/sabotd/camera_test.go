package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCameraShoe runs the daemon's simulation on the camera path: every card crosses a rendered
// reader window (Debian's card art), frames are recognized by the real recognizer, combined
// between the exit gate's GPIO edges, and dealt. The simulated dealer knows what it drew: a card
// read as another is logged as a WRONG READ, and there must be none.
func TestCameraShoe(t *testing.T) {
	if testing.Short() {
		t.Skip("camera path: renders and recognizes a few hundred frames")
	}
	sabotd, _ := buildBinaries(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sabotd, "--sim", "--shoe", "camera", "--game", "holdem", "--sim-seed", "5",
		"--sim-shoes", "4", "--sim-pace", "0s", "--listen", "127.0.0.1:0", "--journal", filepath.Join(dir, "T1.db"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("sabotd: %v\n%s", err, tail(errb.String(), 30))
	}
	if strings.Contains(errb.String(), "WRONG READ") {
		t.Fatalf("the camera read a card as another:\n%s", grep(errb.String(), "WRONG READ"))
	}
	gate := grep(errb.String(), `msg="card out of the gate"`)
	passages := strings.Count(gate, "\n") + 1
	rejected := strings.Count(gate, `read="reject: `)
	manual := strings.Count(out.String(), "entered by hand")
	ended := strings.Count(out.String(), "accounting OK")
	if passages < 40 || ended != 4 {
		t.Fatalf("%d cards through the gate, %d entered by hand, %d shoes balanced:\n%s", passages, manual, ended, tail(out.String(), 30))
	}
	// The camera reads cards: a passage is decided by the recognizer's rule on its frames'
	// evidence (it once had no rule to decide by, and every card was entered by hand).
	if rejected*2 > passages {
		t.Errorf("%d of %d passages rejected:\n%s", rejected, passages, tail(gate, 10))
	}
	t.Logf("%d cards through the camera's gate, %d rejected, %d entered by hand after a rejection", passages, rejected, manual)
}

func grep(s, pat string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, pat) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
