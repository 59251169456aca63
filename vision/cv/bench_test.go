package cv_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
	"github.com/sabot-tables/sabot/vision/visiontest"
)

// benchFrames returns the fixture's frames of a view, read into memory.
func benchFrames(b *testing.B, view vision.View) []string {
	dir, _ := rendered(b)
	var out []string
	for _, l := range visiontest.Labels(b, filepath.Join(dir, "frames")) {
		if l.View == view && l.Group != "none" {
			out = append(out, filepath.Join(dir, "frames", l.File))
		}
	}
	return out
}

// benchView reads the fixture's frames of a view, one a loop, and reports the median time of a
// frame (issue 17: shoe ≤ 5 ms, table ≤ 20 ms, one core; recognition runs on one goroutine).
func benchView(b *testing.B, view vision.View) {
	_, p := rendered(b)
	rec, err := cv.New(p, view)
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	files := benchFrames(b, view)
	mats := make([]gocv.Mat, len(files))
	for i, f := range files {
		if mats[i], err = cv.ReadImage(f); err != nil {
			b.Fatal(err)
		}
		defer mats[i].Close()
	}
	var times []time.Duration
	b.ResetTimer()
	i := 0
	for b.Loop() {
		res, err := rec.Recognize(mats[i%len(mats)])
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, res.Elapsed)
		i++
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/1e6, "median-ms")
	b.ReportMetric(float64(times[len(times)*99/100])/1e6, "p99-ms")
}

func BenchmarkShoeFrame(b *testing.B)  { benchView(b, vision.Shoe) }
func BenchmarkTableFrame(b *testing.B) { benchView(b, vision.Table) }

// BenchmarkHeldOut renders designs of the held-out set (visiontest.HeldOut: never used while
// the recognizer was changed), calibrates each from its pass through the reader, from that pass
// and a second turned end for end, and from its photographs, and reads its frames: the figures
// of decks Sabot was not tuned on, printed (not logged: a benchmark's log is cut short). It
// reads SABOT_HELDOUT designs spread over the set (default 3; "all" for every one).
func BenchmarkHeldOut(b *testing.B) {
	n := 3
	switch s := os.Getenv("SABOT_HELDOUT"); {
	case s == "all":
		n = len(visiontest.HeldOut)
	case s != "":
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("SABOT_HELDOUT=%q: want a count or all", s)
		}
		n = min(v, len(visiontest.HeldOut))
	}
	total := map[string]*vision.Tally{}
	var far []string
	for k := range n {
		deck := visiontest.HeldOut[k*len(visiontest.HeldOut)/n]
		r := visiontest.NeedArt(b, deck)
		dir := b.TempDir()
		err := r.WriteSet(context.Background(), dir, visiontest.SetSpec{Shoe: 3, Table: 1, Photo: 1, Other: 6, Photos: true, Seed: 17})
		if err == nil {
			// The same pass again and a second one turned end for end (the same seed renders
			// the same first pass; the frames above stay as they were).
			err = r.WriteSet(context.Background(), filepath.Join(dir, "two"), visiontest.SetSpec{Turned: true, Seed: 17})
		}
		r.Close()
		if err != nil {
			b.Fatal(err)
		}
		for _, pass := range []string{"calib", "calib+turned", "calib-photo"} {
			dirs := []string{filepath.Join(dir, pass)}
			if pass == "calib+turned" {
				dirs = []string{filepath.Join(dir, "calib"), filepath.Join(dir, "two", "calib-turned")}
			}
			p, err := cv.CalibrateDirs(context.Background(), dirs, cv.CalibrateOptions{Deck: deck, Camera: "bench"})
			var e *cv.Evaluation
			if err != nil {
				// A refused calibration reads none of its design's frames: they count as
				// rejected, so that the totals are what a technician would get.
				fmt.Printf("held-out %-22s %-12s calibration refused (its frames count as rejected): %v\n", deck, pass, err)
				if e, err = cv.Evaluate(filepath.Join(dir, "frames"), nil, nil); err != nil {
					b.Fatal(err)
				}
			} else {
				e = evaluate(b, filepath.Join(dir, "frames"), p)
			}
			for _, g := range e.Groups {
				// The shoe's pass reads the shoe and table frames; the photographs read photos.
				if (pass != "calib-photo") == (g.Group == "photo") {
					continue
				}
				fmt.Printf("held-out %-22s %-12s %-5s %3d frames %5.1f%% read, %d wrong, %d rejected (p50 %v)\n", deck, pass, g.Group, g.Frames(), 100*g.Accuracy(), g.Wrong, g.Reject, g.Quantile(0.5).Round(10*time.Microsecond))
				key := g.Group
				if pass == "calib+turned" {
					key += ", two passes"
				}
				t := total[key]
				if t == nil {
					t = &vision.Tally{Group: g.Group}
					total[key] = t
				}
				t.Correct += g.Correct
				t.Wrong += g.Wrong
				t.Reject += g.Reject
			}
			for _, f := range e.Fits {
				if (pass != "calib-photo") == (f.Group == "photo") {
					continue
				}
				// Whether calibration's trials stand for an unseen design's frames: they put
				// cv.ExpectedBeyond of their own beyond the threshold.
				fmt.Printf("held-out %-22s %-12s %-5s labelled class beyond the threshold in %d of %d frames (%.1f%%; the trials %.0f%%)\n", deck, pass, f.Group, f.Beyond, f.Measured, 100*float64(f.Beyond)/float64(max(1, f.Measured)), 100*cv.ExpectedBeyond)
			}
			if p == nil {
				continue
			}
			for v, rule := range p.Rules {
				far = append(far, fmt.Sprintf("%s/%s %s %.1e", deck, pass, v, rule.FalseAccept))
			}
		}
	}
	for _, g := range []string{"shoe", "table", "photo", "none", "shoe, two passes", "table, two passes", "none, two passes"} {
		if t := total[g]; t != nil {
			fmt.Printf("held-out, %d designs: %-17s %4d frames %5.1f%% read, %d wrong, %d rejected\n", n, g, t.Frames(), 100*t.Accuracy(), t.Wrong, t.Reject)
			m := strings.ReplaceAll(strings.ReplaceAll(g, ", two passes", "-2pass"), " ", "")
			b.ReportMetric(100*t.Accuracy(), m+"-read-%")
			b.ReportMetric(float64(t.Wrong), m+"-wrong")
		}
	}
	fmt.Printf("held-out: estimated false accepts a frame, by calibration: %v\n", far)
	for b.Loop() {
	}
}

func evaluate(b *testing.B, dir string, p *calibration.VisionProfile) *cv.Evaluation {
	// A view the profile has no rule for (the shoe's, from photographs) has its frames counted
	// as rejected.
	e, err := cv.Evaluate(dir, viewRecognizer(b, p, vision.Shoe), viewRecognizer(b, p, vision.Table))
	if err != nil {
		b.Fatal(err)
	}
	return e
}
