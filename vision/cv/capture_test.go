package cv_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
	"github.com/sabot-tables/sabot/vision/visiontest"
	"github.com/sabot-tables/sabot/vision/visiontest/simcam"
)

func TestSortedDeck(t *testing.T) {
	d := cv.SortedDeck()
	if len(d) != 52 || d[0] != "As" || d[12] != "Ks" || d[13] != "Ah" || d[51] != "Kc" {
		t.Errorf("sorted deck %v", d)
	}
}

// passage is what a capture test shows of one card: the frames of its passage.
type passFrame struct {
	tok  string  // "" for the empty window
	top  float64 // where the card's top edge is, pixels from the window's top
	blur float64 // defocus sigma added
}

// writeFrames renders frames into dir as 000.png, 001.png … (a DirSource replays them in that
// order) and returns the rendered Mats' files.
func writeFrames(t *testing.T, r *visiontest.Renderer, dir string, frames []passFrame) []string {
	t.Helper()
	asp := aspectOf(t, r)
	rng := rand.New(rand.NewPCG(9, 9))
	m := gocv.NewMat()
	defer m.Close()
	var files []string
	for i, f := range frames {
		l := visiontest.RandomShoeLook(rng, visiontest.Mild, asp)
		l.Focus = 0.3
		dy := f.top - min(l.Corners[0][1], l.Corners[1][1])
		for k := range l.Corners {
			l.Corners[k][1] += dy
		}
		l.Focus += f.blur
		s := visiontest.Subject{Token: f.tok}
		if err := r.Render(&m, visiontest.ShoeSize, s, l, rng); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("%03d.png", i))
		if !gocv.IMWrite(path, m) {
			t.Fatal("cannot write", path)
		}
		files = append(files, path)
	}
	return files
}

// same reports whether an image file holds exactly the Mat's pixels.
func same(t *testing.T, path string, m gocv.Mat) bool {
	t.Helper()
	f, err := cv.ReadImage(path)
	defer f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if f.Cols() != m.Cols() || f.Rows() != m.Rows() {
		return false
	}
	d := gocv.NewMat()
	defer d.Close()
	gocv.AbsDiff(f, m, &d)
	g := gocv.NewMat()
	defer g.Close()
	gocv.CvtColor(d, &g, gocv.ColorBGRToGray)
	return gocv.CountNonZero(g) == 0
}

