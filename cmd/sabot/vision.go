package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"time"

	"gocv.io/x/gocv"

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
// be read at all is a line with "error", and the exit status is 1 once all files are done.
func visionRead(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("vision read", "--profile P [--view auto|shoe|table] FILE...", stderr)
	profile := fs.String("profile", "", "vision profile (from sabot calibrate vision)")
	view := fs.String("view", "auto", "shoe, table, or auto: shoe when a frame is the profile camera's size, table otherwise")
	if err := parseFlags(fs, args); err != nil {
		return err
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
	recs := map[vision.View]*cv.Recognizer{}
	for _, v := range []vision.View{vision.Shoe, vision.Table} {
		r, err := cv.New(p, v)
		if err != nil {
			return err
		}
		defer r.Close()
		recs[v] = r
	}
	enc := json.NewEncoder(stdout)
	failed := 0
	frame := gocv.NewMat()
	defer frame.Close()
	for _, file := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		line := readLine{File: file}
		m, err := cv.ReadImage(file)
		if err == nil {
			v := vision.Shoe
			switch {
			case *view == "table":
				v = vision.Table
			case *view == "auto" && (m.Cols() != p.Camera.Width || m.Rows() != p.Camera.Height):
				v = vision.Table
			}
			line.View = v.String()
			var res vision.Result
			res, err = recs[v].Recognize(m)
			if err == nil {
				line.Confidence = round3(res.Confidence)
				line.MS = round3(float64(res.Elapsed) / float64(time.Millisecond))
				if t := res.Token(); t != "" {
					line.Card = &t
				} else {
					line.Reject = res.Reason
				}
			}
		}
		m.Close()
		if err != nil {
			failed++
			line.Error = err.Error()
			line.MS = round3(float64(time.Since(start)) / float64(time.Millisecond))
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
	shoe, err := cv.New(p, vision.Shoe)
	if err != nil {
		return err
	}
	defer shoe.Close()
	table, err := cv.New(p, vision.Table)
	if err != nil {
		return err
	}
	defer table.Close()
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
// labelled test set (--frames DIR), like ../shared/vision-dev.
func visionRender(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("vision render", "--deck NAME [--calib DIR [--either-end]] [--frames DIR] [--shoe N] [--table N] [--seed S]", stderr)
	deck := fs.String("deck", "", "card design (see --list)")
	listDecks := fs.Bool("list", false, "list the installed card designs")
	calib := fs.String("calib", "", "write a calibration pass here (As.jpg … Kc.jpg, CUT.jpg, BACK.jpg)")
	eitherEnd := fs.Bool("either-end", false, "show each card of the calibration pass at either end, at random (a shuffled deck), not all at the top end (a new deck)")
	framesDir := fs.String("frames", "", "write a labelled test set here (labels.csv and frames)")
	nShoe := fs.Int("shoe", 3, "shoe frames of each card in the test set")
	nTable := fs.Int("table", 1, "table frames of each card in the test set")
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
	if *deck == "" || (*calib == "" && *framesDir == "") {
		fs.Usage()
		return errUsage
	}
	r, err := visiontest.NewRenderer(*deck)
	if err != nil {
		return err
	}
	defer r.Close()
	r.CalibEitherEnd = *eitherEnd
	rng := rand.New(rand.NewPCG(*seed, 0x5ab07))
	if *calib != "" {
		if err := r.WriteCalibration(*calib, rng); err != nil {
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
