package visiontest

import (
	"context"
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/shoe/card"
)

// PhotoSize is the size of a technician's photograph (a webcam over a table).
var PhotoSize = image.Pt(800, 600)

// RandomPhotoLook places a whole card on a light table, as a webcam photographs it: any
// rotation, anywhere in the frame, 120…330 pixels wide, in perspective, a little out of focus,
// unevenly lit, JPEG-compressed hard.
func RandomPhotoLook(rng *rand.Rand, aspect float64) Look {
	var l Look
	// Light tables: greys, beige, pale wood, off-white.
	tables := []color.RGBA{{170, 170, 168, 0}, {200, 198, 192, 0}, {215, 205, 185, 0}, {190, 160, 120, 0}, {225, 225, 220, 0}, {150, 155, 160, 0}}
	t := tables[rng.IntN(len(tables))]
	k := between(rng, 0.9, 1.05)
	randomLight(rng, Hard, &l, color.RGBA{uint8(float64(t.R) * k), uint8(float64(t.G) * k), uint8(float64(t.B) * k), 0})
	l.Texture = between(rng, 3, 12)
	l.Focus = between(rng, 0.6, 1.8)
	l.Gradient = between(rng, 0, 0.45)
	l.JPEG = 50 + rng.IntN(41)
	w := between(rng, 120, 330)
	h := w * aspect
	a := between(rng, 0, 2*math.Pi)
	half := math.Hypot(w, h) / 2
	cx := between(rng, half, float64(PhotoSize.X)-half)
	cy := between(rng, min(half, float64(PhotoSize.Y)/2), max(float64(PhotoSize.Y)-half, float64(PhotoSize.Y)/2))
	c, sn := math.Cos(a), math.Sin(a)
	pts := [4][2]float64{{-w / 2, -h / 2}, {w / 2, -h / 2}, {w / 2, h / 2}, {-w / 2, h / 2}}
	for i, p := range pts {
		jx, jy := between(rng, -0.06, 0.06)*w, between(rng, -0.06, 0.06)*w
		l.Corners[i] = [2]float64{cx + p[0]*c - p[1]*sn + jx, cy + p[0]*sn + p[1]*c + jy}
	}
	l.OtherEnd = rng.IntN(2) == 1
	return l
}

// SetSpec says what WriteSet renders.
type SetSpec struct {
	// Shoe, Table and Photo are how many frames of each of the 52 cards each view gets; Other
	// how many cut-card, back and empty-window (shoe) frames each.
	Shoe, Table, Photo, Other int
	// Turned also writes calib-turned/: the deck passed again, every card turned end for end.
	Turned bool
	// Photos also writes calib-photo/: one photograph of each card on a light table.
	Photos bool
	// EitherEnd shows the calibration pass's cards at either end (a shuffled deck).
	EitherEnd bool
	Seed      uint64
}

// WriteSet renders a labelled set of r's deck into dir: calib/ (a calibration pass through the
// reader), optionally calib-turned/ and calib-photo/, and frames/ with labels.csv (file,card,view;
// views shoe, table, photo and none) and truth.csv (file, which end of the card is up, its four
// corners), the layout of ../shared/vision-dev.
func (r *Renderer) WriteSet(ctx context.Context, dir string, spec SetSpec) error {
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5e7))
	r.CalibEitherEnd = spec.EitherEnd
	if err := r.WriteCalibration(filepath.Join(dir, "calib"), rng); err != nil {
		return err
	}
	if spec.Turned {
		if err := r.writePass(filepath.Join(dir, "calib-turned"), rng, func(l *Look) { l.OtherEnd = true }); err != nil {
			return err
		}
	}
	if spec.Photos {
		if err := r.writePhotos(filepath.Join(dir, "calib-photo"), rng); err != nil {
			return err
		}
	}
	return r.writeFrames(ctx, filepath.Join(dir, "frames"), spec, rng)
}

// writePass writes a calibration pass of mild shoe frames, each look changed by alter.
func (r *Renderer) writePass(dir string, rng *rand.Rand, alter func(*Look)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("visiontest: %w", err)
	}
	asp, err := r.aspect()
	if err != nil {
		return err
	}
	m := gocv.NewMat()
	defer m.Close()
	for _, tok := range append(tokens(), "CUT", "BACK") {
		s := Subject{Token: tok}
		if tok == "CUT" {
			s = CutSubject(RandomCut(rng))
		}
		l := RandomShoeLook(rng, Mild, asp)
		alter(&l)
		clearOfTop(&l)
		clearOfSides(&l)
		if err := r.Render(&m, ShoeSize, s, l, rng); err != nil {
			return err
		}
		if !gocv.IMWrite(filepath.Join(dir, tok+".jpg"), m) {
			return fmt.Errorf("visiontest: cannot write %s", filepath.Join(dir, tok+".jpg"))
		}
	}
	return nil
}

