package cv

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision"
)

// EvalFrame is one labelled frame and what the recognizer made of it.
type EvalFrame struct {
	vision.Label
	Result vision.Result
	Err    error // the frame could not be used at all (unreadable, wrong size)
}

// Correct reports whether the frame was read as labelled.
func (f EvalFrame) Correct() bool {
	return f.Err == nil && f.Result.Kind == f.Kind && (f.Kind != vision.Card || f.Result.Card == f.Card)
}

// Evaluation is the outcome of reading a labelled frame set (a directory with labels.csv).
type Evaluation struct {
	Dir    string
	Frames []EvalFrame
	// Groups holds a Tally per labels.csv view ("shoe", "table", "none"), in that order.
	Groups []*vision.Tally
	// Fits holds, per group, how the labelled classes fit (Groups' order; none for a group
	// without a frame of a class the profile knows, such as the empty window).
	Fits []*FitTally
	// Rejections holds, per group with a rejected frame, which test rejected them (Groups'
	// order).
	Rejections []*RejectTally
}

// RejectTally counts a group's rejected frames by why (Decision.By; RefusedNoCard where no
// card was found to compare, RefusedUnread where the frame was not read at all), and those under
// the margin by the pair of classes: what a technician looks at first when a profile reads too
// little.
type RejectTally struct {
	Group string
	By    map[Refusal]int
	Pairs map[string]int // "best/runner-up" under the margin
}

// WriteTo writes the tally as one line: the total, each reason in the order decide applies
// them and, after the margin's count, its three most frequent best/runner-up pairs.
func (t *RejectTally) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	total := 0
	// NotRefused first: never expected of a rejected frame, shown if it is.
	for r := NotRefused; r < nRefusals; r++ {
		k := t.By[r]
		if k == 0 {
			continue
		}
		total += k
		fmt.Fprintf(&b, ", %d %s", k, r)
		if r != RefusedMargin || len(t.Pairs) == 0 {
			continue
		}
		pairs := slices.Collect(maps.Keys(t.Pairs))
		sort.Slice(pairs, func(i, j int) bool {
			ni, nj := t.Pairs[pairs[i]], t.Pairs[pairs[j]]
			return ni > nj || ni == nj && pairs[i] < pairs[j]
		})
		for i, p := range pairs[:min(3, len(pairs))] {
			sep := ", "
			if i == 0 {
				sep = " ("
			}
			fmt.Fprintf(&b, "%s%s %d", sep, p, t.Pairs[p])
		}
		b.WriteString(")")
	}
	n, err := fmt.Fprintf(w, "%-5s %d rejected%s\n", t.Group, total, b.String())
	return int64(n), err
}

// FitTally counts a group's frames in which a card was found and compared with its labelled
// class, and those whose labelled class fits beyond the view's threshold. Calibration sets the
// threshold so that ExpectedBeyond of its perturbed frames lie beyond it (rule.go, fitShare): a
// camera whose frames lie beyond it far more often is harsher than the calibration pass's
// trials, and the profile's false-accept estimate does not stand for its frames.
type FitTally struct {
	Group            string
	Measured, Beyond int
}

// ExpectedBeyond is the share of calibration's perturbed frames whose own class fits beyond the
// threshold.
const ExpectedBeyond = 1 - fitShare

// WriteTo writes the tally as one line.
func (f *FitTally) WriteTo(w io.Writer) (int64, error) {
	share := 0.0
	if f.Measured > 0 {
		share = float64(f.Beyond) / float64(f.Measured)
	}
	n, err := fmt.Fprintf(w, "%-5s the labelled class fits beyond the threshold in %d of %d frames with a card found (%.1f%%; calibration's perturbed frames: %.0f%%)\n",
		f.Group, f.Beyond, f.Measured, 100*share, 100*ExpectedBeyond)
	return int64(n), err
}

