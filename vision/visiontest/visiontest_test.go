package visiontest_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision/visiontest"
)

func TestDecks(t *testing.T) {
	visiontest.NeedArt(t, "anglo").Close()
	names := map[string]bool{}
	for _, d := range visiontest.Decks() {
		names[d.Name] = true
	}
	for _, want := range []string{"anglo", "tango", "neoclassical", "nicu-ornamental", "oxygen", "paris", "standard"} {
		if !names[want] {
			t.Errorf("deck %q not listed", want)
		}
	}
	if _, err := visiontest.LookupDeck("no-such-deck"); !errors.Is(err, visiontest.ErrNoArt) || !strings.Contains(err.Error(), `no deck "no-such-deck" (have `) {
		t.Errorf("LookupDeck of a missing deck: %v", err)
	}
}

// The split is fixed: every installed design is on exactly one side (or unused), and none of
// the held-out ones is on the tuning side.
func TestHeldOutSplit(t *testing.T) {
	visiontest.NeedArt(t, "anglo").Close()
	side := map[string]string{}
	for name, list := range map[string][]string{"tuning": visiontest.Tuning, "held-out": visiontest.HeldOut, "unused": visiontest.Unused} {
		for _, d := range list {
			if prev, ok := side[d]; ok {
				t.Errorf("%s is both %s and %s", d, prev, name)
			}
			side[d] = name
		}
	}
	for _, d := range visiontest.Decks() {
		if side[d.Name] == "" {
			t.Errorf("installed design %s is on neither side of the split", d.Name)
		}
	}
	if len(visiontest.HeldOut) < 20 || len(visiontest.Tuning) < 15 {
		t.Errorf("%d held-out and %d tuning designs", len(visiontest.HeldOut), len(visiontest.Tuning))
	}
}

// The same seed gives the same frame, byte for byte; another seed another.
func TestRenderDeterministic(t *testing.T) {
	r := visiontest.NeedArt(t, "anglo")
	defer r.Close()
	frame := func(seed uint64) []byte {
		rng := rand.New(rand.NewPCG(seed, 7))
		m := gocv.NewMat()
		defer m.Close()
		look := visiontest.RandomShoeLook(rng, visiontest.Hard, 1.55)
		if err := r.Render(&m, visiontest.ShoeSize, visiontest.CardSubject(card.MustParse("Qs")), look, rng); err != nil {
			t.Fatal(err)
		}
		if m.Cols() != visiontest.ShoeSize.X || m.Rows() != visiontest.ShoeSize.Y || m.Type() != gocv.MatTypeCV8UC3 {
			t.Fatalf("frame %dx%d %v", m.Cols(), m.Rows(), m.Type())
		}
		return m.ToBytes()
	}
	a, b, c := frame(1), frame(1), frame(2)
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave different frames")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave the same frame")
	}
}

// WriteSet lays a set out as ../shared/vision-dev does: the passes, labels.csv and truth.csv.
func TestWriteSet(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 300 frames (-short)")
	}
	r := visiontest.NeedArt(t, "tango")
	defer r.Close()
	dir := t.TempDir()
	if err := r.WriteSet(context.Background(), dir, visiontest.SetSpec{Photo: 1, Other: 2, Turned: true, Photos: true, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	count := func(d string) int {
		m, _ := filepath.Glob(filepath.Join(dir, d, "*.jpg"))
		return len(m)
	}
	if n := count("calib"); n != 54 {
		t.Errorf("calib/ holds %d frames, want 54", n)
	}
	if n := count("calib-turned"); n != 54 {
		t.Errorf("calib-turned/ holds %d frames, want 54", n)
	}
	if n := count("calib-photo"); n != 53 {
		t.Errorf("calib-photo/ holds %d frames, want 53 (no cut card photographed)", n)
	}
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, "frames", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	labels, truth := read("labels.csv"), read("truth.csv")
	if len(labels) != 1+52+6 || len(truth) != len(labels) {
		t.Fatalf("%d labels, %d truths", len(labels), len(truth))
	}
	views := map[string]int{}
	for i, l := range labels[1:] {
		views[l[2]]++
		if truth[i+1][0] != l[0] || !slices.Contains([]string{"0", "1"}, truth[i+1][1]) {
			t.Errorf("truth %v for label %v", truth[i+1], l)
		}
		if _, err := os.Stat(filepath.Join(dir, "frames", l[0])); err != nil {
			t.Error(err)
		}
	}
	if views["photo"] != 52 || views["shoe"] != 4 || views["none"] != 2 {
		t.Errorf("views %v", views)
	}
	m := gocv.IMRead(filepath.Join(dir, "calib-photo", "Kh.jpg"), gocv.IMReadColor)
	defer m.Close()
	if m.Cols() != visiontest.PhotoSize.X || m.Rows() != visiontest.PhotoSize.Y {
		t.Errorf("a photo is %dx%d", m.Cols(), m.Rows())
	}
}
