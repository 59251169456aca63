package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
	"github.com/sabot-tables/sabot/vision/visiontest"
)

func init() {
	addCommand(command{name: "vision", summary: "vision read|eval|render: read card frames with a profile, score a labelled set, render frames", run: runVision})
}

func runVision(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "vision", map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"read":   visionRead,
		"eval":   visionEval,
		"render": visionRender,
	}, args, stdin, stdout, stderr)
}

// readLine is one line of `sabot vision read`.
type readLine struct {
	File       string  `json:"file"`
	Card       *string `json:"card"`
	Confidence float64 `json:"confidence"`
	Reject     string  `json:"reject,omitempty"`
	Error      string  `json:"error,omitempty"`
	View       string  `json:"view,omitempty"`
	MS         float64 `json:"ms"`
}

// visionRead prints one JSON line per image file: the card read, or why not. A file that cannot
// be read at all is a line with "error", and the exit status is 1 once all files are done. With
// --explain it prints each frame's decision trace instead, for a person.
func visionRead(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("vision read", "--profile P [--view auto|shoe|table] [--explain [--map DIR]] FILE...", stderr)
	profile := fs.String("profile", "", "vision profile (from sabot calibrate vision)")
	view := fs.String("view", "auto", "shoe, table, or auto: shoe when a frame is the profile camera's size, table otherwise")
	explain := fs.Bool("explain", false, "print how each frame was decided: the outline found, the five best classes, the rule and the decision")
	mapDir := fs.String("map", "", "with --explain: also write DIR/FILE.map.png, each part of the two best classes as compared: the frame, the template, the misfit")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *mapDir != "" && !*explain {
		return fmt.Errorf("vision read: --map needs --explain")
	}
	if *mapDir != "" {
		if err := os.MkdirAll(*mapDir, 0o755); err != nil {
			return fmt.Errorf("vision read: --map: %w", err)
		}
	}
	if *profile == "" || fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	if *view != "auto" && *view != "shoe" && *view != "table" {
		return fmt.Errorf("vision read: --view %q: want auto, shoe or table", *view)
	}
	p, err := calibration.LoadVision(*profile)
	if err != nil {
		return err
	}
	// The recognizers of the views asked for that the profile can read (a profile made from
	// photographs reads table frames only).
	var shoe, table *cv.Recognizer
	for _, v := range []vision.View{vision.Shoe, vision.Table} {
		if *view != "auto" && *view != v.String() {
			continue
		}
		if _, ok := p.Rules[v.String()]; !ok && *view == "auto" {
			continue
		}
		r, err := cv.New(p, v)
		if err != nil {
			return fmt.Errorf("vision read: %s: %w", *profile, err)
		}
		defer r.Close()
		if v == vision.Shoe {
			shoe = r
		} else {
			table = r
		}
	}
	enc := json.NewEncoder(stdout)
	failed := 0
	for _, file := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		res, v, tr, err := cv.ReadFile(file, shoe, table, *explain)
		if *explain {
			if err != nil {
				failed++
				fmt.Fprintf(stdout, "%s: error: %v\n\n", file, err)
				continue
			}
			fmt.Fprintf(stdout, "%s: %v\n%s", file, res, tr)
			if *mapDir != "" && tr.Map != nil {
				out := filepath.Join(*mapDir, filepath.Base(file)+".map.png")
				if err := writePNG(out, tr.Map); err != nil {
					return fmt.Errorf("vision read: --map: %w", err)
				}
				fmt.Fprintf(stdout, "map: %s\n", out)
			}
			fmt.Fprintln(stdout)
			continue
		}
		line := readLine{File: file}
		if err != nil {
			failed++
			line.Error = err.Error()
			line.MS = round3(float64(time.Since(start)) / float64(time.Millisecond))
		} else {
			line.View = v.String()
			line.Confidence = round3(res.Confidence)
			line.MS = round3(float64(res.Elapsed) / float64(time.Millisecond))
			if t := res.Token(); t != "" {
				line.Card = &t
			} else {
				line.Reject = res.Reason
			}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("vision read: %d of %d files could not be read", failed, fs.NArg())
	}
	return nil
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// visionEval reads a labelled frame set and prints correct / wrong / rejected per view, with the
// time per frame, and writes a contact sheet of the frames read wrong or rejected.
func visionEval(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("vision eval", "--profile P --frames DIR [--sheet misread.png]", stderr)
	profile := fs.String("profile", "", "vision profile (from sabot calibrate vision)")
	frames := fs.String("frames", "", "directory with labels.csv (file,card,view) and the frames")
	sheet := fs.String("sheet", "misread.png", "contact sheet of the frames read wrong or rejected (PNG)")
	list := fs.Bool("list", false, "also list every frame read wrong or rejected")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *profile == "" || *frames == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	p, err := calibration.LoadVision(*profile)
	if err != nil {
		return err
	}
	// A profile made from photographs has no shoe rule: its shoe frames are counted unread.
	var shoe, table *cv.Recognizer
	for _, v := range []vision.View{vision.Shoe, vision.Table} {
		if _, ok := p.Rules[v.String()]; !ok {
			continue
		}
		r, err := cv.New(p, v)
		if err != nil {
			return fmt.Errorf("vision eval: %s: %w", *profile, err)
		}
		defer r.Close()
		if v == vision.Shoe {
			shoe = r
		} else {
			table = r
		}
	}
	e, err := cv.Evaluate(*frames, shoe, table)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s with %s (deck %q, camera %s)\n", *frames, *profile, p.Deck, p.Camera)
	wrong := 0
	for _, g := range e.Groups {
		if _, err := g.WriteTo(stdout); err != nil {
			return err
		}
		wrong += g.Wrong
	}
	for _, f := range e.Fits {
		if _, err := f.WriteTo(stdout); err != nil {
			return err
		}
	}
	for _, t := range e.Rejections {
		if _, err := t.WriteTo(stdout); err != nil {
			return err
		}
	}
	bad := e.Misread()
	if *list {
		for _, f := range bad {
			kind := "rejected"
			if f.Result.Kind != vision.Reject {
				kind = "WRONG"
			}
			fmt.Fprintf(stdout, "  %-8s %s (%s) is %s, read %v\n", kind, f.File, f.Group, f.Token(), f.Result)
		}
	}
	wrote, err := e.WriteContactSheet(*sheet)
	if err != nil {
		return err
	}
	if wrote {
		fmt.Fprintf(stdout, "%d frames read wrong or rejected: %s\n", len(bad), *sheet)
	} else {
		fmt.Fprintln(stdout, "every frame read correctly")
	}
	if wrong > 0 {
		return fmt.Errorf("vision eval: %d wrong answers", wrong)
	}
	return nil
}

// visionRender writes rendered frames of a deck design: a calibration pass (--calib DIR) and a
// labelled test set (--frames DIR), or a whole set in the layout of ../shared/vision-dev (--set
// DIR: calib/, optionally calib-turned/ and calib-photo/, and frames/ with shoe, table and photo
// frames).
func visionRender(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("vision render", "--deck NAME ([--calib DIR [--either-end]] [--frames DIR] | --set DIR [--turned] [--photos]) [--shoe N] [--table N] [--photo N] [--seed S]", stderr)
	deck := fs.String("deck", "", "card design (see --list)")
	listDecks := fs.Bool("list", false, "list the installed card designs")
	calib := fs.String("calib", "", "write a calibration pass here (As.jpg … Kc.jpg, CUT.jpg, BACK.jpg)")
	eitherEnd := fs.Bool("either-end", false, "show each card of the calibration pass at either end, at random (a shuffled deck), not all at the top end (a new deck)")
	framesDir := fs.String("frames", "", "write a labelled test set here (labels.csv and frames)")
	set := fs.String("set", "", "write a whole set here: calib/, frames/ (labels.csv, truth.csv), and with --turned calib-turned/, with --photos calib-photo/")
	turned := fs.Bool("turned", false, "--set: also a second calibration pass, every card turned end for end (calib-turned/)")
	photos := fs.Bool("photos", false, "--set: also one photograph of each card on a light table (calib-photo/)")
	nShoe := fs.Int("shoe", 3, "shoe frames of each card in the test set")
	nTable := fs.Int("table", 1, "table frames of each card in the test set")
	nPhoto := fs.Int("photo", 0, "--set: photographs of each card on a light table in the test set (view photo)")
	nOther := fs.Int("other", 6, "cut card, back and empty-window frames each in the test set")
	seed := fs.Uint64("seed", 1, "random seed: the same seed gives the same frames")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *listDecks {
		for _, d := range visiontest.Decks() {
			fmt.Fprintf(stdout, "%-24s %s\n", d.Name, d.File)
		}
		return nil
	}
	if *deck == "" || (*calib == "" && *framesDir == "" && *set == "") || (*set != "" && (*calib != "" || *framesDir != "")) || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if *set == "" && (*turned || *photos || *nPhoto > 0) {
		return fmt.Errorf("vision render: --turned, --photos and --photo are for --set")
	}
	r, err := visiontest.NewRenderer(*deck)
	if err != nil {
		return err
	}
	defer r.Close()
	if *set != "" {
		spec := visiontest.SetSpec{Shoe: *nShoe, Table: *nTable, Photo: *nPhoto, Other: *nOther, Turned: *turned, Photos: *photos, EitherEnd: *eitherEnd, Seed: *seed}
		if err := r.WriteSet(ctx, *set, spec); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "set of %s: %s\n", *deck, *set)
		return nil
	}
	r.CalibEitherEnd = *eitherEnd
	rng := rand.New(rand.NewPCG(*seed, 0x5ab07))
	if *calib != "" {
		if err := r.WriteCalibrationContext(ctx, *calib, rng); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "calibration pass of %s: %s\n", *deck, *calib)
	}
	if *framesDir != "" {
		n, err := visiontest.WriteFrames(ctx, r, *framesDir, visiontest.FrameSet{Shoe: *nShoe, Table: *nTable, Other: *nOther}, rng)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d labelled frames of %s: %s\n", n, *deck, filepath.Join(*framesDir, "labels.csv"))
	}
	return nil
}

// writePNG writes img to path as a PNG, whole or not at all.
func writePNG(path string, img image.Image) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