// writePhotos writes one photograph of each card (and the back) on a light table.
func (r *Renderer) writePhotos(dir string, rng *rand.Rand) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("visiontest: %w", err)
	}
	asp, err := r.aspect()
	if err != nil {
		return err
	}
	m := gocv.NewMat()
	defer m.Close()
	for _, tok := range append(tokens(), "BACK") {
		l := RandomPhotoLook(rng, asp)
		inView(&l, PhotoSize, photoMargin)
		if err := r.Render(&m, PhotoSize, Subject{Token: tok}, l, rng); err != nil {
			return err
		}
		if !gocv.IMWriteWithParams(filepath.Join(dir, tok+".jpg"), m, []int{gocv.IMWriteJpegQuality, 95}) {
			return fmt.Errorf("visiontest: cannot write %s", filepath.Join(dir, tok+".jpg"))
		}
	}
	return nil
}

// inView scales a look's card down until it fits a frame of the given size with margin pixels
// to spare, if it does not, then moves it until its corners are that far inside: a technician
// photographs the whole card to calibrate from, and calibration refuses a photograph that cuts
// it.
func inView(l *Look, size image.Point, margin float64) {
	extent := [2]float64{float64(size.X), float64(size.Y)}
	bounds := func() (lo, hi [2]float64) {
		lo, hi = l.Corners[0], l.Corners[0]
		for _, c := range l.Corners {
			for a := range 2 {
				lo[a], hi[a] = min(lo[a], c[a]), max(hi[a], c[a])
			}
		}
		return lo, hi
	}
	lo, hi := bounds()
	k := 1.0
	for a := range 2 {
		k = min(k, (extent[a]-2*margin)/(hi[a]-lo[a]))
	}
	for i := range l.Corners {
		for a := range 2 {
			m := (lo[a] + hi[a]) / 2
			l.Corners[i][a] = m + k*(l.Corners[i][a]-m)
		}
	}
	lo, hi = bounds()
	for a := range 2 {
		d := 0.0
		switch {
		case lo[a] < margin:
			d = margin - lo[a]
		case hi[a] > extent[a]-margin:
			d = extent[a] - margin - hi[a]
		}
		for i := range l.Corners {
			l.Corners[i][a] += d
		}
	}
}

// photoMargin is how far inside a calibration photograph's edges inView keeps the card (pixels).
const photoMargin = 10

func tokens() []string {
	var out []string
	for _, c := range card.Deck() {
		out = append(out, c.String())
	}
	return out
}

// writeFrames renders the test frames.
func (r *Renderer) writeFrames(ctx context.Context, dir string, spec SetSpec, rng *rand.Rand) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("visiontest: %w", err)
	}
	asp, err := r.aspect()
	if err != nil {
		return err
	}
	type item struct {
		s           Subject
		label, view string
	}
	var items []item
	for _, c := range card.Deck() {
		for range spec.Shoe {
			items = append(items, item{CardSubject(c), c.String(), "shoe"})
		}
		for range spec.Table {
			items = append(items, item{CardSubject(c), c.String(), "table"})
		}
		for range spec.Photo {
			items = append(items, item{CardSubject(c), c.String(), "photo"})
		}
	}
	for range spec.Other {
		items = append(items, item{CutSubject(RandomCut(rng)), "CUT", "shoe"})
		items = append(items, item{Subject{Token: "BACK"}, "BACK", "shoe"})
		items = append(items, item{Empty, "NONE", "none"})
	}
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	lf, err := os.Create(filepath.Join(dir, "labels.csv"))
	if err != nil {
		return fmt.Errorf("visiontest: %w", err)
	}
	defer lf.Close()
	tf, err := os.Create(filepath.Join(dir, "truth.csv"))
	if err != nil {
		return fmt.Errorf("visiontest: %w", err)
	}
	defer tf.Close()
	lw, tw := csv.NewWriter(lf), csv.NewWriter(tf)
	lw.Write([]string{"file", "card", "view"})
	tw.Write([]string{"file", "end", "x0", "y0", "x1", "y1", "x2", "y2", "x3", "y3"})
	m := gocv.NewMat()
	defer m.Close()
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		size, look := ShoeSize, RandomShoeLook(rng, Hard, asp)
		switch it.view {
		case "table":
			size, look = TableSize, RandomTableLook(rng, Hard, asp)
		case "photo":
			size, look = PhotoSize, RandomPhotoLook(rng, asp)
		}
		if err := r.Render(&m, size, it.s, look, rng); err != nil {
			return err
		}
		name := fmt.Sprintf("f%05d.jpg", i)
		// The JPEG compression is part of the look: write the decoded frame losslessly.
		if !gocv.IMWriteWithParams(filepath.Join(dir, name), m, []int{gocv.IMWriteJpegQuality, 100}) {
			return fmt.Errorf("visiontest: cannot write %s", filepath.Join(dir, name))
		}
		lw.Write([]string{name, it.label, it.view})
		end := "0"
		if look.OtherEnd {
			end = "1"
		}
		rec := []string{name, end}
		for _, p := range look.Corners {
			rec = append(rec, fmt.Sprintf("%.2f", p[0]), fmt.Sprintf("%.2f", p[1]))
		}
		tw.Write(rec)
	}
	lw.Flush()
	tw.Flush()
	if err := lw.Error(); err != nil {
		return fmt.Errorf("visiontest: %w", err)
	}
	return tw.Error()
}
