package vision

import (
	"fmt"
	"io"
	"sort"
	"time"
)

// Tally counts recognition results against labels for one view: what `sabot vision eval` prints
// and what the accuracy benchmarks report.
type Tally struct {
	Group                  string // "shoe", "table", "none"
	Correct, Wrong, Reject int
	// Confused counts the worst kind of wrong answer: a card read as CUT, BACK or NONE, or
	// CUT, BACK or NONE read as a card (issue 3: never).
	Confused int
	times    []time.Duration
}

// Add counts one frame.
func (t *Tally) Add(want Label, got Result) {
	t.times = append(t.times, got.Elapsed)
	switch {
	case got.Kind == Reject:
		t.Reject++
	case got.Kind == want.Kind && (got.Kind != Card || got.Card == want.Card):
		t.Correct++
	default:
		t.Wrong++
		if (got.Kind == Card) != (want.Kind == Card) {
			t.Confused++
		}
	}
}

// Frames returns how many frames were counted.
func (t *Tally) Frames() int { return t.Correct + t.Wrong + t.Reject }

// Accuracy returns the share of frames read correctly, in [0, 1].
func (t *Tally) Accuracy() float64 {
	if t.Frames() == 0 {
		return 0
	}
	return float64(t.Correct) / float64(t.Frames())
}

// Quantile returns the q-quantile (0…1) of the time per frame, by the nearest-rank method.
func (t *Tally) Quantile(q float64) time.Duration {
	if len(t.times) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), t.times...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

// WriteTo prints one line: "shoe   156 frames  155 correct (99.4%)  0 wrong  1 rejected  median 2.1 ms  p99 3.4 ms".
func (t *Tally) WriteTo(w io.Writer) (int64, error) {
	n, err := fmt.Fprintf(w, "%-6s %4d frames  %4d correct (%5.1f%%)  %3d wrong  %3d rejected  median %.1f ms  p99 %.1f ms\n",
		t.Group, t.Frames(), t.Correct, 100*t.Accuracy(), t.Wrong, t.Reject,
		ms(t.Quantile(0.5)), ms(t.Quantile(0.99)))
	return int64(n), err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