// TestCaptureCalibration replays passages: each card's sharpest placed frame is kept, a card low
// in the window is not placed, the empty window ends a passage.
func TestCaptureCalibration(t *testing.T) {
	r := visiontest.NeedArt(t, "tango")
	defer r.Close()
	dir := t.TempDir()
	frames := []passFrame{
		{"", 0, 0},
		{"Qh", 150, 0}, // low in the window: not placed
		{"Qh", 30, 2.5},
		{"Qh", 20, 0}, // the sharpest placed frame
		{"Qh", 8, 1.5},
		{"", 0, 0}, {"", 0, 0}, {"", 0, 0},
		{"BACK", 25, 1},
		{"BACK", 15, 0}, // the sharpest
		{"", 0, 0}, {"", 0, 0}, {"", 0, 0},
		{"7c", 160, 0},
		{"7c", 12, 0}, // the source ends during the last passage: it is kept
	}
	files := writeFrames(t, r, dir, frames)
	src, err := cv.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var progress []string
	got, err := cv.CaptureCalibration(context.Background(), src, []string{"Qh", "BACK", "7c"}, func(tok string, done, total int) {
		progress = append(progress, fmt.Sprintf("%s %d/%d", tok, done, total))
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cv.CloseFrames(got)
	if p := strings.Join(progress, ", "); p != "Qh 1/3, BACK 2/3, 7c 3/3" {
		t.Errorf("progress %s", p)
	}
	for i, want := range []struct {
		tok  string
		file int
	}{{"Qh", 3}, {"BACK", 9}, {"7c", 14}} {
		if got[i].Token != want.tok || !same(t, files[want.file], got[i].Frame) {
			t.Errorf("frame %d: %s, want %s from %s", i, got[i].Token, want.tok, files[want.file])
		}
		if !strings.HasPrefix(got[i].File, fmt.Sprintf("%s (card %d of the pass from images in %s", want.tok, i+1, dir)) {
			t.Errorf("frame %d named %q", i, got[i].File)
		}
	}
	// --keep: the frames saved under their tokens, and named by the files.
	keep := filepath.Join(t.TempDir(), "keep")
	if err := cv.SaveCalibrationFrames(keep, got); err != nil {
		t.Fatal(err)
	}
	for _, f := range got {
		if f.File != filepath.Join(keep, f.Token+".png") || !same(t, f.File, f.Frame) {
			t.Errorf("saved %s as %s", f.Token, f.File)
		}
	}

	// A source that ends before the last card names the card it waited for.
	src2, err := cv.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src2.Close()
	_, err = cv.CaptureCalibration(context.Background(), src2, []string{"Qh", "BACK", "7c", "As"}, nil)
	if err == nil || !errors.Is(err, cv.ErrCalibration) || !strings.HasSuffix(err.Error(), fmt.Sprintf("images in %s ended after 3 of 4 cards (next: As)", dir)) {
		t.Errorf("short source: %v", err)
	}
	// A cancelled capture stops.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src3, _ := cv.OpenDir(dir)
	defer src3.Close()
	if _, err := cv.CaptureCalibration(ctx, src3, []string{"Qh"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestCaptureSimulated captures cards passing through the simulated reader camera, as a live
// calibration would: one frame of each, in which the card is placed.
func TestCaptureSimulated(t *testing.T) {
	r := visiontest.NeedArt(t, "tango")
	defer r.Close()
	cam, err := simcam.NewCameraShoe(r, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	order := []string{"As", "Td", "CUT"}
	cam.Gap(2)
	for _, tok := range order {
		if tok == "CUT" {
			cam.Pass(visiontest.CutSubject(visiontest.RandomCut(rand.New(rand.NewPCG(1, 1)))))
		} else {
			cam.Pass(visiontest.Subject{Token: tok})
		}
		cam.Gap(4)
	}
	got, err := cv.CaptureCalibration(context.Background(), cam, order, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cv.CloseFrames(got)
	if len(got) != len(order) {
		t.Fatalf("%d frames", len(got))
	}
	for i, f := range got {
		o, err := cv.FindCard(f.Frame, vision.Shoe)
		if f.Token != order[i] || err != nil || o.Corners[0].Y >= 48 || o.Corners[1].Y >= 48 || o.Corners[0].Y < 0 {
			t.Errorf("frame %d (%s): %+v %v", i, f.Token, o.Corners, err)
		}
	}
}

// TestFindCard finds the rendered card's outline in a reader frame and on a table.
func TestFindCard(t *testing.T) {
	r := visiontest.NeedArt(t, "tango")
	defer r.Close()
	asp, _ := r.Aspect()
	rng := rand.New(rand.NewPCG(5, 5))
	m := gocv.NewMat()
	defer m.Close()
	l := visiontest.RandomShoeLook(rng, visiontest.Mild, asp)
	if err := r.Render(&m, visiontest.ShoeSize, visiontest.Subject{Token: "5s"}, l, rng); err != nil {
		t.Fatal(err)
	}
	o, err := cv.FindCard(m, vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	near := func(p image.Point, q [2]float64, d float64) bool {
		dx, dy := float64(p.X)-q[0], float64(p.Y)-q[1]
		return dx*dx+dy*dy <= d*d
	}
	if !near(o.Corners[0], l.Corners[0], 4.5) || !near(o.Corners[1], l.Corners[1], 4.5) || o.Whole ||
		o.Corners[2].Y != 239 || o.Corners[3].Y != 239 || o.Index[0] != o.Corners[0] || !strings.HasPrefix(o.How, "top edge ") {
		t.Errorf("shoe outline %+v, rendered %v", o, l.Corners)
	}
	// The index corner: 40 × 60 fine pixels of 128 a card width.
	if w := float64(o.Index[1].X - o.Index[0].X); w < 0.36*o.WidthPx || w > 0.39*o.WidthPx {
		t.Errorf("index corner %v for a card %.1f px wide", o.Index, o.WidthPx)
	}
	lt := visiontest.RandomTableLook(rng, visiontest.Mild, asp)
	if err := r.Render(&m, visiontest.TableSize, visiontest.Subject{Token: "5s"}, lt, rng); err != nil {
		t.Fatal(err)
	}
	ot, err := cv.FindCard(m, vision.Table)
	if err != nil || !ot.Whole {
		t.Fatalf("table: %+v %v", ot, err)
	}
	for _, c := range lt.Corners {
		ok := false
		for _, p := range ot.Corners {
			ok = ok || near(p, c, 5)
		}
		if !ok {
			t.Errorf("rendered corner %.1f not in the table outline %v", c, ot.Corners)
		}
	}
	// Turned 45° (each side's line is fitted across the side, not in x or y), and with a corner
	// past the frame's side (the outline's edge broken there: its convex hull still spans the
	// card, and the corner may be off the frame by its rounding).
	for _, tc := range []struct {
		name   string
		onSide bool
		deg    float64
	}{{"at 45°", false, 45}, {"at 135°", false, 135}, {"corner on the frame's side", true, 30}} {
		l := visiontest.RandomTableLook(rng, visiontest.Hard, asp)
		w, h := 180.0, 180*asp
		c, sn := math.Cos(tc.deg*math.Pi/180), math.Sin(tc.deg*math.Pi/180)
		pts := [4][2]float64{{-w / 2, -h / 2}, {w / 2, -h / 2}, {w / 2, h / 2}, {-w / 2, h / 2}}
		var maxX float64
		for i, p := range pts {
			l.Corners[i] = [2]float64{p[0]*c - p[1]*sn, p[0]*sn + p[1]*c}
			maxX = max(maxX, l.Corners[i][0])
		}
		dx := 320.0
		if tc.onSide {
			dx = 644 - maxX // the rightmost corner 4 pixels past the frame's side
		}
		for i := range l.Corners {
			l.Corners[i][0] += dx
			l.Corners[i][1] += 240
		}
		if err := r.Render(&m, visiontest.TableSize, visiontest.Subject{Token: "9d"}, l, rng); err != nil {
			t.Fatal(err)
		}
		ot, err := cv.FindCard(m, vision.Table)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for _, c := range l.Corners {
			ok := false
			for _, p := range ot.Corners {
				ok = ok || near(p, c, 5)
			}
			if !ok {
				t.Errorf("%s: rendered corner %.1f not in the table outline %v", tc.name, c, ot.Corners)
			}
		}
	}
	// Photographs: a card in perspective on a light table, unevenly lit, out of focus, JPEG. Its
	// corners are found where the rectangle round its outline is not (the outline is not a
	// rectangle), and its fainter stretches of edge held by the stronger (hysteresis).
	found := 0
	for i := range 16 {
		l := visiontest.RandomPhotoLook(rng, asp)
		if err := r.Render(&m, visiontest.PhotoSize, visiontest.Subject{Token: "Qh"}, l, rng); err != nil {
			t.Fatal(err)
		}
		ot, err := cv.FindCard(m, vision.Table)
		if err != nil {
			t.Errorf("photo %d: %v", i, err)
			continue
		}
		// Within 3% of the card's width and 2 pixels: the art's own outline stands in from the
		// rendered corners by about 2% (the table frames' 5 pixels at 180 pixels wide).
		tol := 2 + 0.03*math.Hypot(l.Corners[1][0]-l.Corners[0][0], l.Corners[1][1]-l.Corners[0][1])
		ok := true
		for _, c := range l.Corners {
			in := false
			for _, p := range ot.Corners {
				in = in || near(p, c, tol)
			}
			ok = ok && in
		}
		if !ok {
			t.Errorf("photo %d: rendered corners %.1f, found %v", i, l.Corners, ot.Corners)
			continue
		}
		found++
	}
	t.Logf("photos: %d of 16 found", found)
	// The empty window: no card, and the error says so.
	if err := r.Render(&m, visiontest.ShoeSize, visiontest.Empty, l, rng); err != nil {
		t.Fatal(err)
	}
	if _, err := cv.FindCard(m, vision.Shoe); !errors.Is(err, cv.ErrNoCard) || !strings.HasPrefix(err.Error(), "vision: no card outline: ") {
		t.Errorf("empty window: %v", err)
	}
	empty := gocv.NewMat()
	defer empty.Close()
	if _, err := cv.FindCard(empty, vision.Shoe); !errors.Is(err, cv.ErrFrame) {
		t.Errorf("empty Mat: %v", err)
	}
}

// TestWriteProfileReport draws the rendered fixture's profile: one whole-card template per class
// at the sheet's size, headed by the profile's facts.
func TestWriteProfileReport(t *testing.T) {
	_, p := rendered(t)
	path := filepath.Join(t.TempDir(), "report.png")
	if err := cv.WriteProfileReport(path, p); err != nil {
		t.Fatal(err)
	}
	m, err := cv.ReadImage(path)
	defer m.Close()
	if err != nil {
		t.Fatal(err)
	}
	const tw, gap = 96, 6
	th := int(math.Round(p.CardLength*128)) * tw / 128
	tileW, tileH := tw+2*gap, th+gap+16
	// The header: each fact (the notes among them) on lines of 18 pixels, wrapped to the sheet's
	// width at about 9 pixels a character: at least a line a fact, at most twice its share.
	facts := cv.ProfileFacts(p)
	perLine := 13*tileW/9 - 2
	minH, maxH := 2*gap, 2*gap
	for _, f := range facts {
		n := len([]rune(f))
		minH += 18
		maxH += 18 * (2*((n+perLine-1)/perLine) + 1)
	}
	if m.Cols() != 13*tileW || m.Rows() < 5*tileH+minH || m.Rows() > 5*tileH+maxH {
		t.Errorf("report %dx%d, tiles %dx%d, header of %d facts between %d and %d pixels", m.Cols(), m.Rows(), tileW, tileH, len(facts), minH, maxH)
	}
	top := m.Rows() - 5*tileH
	// Every card's and the back's template is drawn: its tile is not the background.
	for row := range 5 {
		for col := range 13 {
			if row == 4 && col >= 2 {
				break
			}
			roi := m.Region(image.Rect(col*tileW+gap, top+row*tileH+gap, col*tileW+gap+tw, top+row*tileH+gap+th))
			mean, sd := gocv.NewMat(), gocv.NewMat()
			gocv.MeanStdDev(roi, &mean, &sd)
			if s := sd.GetDoubleAt(0, 0); s < 10 && !(row == 4 && col == 0) {
				t.Errorf("tile %d,%d is plain (sd %.1f)", row, col, s)
			}
			mean.Close()
			sd.Close()
			roi.Close()
		}
	}
	if len(facts) < 3 || !strings.HasPrefix(facts[0], `deck "tango", camera test 320x240, from shoe frames, one pass, created `) ||
		facts[1] != fmt.Sprintf("card width %.1f px, card length %.3f card widths", p.CardWidthPx, p.CardLength) {
		t.Errorf("facts %q", facts)
	}
	sh := p.Rules["shoe"]
	want := fmt.Sprintf("shoe: distance ≤ %.3f, each part ≤ %.3f and lead ≥ %.2f; estimated false accepts ", sh.MaxDistance, sh.MaxPart, sh.MinLead)
	if !strings.HasPrefix(facts[2], want) || !strings.HasSuffix(facts[2], fmt.Sprintf("read in calibration %.1f%% (%d perturbed frames, 0 wrong)", 100*sh.ReadRate, sh.Samples)) {
		t.Errorf("shoe rule %q, want %q…", facts[2], want)
	}
}

// How close the table's outline comes to the card's rendered corners, over every tuning design:
// table frames (any rotation, felt) and photographs (perspective, a light table, uneven light,
// JPEG), in % of the card's width. The art's own outline stands in from the rendered corners by
// up to 3%, so the floors are on the 90th percentile and on the cards not found; and on the
// spread from frame to frame of each corner's offset along and across the card (what a template
// cannot learn: a design's constant offset is in its templates).
func TestFindCardAccuracy(t *testing.T) {
	var all, spreads []float64
	missed := 0
	for _, d := range visiontest.Tuning {
		r := visiontest.NeedArt(t, d)
		asp, _ := r.Aspect()
		rng := rand.New(rand.NewPCG(7, 7))
		m := gocv.NewMat()
		var errs []float64
		var offs [4][][2]float64 // each rendered corner's found corner, along and across the card
		for i := range 24 {
			var l visiontest.Look
			size := visiontest.TableSize
			if i%2 == 0 {
				l = visiontest.RandomTableLook(rng, visiontest.Hard, asp)
			} else {
				l, size = visiontest.RandomPhotoLook(rng, asp), visiontest.PhotoSize
			}
			tok := []string{"As", "Kh", "Qd", "10c", "7s", "Jh"}[i%6]
			if err := r.Render(&m, size, visiontest.Subject{Token: tok}, l, rng); err != nil {
				t.Fatal(err)
			}
			o, err := cv.FindCard(m, vision.Table)
			if err != nil {
				t.Logf("%s frame %d (%s) not found: %v", d, i, tok, err)
				missed++
				continue
			}
			wd := math.Hypot(l.Corners[1][0]-l.Corners[0][0], l.Corners[1][1]-l.Corners[0][1])
			ld := math.Hypot(l.Corners[3][0]-l.Corners[0][0], l.Corners[3][1]-l.Corners[0][1])
			// The card's own axes: a corner's offset along its width and its length.
			ex := [2]float64{(l.Corners[1][0] - l.Corners[0][0]) / wd, (l.Corners[1][1] - l.Corners[0][1]) / wd}
			ey := [2]float64{(l.Corners[3][0] - l.Corners[0][0]) / ld, (l.Corners[3][1] - l.Corners[0][1]) / ld}
			for ci, c := range l.Corners {
				bd, dx, dy := math.Inf(1), 0.0, 0.0
				for _, p := range o.Corners {
					if e := math.Hypot(float64(p.X)-c[0], float64(p.Y)-c[1]); e < bd {
						bd, dx, dy = e, float64(p.X)-c[0], float64(p.Y)-c[1]
					}
				}
				errs = append(errs, 100*bd/wd)
				if 100*bd/wd > 10 {
					continue // another outline than the card's: counted above, not a jitter
				}
				offs[ci] = append(offs[ci], [2]float64{100 * (dx*ex[0] + dy*ex[1]) / wd, 100 * (dx*ey[0] + dy*ey[1]) / wd})
			}
		}
		m.Close()
		r.Close()
		// The spread: the RMS of each corner's offsets about their mean.
		var ss float64
		n := 0
		for _, o := range offs {
			var mx, my float64
			for _, p := range o {
				mx, my = mx+p[0]/float64(len(o)), my+p[1]/float64(len(o))
			}
			for _, p := range o {
				ss += (p[0]-mx)*(p[0]-mx) + (p[1]-my)*(p[1]-my)
				n++
			}
		}
		slices.Sort(errs)
		if len(errs) > 0 && n > 0 {
			spreads = append(spreads, math.Sqrt(ss/float64(n)))
			t.Logf("%-24s corners off by (%% of the width): median %.2f, 90th percentile %.2f, most %.2f; spread %.2f", d, errs[len(errs)/2], errs[len(errs)*9/10], errs[len(errs)-1], spreads[len(spreads)-1])
		}
		all = append(all, errs...)
	}
	switch {
	case len(all) == 0:
		t.Fatalf("no card found in any of the %d frames", 24*len(visiontest.Tuning))
	case len(spreads) == 0:
		t.Fatalf("%d corners found, none within 10%% of the card's width of a rendered corner", len(all))
	}
	slices.Sort(all)
	slices.Sort(spreads)
	p90, p99, spread := all[len(all)*9/10], all[len(all)*99/100], spreads[len(spreads)/2]
	t.Logf("every design: median %.2f, 90th percentile %.2f, 99th %.2f; %d of %d cards not found; spread: median %.2f, most %.2f", all[len(all)/2], p90, p99, missed, 24*len(visiontest.Tuning), spread, spreads[len(spreads)-1])
	// Measured 0.58 (each side the outermost gradient peak at the outline's level: 1.04).
	if spread > 0.75 {
		t.Errorf("the corners' spread from frame to frame is %.2f%% of the card's width, the median over the designs (at most 0.75%%)", spread)
	}
	// Measured 1, a photograph ("the outline's sides are not straight").
	if missed > 2 {
		t.Errorf("%d cards not found (at most 2)", missed)
	}
	// Measured 2.89 and 5.44 (tigullio-international's). Before the outer step was looked for,
	// 3.23 and 7.51: oxygen's corners stood 6.5% inside the card, on its white rim's inner edge
	// (table.go refine).
	if p99 > 6.5 {
		t.Errorf("the corners' 99th percentile is %.2f%% of the card's width (at most 6.5%%): an outline on a printed border inside the card?", p99)
	}
	if p90 > 3.7 {
		t.Errorf("the corners' 90th percentile is %.2f%% of the card's width (at most 3.7%%)", p90)
	}
}