// Evaluate reads every frame listed in dir/labels.csv with the recognizer of its view.
func Evaluate(dir string, shoe, table *Recognizer) (*Evaluation, error) {
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	labels, err := vision.ReadLabels(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "labels.csv"), err)
	}
	e := &Evaluation{Dir: dir}
	groups := map[string]*vision.Tally{}
	fits := map[string]*FitTally{}
	rejects := map[string]*RejectTally{}
	for _, l := range labels {
		r := shoe
		if l.View == vision.Table {
			r = table
		}
		ef := EvalFrame{Label: l}
		if r == nil {
			ef.Err = fmt.Errorf("vision: no recognizer for %s frames", l.View)
		} else {
			ef.Result, ef.Err = r.RecognizeFile(filepath.Join(dir, l.File))
		}
		if ef.Err != nil {
			ef.Result = vision.Rejected(ef.Err.Error(), 0)
		}
		e.Frames = append(e.Frames, ef)
		t := groups[l.Group]
		if t == nil {
			t = &vision.Tally{Group: l.Group}
			groups[l.Group] = t
			e.Groups = append(e.Groups, t)
		}
		t.Add(l, ef.Result)
		if ef.Result.Kind == vision.Reject {
			rt := rejects[l.Group]
			if rt == nil {
				rt = &RejectTally{Group: l.Group, By: map[Refusal]int{}, Pairs: map[string]int{}}
				rejects[l.Group] = rt
			}
			rt.add(r, ef)
		}
		if ef.Err == nil && ef.Result.Evidence != nil {
			if c := slices.Index(r.Classes(), l.Token()); c >= 0 && c < len(ef.Result.Evidence.Dist) {
				f := fits[l.Group]
				if f == nil {
					f = &FitTally{Group: l.Group}
					fits[l.Group] = f
				}
				f.Measured++
				if d := ef.Result.Evidence.Dist[c]; !(d <= r.rule.MaxDistance) {
					f.Beyond++
				}
			}
		}
	}
	order := map[string]int{"shoe": 0, "table": 1, "photo": 2, "none": 3}
	sort.SliceStable(e.Groups, func(i, j int) bool { return order[e.Groups[i].Group] < order[e.Groups[j].Group] })
	for _, g := range e.Groups {
		if f := fits[g.Group]; f != nil {
			e.Fits = append(e.Fits, f)
		}
		if t := rejects[g.Group]; t != nil {
			e.Rejections = append(e.Rejections, t)
		}
	}
	return e, nil
}

// add counts one rejected frame: the rule decided again from its evidence says which test.
func (t *RejectTally) add(r *Recognizer, f EvalFrame) {
	switch {
	case f.Err != nil || r == nil:
		t.By[RefusedUnread]++
	case f.Result.Evidence == nil || len(f.Result.Evidence.Dist) != distLen*len(r.m.classes):
		t.By[RefusedNoCard]++
	default:
		// A frame compared is rejected by decide alone (read), so its decision names a test.
		_, d := r.decide(f.Result.Evidence.Dist)
		t.By[d.By]++
		if d.By == RefusedMargin {
			t.Pairs[d.Best+"/"+d.Runner]++
		}
	}
}

// Misread returns the frames read wrong or rejected.
func (e *Evaluation) Misread() []EvalFrame {
	var out []EvalFrame
	for _, f := range e.Frames {
		if !f.Correct() {
			out = append(out, f)
		}
	}
	return out
}

// WriteContactSheet writes a PNG of every frame read wrong or rejected, each scaled to a
// 240-pixel-wide tile with what it is and what was read: a red caption for a wrong answer, amber
// for a rejection. It writes nothing and returns false when every frame was read correctly.
func (e *Evaluation) WriteContactSheet(path string) (bool, error) {
	bad := e.Misread()
	if len(bad) == 0 {
		return false, nil
	}
	const tw, th, cols, capH = 240, 180, 4, 34
	rows := (len(bad) + cols - 1) / cols
	sheet := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(32, 32, 32, 0), rows*(th+capH), cols*tw, gocv.MatTypeCV8UC3)
	defer sheet.Close()
	tile := gocv.NewMat()
	defer tile.Close()
	for i, f := range bad {
		x, y := (i%cols)*tw, (i/cols)*(th+capH)
		m, err := ReadImage(filepath.Join(e.Dir, f.File))
		if err == nil {
			gocv.Resize(m, &tile, image.Pt(tw, th), 0, 0, gocv.InterpolationArea)
			roi := sheet.Region(image.Rect(x, y, x+tw, y+th))
			tile.CopyTo(&roi)
			roi.Close()
		}
		m.Close()
		got := f.Result.Token()
		col := color.RGBA{255, 60, 60, 0} // wrong
		if f.Result.Kind == vision.Reject {
			got = "reject: " + f.Result.Reason
			col = color.RGBA{255, 190, 0, 0}
		}
		gocv.PutText(&sheet, fmt.Sprintf("%s  %s is %s", f.File, f.Group, f.Token()), image.Pt(x+4, y+th+13), gocv.FontHersheyPlain, 0.9, color.RGBA{230, 230, 230, 0}, 1)
		if len(got) > 38 {
			got = got[:38]
		}
		gocv.PutText(&sheet, "read "+got, image.Pt(x+4, y+th+28), gocv.FontHersheyPlain, 0.9, col, 1)
	}
	if ok := gocv.IMWrite(path, sheet); !ok {
		return false, fmt.Errorf("vision: cannot write %s", path)
	}
	return true, nil
}
