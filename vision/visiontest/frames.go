package visiontest

import (
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/shoe/card"
)

// FrameSet says how many frames WriteFrames makes: Shoe and Table frames of each of the 52
// cards, and Other frames each of the cut card, the back and the empty window.
type FrameSet struct {
	Shoe, Table, Other int
}

// WriteFrames renders a labelled test set of r's deck into dir: frames f00000.jpg … in random
// order and labels.csv (file,card,view), the layout of ../shared/vision-dev. It returns how many
// frames it wrote.
func WriteFrames(ctx context.Context, r *Renderer, dir string, set FrameSet, rng *rand.Rand) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("visiontest: %w", err)
	}
	asp, err := r.aspect()
	if err != nil {
		return 0, err
	}
	type item struct {
		s     Subject
		label string
		view  string
	}
	var items []item
	for _, c := range card.Deck() {
		for range set.Shoe {
			items = append(items, item{CardSubject(c), c.String(), "shoe"})
		}
		for range set.Table {
			items = append(items, item{CardSubject(c), c.String(), "table"})
		}
	}
	for range set.Other {
		items = append(items, item{CutSubject(RandomCut(rng)), "CUT", "shoe"})
		items = append(items, item{Subject{Token: "BACK"}, "BACK", "shoe"})
		items = append(items, item{Empty, "NONE", "none"})
	}
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	f, err := os.Create(filepath.Join(dir, "labels.csv"))
	if err != nil {
		return 0, fmt.Errorf("visiontest: %w", err)
	}
	defer f.Close()
	w := csv.NewWriter(f)
	w.Write([]string{"file", "card", "view"})
	m := gocv.NewMat()
	defer m.Close()
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return i, err
		}
		size, look := ShoeSize, RandomShoeLook(rng, Hard, asp)
		if it.view == "table" {
			size, look = TableSize, RandomTableLook(rng, Hard, asp)
		}
		if err := r.Render(&m, size, it.s, look, rng); err != nil {
			return i, err
		}
		name := fmt.Sprintf("f%05d.jpg", i)
		// The JPEG compression is part of the look: write the decoded frame losslessly.
		if !gocv.IMWriteWithParams(filepath.Join(dir, name), m, []int{gocv.IMWriteJpegQuality, 100}) {
			return i, fmt.Errorf("visiontest: cannot write %s", filepath.Join(dir, name))
		}
		w.Write([]string{name, it.label, it.view})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return len(items), fmt.Errorf("visiontest: %w", err)
	}
	return len(items), f.Close()
}
