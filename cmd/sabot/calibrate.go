package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/calibration/camera"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision/cv"
)

func init() {
	addCommand(command{name: "calibrate", summary: "calibrate vision|camera: fit the card recognizer to a deck; check a reader camera", run: runCalibrate})
}

func runCalibrate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return subcommand(ctx, "calibrate", map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"vision": calibrateVision,
		"camera": calibrateCamera,
	}, args, stdin, stdout, stderr)
}

// calibrateVision learns a vision profile from one frame per card: from a directory of frames
// named by card (--dir), or live from the reader camera while the technician passes a sorted deck
// through it (--device), or from a recorded pass (--video).
func calibrateVision(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate vision", "(--dir CALIB | --device /dev/videoN | --video FILE) --out profile.json", stderr)
	dir := fs.String("dir", "", "directory of calibration frames: As.jpg … Kc.jpg (52), optionally CUT.jpg and BACK.jpg")
	device := fs.String("device", "", "live: capture from this V4L2 camera while the sorted deck passes")
	video := fs.String("video", "", "a recorded calibration pass (video file) instead of a camera")
	order := fs.String("order", "", "live: the order the cards pass in, codes separated by spaces or commas, CUT and BACK allowed (default: As…Ks Ah…Kh Ad…Kd Ac…Kc)")
	keep := fs.String("keep", "", "live: also save the chosen frames here, named by card, for a later --dir run")
	out := fs.String("out", "", "write the profile here (JSON)")
	deck := fs.String("deck", "", "the deck design's name, recorded in the profile (default: the directory's name)")
	cameraName := fs.String("camera", "shoe-reader", "the camera's name, recorded in the profile")
	report := fs.String("report", "", "also write a PNG showing what was learned: every card's band with its index windows")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sources := 0
	for _, s := range []string{*dir, *device, *video} {
		if s != "" {
			sources++
		}
	}
	if sources != 1 || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	opt := cv.CalibrateOptions{Deck: *deck, Camera: *cameraName}
	var p *calibration.VisionProfile
	var err error
	if *dir != "" {
		if opt.Deck == "" {
			// CALIB/ or DECK/calib/: name the deck after the directory, or its parent.
			opt.Deck = filepath.Base(filepath.Clean(*dir))
			if opt.Deck == "calib" || opt.Deck == "calibration" {
				opt.Deck = filepath.Base(filepath.Dir(filepath.Clean(*dir)))
			}
		}
		p, err = cv.CalibrateDir(*dir, opt)
	} else {
		p, err = calibrateLive(ctx, *device, *video, *order, *keep, opt, stdout)
	}
	if err != nil {
		return err
	}
	if err := calibration.SaveVision(*out, p); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "profile %s: deck %q, camera %s\n", *out, p.Deck, p.Camera)
	fmt.Fprintf(stdout, "  card width %.1f px", p.CardWidthPx)
	if p.CardLength > 0 {
		fmt.Fprintf(stdout, ", length %.2f widths", p.CardLength/float64(p.BandWidth))
	}
	fmt.Fprintf(stdout, "\n  rank window %v, suit window %v, index separation %.0f\n", p.Rank, p.Suit, p.IndexSeparation)
	reading, err := cv.Describe(p)
	if err != nil {
		return err
	}
	switch {
	case reading.Mixed && reading.GlyphsRead:
		fmt.Fprintf(stdout, "  note: the pass shows %d cards at their rank end and %d at their suit end, %d undecided (a one-ended design passed at either end): each card is known at the end it was seen at, and at its other end by the middle of the card only; what the glyphs and faces leave in doubt is rejected (for a design like oxygen, more than half of the shoe frames)\n", reading.RankEnd, reading.SuitEnd, reading.Unknown)
	case reading.Mixed:
		fmt.Fprintf(stdout, "  warning: the pass shows %d cards at their rank end and %d at their suit end (a one-ended design passed at either end), and their glyphs do not read plainly: no card will be read; pass the deck again with every card index end first\n", reading.RankEnd, reading.SuitEnd)
	case !reading.IndexReads:
		fmt.Fprintln(stdout, "  note: this deck's index does not tell every rank apart (one-ended index?): cards are read by their whole face, and more frames are rejected")
	}
	if p.CardLength == 0 {
		fmt.Fprintln(stdout, "  note: the card's length could not be measured: a card seen from its other end is read by its index alone")
	}
	if p.Cut == nil {
		fmt.Fprintln(stdout, "  note: no CUT frame: the cut card is recognized by being blank, without a template")
	}
	if p.Back == nil {
		fmt.Fprintln(stdout, "  note: no BACK frame: a card seen face down will be rejected, not called BACK")
	}
	if *report != "" {
		if err := cv.WriteProfileReport(*report, p); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  report %s\n", *report)
	}
	return nil
}

