package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision/camcheck"
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
// through it (--device), or from a recorded pass (--video); --turned adds a second pass of the
// deck turned end for end, from a source of the same kind.
func calibrateVision(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate vision", "(--dir CALIB | --device /dev/videoN | --video FILE) [--turned CALIB2|/dev/videoN|FILE2] --out profile.json", stderr)
	dir := fs.String("dir", "", "directory of calibration frames: As.jpg … Kc.jpg (52), optionally CUT.jpg and BACK.jpg (reader frames, or photographs of each card)")
	turned := fs.String("turned", "", "a second pass of the deck, every card turned end for end: a directory with --dir, a video with --video, the camera (again) with --device")
	device := fs.String("device", "", "live: capture from this V4L2 camera while the sorted deck passes")
	video := fs.String("video", "", "a recorded calibration pass (video file) instead of a camera")
	order := fs.String("order", "", "live: the order the cards pass in, codes separated by spaces or commas, CUT and BACK allowed (default: As…Ks Ah…Kh Ad…Kd Ac…Kc)")
	keep := fs.String("keep", "", "live: also save the chosen frames here, named by card, for a later --dir run (the turned pass in KEEP/turned)")
	out := fs.String("out", "", "write the profile here (JSON)")
	deck := fs.String("deck", "", "the deck design's name, recorded in the profile (default: the directory's name)")
	cameraName := fs.String("camera", "shoe-reader", "the camera's name, recorded in the profile")
	source := fs.String("source", "", "shoe (reader-window frames) or photo (whole cards anywhere); default: told from the frames")
	report := fs.String("report", "", "also write a PNG of what was learned: every class's index template, the rules")
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
	if *source != "" && *source != "shoe" && *source != "photo" {
		return fmt.Errorf("calibrate vision: --source %q: want shoe or photo", *source)
	}
	opt := cv.CalibrateOptions{Deck: *deck, Camera: *cameraName, Source: *source}
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
		dirs := []string{*dir}
		if *turned != "" {
			dirs = append(dirs, *turned)
		}
		opt.Progress = stages(stderr)
		p, err = cv.CalibrateDirs(ctx, dirs, opt)
		if err != nil {
			return fmt.Errorf("calibrate vision: %s: %w", passNames(dirs), err)
		}
	} else {
		p, err = calibrateLive(ctx, *device, *video, *turned, *order, *keep, opt, stdout, stderr)
		if err != nil {
			return err
		}
	}
	if err := calibration.SaveVision(*out, p); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "profile %s\n", *out)
	for _, f := range cv.ProfileFacts(p) {
		fmt.Fprintf(stdout, "  %s\n", f)
	}
	if *report != "" {
		if err := cv.WriteProfileReport(*report, p); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  report %s\n", *report)
	}
	return nil
}

// passNames names the calibration passes for an error: "pass 1 CALIB, pass 2 (turned) CALIB2".
func passNames(srcs []string) string {
	if len(srcs) == 1 {
		return srcs[0]
	}
	return fmt.Sprintf("pass 1 %s, pass 2 (turned) %s", srcs[0], srcs[1])
}

// stages prints each stage of a calibration as it starts: a calibration takes minutes.
func stages(w io.Writer) func(stage string, done, total int) {
	last := ""
	return func(stage string, done, total int) {
		if stage != last {
			last = stage
			fmt.Fprintf(w, "calibrating: %s (%d frames)\n", stage, total)
		}
	}
}

// calibrateLive captures one or two calibration passes from a camera or recorded videos.
func calibrateLive(ctx context.Context, device, video, turned, orderList, keep string, opt cv.CalibrateOptions, stdout, stderr io.Writer) (*calibration.VisionProfile, error) {
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
	if opt.Deck == "" {
		opt.Deck = "live"
	}
	first := video
	if device != "" {
		first = device
		if opt.Camera == "" {
			opt.Camera = device
		}
	}
	srcs := []string{first}
	if turned != "" {
		srcs = append(srcs, turned)
	}
	var passes [][]cv.CalibrationFrame
	defer func() {
		for _, p := range passes {
			cv.CloseFrames(p)
		}
	}()
	for i, name := range srcs {
		var src cv.Source
		var err error
		if device != "" {
			src, err = cv.OpenDevice(name, cv.DeviceOptions{})
		} else {
			src, err = cv.OpenVideo(name)
		}
		if err != nil {
			return nil, fmt.Errorf("calibrate vision: %w", err)
		}
		if i == 0 {
			fmt.Fprintf(stdout, "pass the cards through the reader in this order, one at a time: %s\n", strings.Join(order, " "))
		} else {
			fmt.Fprintln(stdout, "now pass the deck again in the same order, every card turned end for end")
		}
		frames, err := cv.CaptureCalibration(ctx, src, order, func(tok string, done, total int) {
			fmt.Fprintf(stdout, "  %s (%d/%d)\n", tok, done, total)
		})
		src.Close()
		if err != nil {
			return nil, fmt.Errorf("calibrate vision: pass %d: %w", i+1, err)
		}
		passes = append(passes, frames)
		if keep != "" {
			d := keep
			if i == 1 {
				d = filepath.Join(keep, "turned")
			}
			if err := cv.SaveCalibrationFrames(d, frames); err != nil {
				return nil, fmt.Errorf("calibrate vision: %w", err)
			}
			fmt.Fprintf(stdout, "  saved in %s\n", d)
		}
	}
	opt.Progress = stages(stderr)
	p, err := cv.Calibrate(ctx, passes, opt)
	if err != nil {
		return nil, fmt.Errorf("calibrate vision: %s: %w", passNames(srcs), err)
	}
	return p, nil
}

// calibrateCamera checks a reader camera on one frame: focus, exposure and where the card lands.
func calibrateCamera(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate camera", "(--device /dev/videoN | --image FILE) [--profile P] --out report.png", stderr)
	device := fs.String("device", "", "V4L2 camera to check")
	img := fs.String("image", "", "check a saved frame instead of a camera")
	profile := fs.String("profile", "", "vision profile: checks the frame's size and the card's width against it")
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
	var r *camcheck.Report
	var err error
	if *device != "" {
		r, err = camcheck.CheckDevice(ctx, *device, p)
	} else {
		r, err = camcheck.CheckImage(*img, p)
	}
	if err != nil {
		return err
	}
	if err := r.WriteText(stdout); err != nil {
		return err
	}
	if err := r.WritePNG(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report %s\n", *out)
	return nil
}
