package cv

import (
	"testing"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
)

// ForceOneEnded makes r read as it reads a deck whose index does not tell every rank (see
// model.indexGood), calibrated at its index end (not mixed, see split).
func ForceOneEnded(r *Recognizer) {
	r.m.indexGood = false
	r.m.oneEnded()
	r.m.mixed, r.m.split = false, nil
}

// EvalWith evaluates the labelled frames in dir with a shoe and a table recognizer made from p,
// each changed by alter first (nil: as made).
func EvalWith(t testing.TB, p *calibration.VisionProfile, dir string, alter func(*Recognizer)) *Evaluation {
	t.Helper()
	var recs [2]*Recognizer
	for k, view := range []vision.View{vision.Shoe, vision.Table} {
		r, err := New(p, view)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if alter != nil {
			alter(r)
		}
		recs[k] = r
	}
	e, err := Evaluate(dir, recs[0], recs[1])
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// NoWrong fails t for every frame of e read as something it is not, and returns how many frames
// were read right.
func NoWrong(t testing.TB, e *Evaluation) int {
	t.Helper()
	read := 0
	for _, g := range e.Groups {
		read += g.Correct
	}
	for _, f := range e.Misread() {
		if f.Result.Kind != vision.Reject {
			t.Errorf("%s (%s) is %s, read %v", f.File, f.Group, f.Token(), f.Result)
		}
	}
	return read
}

// Mixed says whether p's calibration pass shows the cards of a one-ended design at either end
// (see split).
func Mixed(t testing.TB, p *calibration.VisionProfile) bool {
	t.Helper()
	r, err := New(p, vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.m.mixed
}

// CalibratedEnd says which end of card code p's calibration pass is taken to show: "rank",
// "suit" or "unknown"; "" when the pass is not read as mixed.
func CalibratedEnd(t testing.TB, p *calibration.VisionProfile, code string) string {
	t.Helper()
	r, err := New(p, vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.m.split == nil {
		return ""
	}
	c, err := card.Parse(code)
	if err != nil {
		t.Fatal(err)
	}
	return [...]string{endRank: "rank", endSuit: "suit", endUnknown: "unknown"}[r.m.split.end[c.Index()]]
}