// calibrateLive captures a calibration pass from a camera or a recorded video.
func calibrateLive(ctx context.Context, device, video, orderList, keep string, opt cv.CalibrateOptions, stdout io.Writer) (*calibration.VisionProfile, error) {
	order := cv.SortedDeck()
	if orderList != "" {
		order = nil
		for _, f := range strings.FieldsFunc(orderList, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' }) {
			if f == "CUT" || f == "BACK" {
				order = append(order, f)
				continue
			}
			c, err := card.Parse(f)
			if err != nil {
				return nil, fmt.Errorf("calibrate vision: --order: %w", err)
			}
			order = append(order, c.String())
		}
	}
	var src cv.Source
	var err error
	if device != "" {
		src, err = cv.OpenDevice(device, cv.DeviceOptions{})
		if opt.Camera == "" {
			opt.Camera = device
		}
	} else {
		src, err = cv.OpenVideo(video)
	}
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if opt.Deck == "" {
		opt.Deck = "live"
	}
	fmt.Fprintf(stdout, "pass the cards through the reader in this order, one at a time: %s\n", strings.Join(order, " "))
	frames, err := cv.CaptureCalibration(ctx, src, order, func(tok string, done, total int) {
		fmt.Fprintf(stdout, "  %s (%d/%d)\n", tok, done, total)
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, f := range frames {
			f.Frame.Close()
		}
	}()
	if keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			return nil, fmt.Errorf("calibrate vision: %w", err)
		}
		for _, f := range frames {
			if !gocv.IMWrite(filepath.Join(keep, f.Token+".png"), f.Frame) {
				return nil, fmt.Errorf("calibrate vision: cannot write %s", filepath.Join(keep, f.Token+".png"))
			}
		}
	}
	return cv.Calibrate(frames, opt)
}

// calibrateCamera checks a reader camera on one frame: focus, exposure and where the card lands.
func calibrateCamera(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate camera", "(--device /dev/videoN | --image FILE) [--profile P] --out report.png", stderr)
	device := fs.String("device", "", "V4L2 camera to check")
	img := fs.String("image", "", "check a saved frame instead of a camera")
	profile := fs.String("profile", "", "vision profile: adds the index windows and checks the card's width against it")
	out := fs.String("out", "camera-report.png", "write the PNG report here")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (*device == "") == (*img == "") || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	var p *calibration.VisionProfile
	if *profile != "" {
		var err error
		if p, err = calibration.LoadVision(*profile); err != nil {
			return err
		}
	}
	frame := gocv.NewMat()
	defer frame.Close()
	source := *img
	if *device != "" {
		src, err := cv.OpenDevice(*device, cv.DeviceOptions{})
		if err != nil {
			return err
		}
		defer src.Close()
		// Let the camera settle its exposure over a few frames; keep the last.
		for range 5 {
			if _, err := src.Read(ctx, &frame); err != nil {
				return err
			}
		}
		source = *device
	} else {
		m, err := cv.ReadImage(*img)
		if err != nil {
			m.Close()
			return err
		}
		m.CopyTo(&frame)
		m.Close()
	}
	r, err := camera.Check(frame, source, p)
	if err != nil {
		return err
	}
	if err := r.WriteText(stdout); err != nil {
		return err
	}
	if err := r.WritePNG(*out, frame); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report %s\n", *out)
	return nil
}
