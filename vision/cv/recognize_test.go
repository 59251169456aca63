package cv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision"
)

// floors are the accuracy each dev deck must keep, per labels.csv view: the share of frames read
// correctly. Wrong answers must be zero everywhere (issue 3: a doubtful frame is rejected). The
// targets are higher (99.5% shoe, 99% table); these floors are what the recognizer reaches today,
// so that a regression fails.
var floors = map[string]map[string]float64{
	"anglo":           {"shoe": 1, "table": 1, "none": 1},
	"neoclassical":    {"shoe": 1, "table": 1, "none": 1},
	"nicu-ornamental": {"shoe": 1, "table": 1, "none": 1},
	// oxygen's calibration pass is mixed (see split): a shoe frame's corner gives the end in
	// view and a glyph, and the card must win over every card of that glyph and colour by its
	// view at that end, calibrated or turned end for end (see splitShoe); a table frame is read
	// by both corners.
	"oxygen": {"shoe": 0.30, "table": 0.67, "none": 1},
	"tango":  {"shoe": 1, "table": 1, "none": 1},
}

var (
	evalMu sync.Mutex
	evals  = map[string]*Evaluation{}
)

// devEval reads a whole dev deck once per test binary.
func devEval(t *testing.T, deck string) *Evaluation {
	evalMu.Lock()
	defer evalMu.Unlock()
	if e, ok := evals[deck]; ok {
		return e
	}
	p := devProfile(t, deck)
	shoe, err := New(p, vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer shoe.Close()
	table, err := New(p, vision.Table)
	if err != nil {
		t.Fatal(err)
	}
	defer table.Close()
	e, err := Evaluate(filepath.Join(devDir(t), deck, "frames"), shoe, table)
	if err != nil {
		t.Fatal(err)
	}
	evals[deck] = e
	return e
}

func TestDevDecks(t *testing.T) {
	for _, deck := range devDecks {
		t.Run(deck, func(t *testing.T) {
			e := devEval(t, deck)
			for _, g := range e.Groups {
				var b strings.Builder
				g.WriteTo(&b)
				t.Log(strings.TrimSpace(b.String()))
				if g.Wrong > 0 || g.Confused > 0 {
					for _, f := range e.Misread() {
						if f.Result.Kind != vision.Reject {
							t.Errorf("%s (%s) is %s, read %v", f.File, f.Group, f.Token(), f.Result)
						}
					}
				}
				floor, ok := floors[deck][g.Group]
				if !ok {
					t.Fatalf("no floor for %s %s", deck, g.Group)
				}
				if g.Accuracy() < floor {
					t.Errorf("%s: %.1f%% correct, floor %.1f%%", g.Group, 100*g.Accuracy(), 100*floor)
				}
			}
		})
	}
}

// TestOneEndedReadingOnTwoEndedDecks reads two-ended decks as if their index did not tell every
// rank (the way a one-ended deck like oxygen is read: by the face, the corner and, on the table,
// each way up of the card): it rejects far more, but must never read a card wrong. Oxygen alone
// gives that reading too few frames to trust its zero.
func TestOneEndedReadingOnTwoEndedDecks(t *testing.T) {
	for _, deck := range []string{"anglo", "nicu-ornamental", "tango"} {
		t.Run(deck, func(t *testing.T) {
			e := EvalWith(t, devProfile(t, deck), filepath.Join(devDir(t), deck, "frames"), ForceOneEnded)
			// Enough is read for the zero to mean something.
			if read := NoWrong(t, e); read < 60 {
				t.Errorf("only %d frames read", read)
			}
		})
	}
}

// TestSuitFromFaceOnDevDecks reads the two-ended dev decks with their suit windows left unread,
// as a deck whose index holds no suit is read: the suit from the face alone. It rejects more,
// but must never read a card wrong (a card's other end can look like another suit's calibrated
// end: the face must lead its rank's runner-up plainly, relative to how alike the two are).
func TestSuitFromFaceOnDevDecks(t *testing.T) {
	for _, deck := range []string{"anglo", "neoclassical", "nicu-ornamental", "tango"} {
		t.Run(deck, func(t *testing.T) {
			e := EvalWith(t, devProfile(t, deck), filepath.Join(devDir(t), deck, "frames"), func(r *Recognizer) { r.m.suitWin = rect{} })
			read := NoWrong(t, e)
			if read < 30 {
				t.Errorf("only %d frames read", read)
			}
			t.Logf("%d frames read", read)
		})
	}
}

func TestBadFrames(t *testing.T) {
	p := devProfile(t, "anglo")
	r, err := New(p, vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	wrongSize := gocv.NewMatWithSize(480, 640, gocv.MatTypeCV8UC3)
	defer wrongSize.Close()
	gray := gocv.NewMatWithSize(240, 320, gocv.MatTypeCV8U)
	defer gray.Close()
	tiny := gocv.NewMatWithSize(8, 8, gocv.MatTypeCV8UC3)
	defer tiny.Close()
	tests := []struct {
		name  string
		frame gocv.Mat
		want  string
	}{
		{"empty", empty, "vision: bad frame: empty image"},
		{"wrong size", wrongSize, "vision: bad frame: frame is 640x480, the profile is for dev 320x240"},
		{"grey", gray, "vision: bad frame: CV8U pixels, want 8-bit colour"},
		{"tiny", tiny, "vision: bad frame: 8x8 is too small"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Recognize(tc.frame)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrFrame) {
				t.Errorf("%v does not wrap ErrFrame", err)
			}
		})
	}
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.jpg")
	os.WriteFile(junk, []byte("\xff\xd8\xff\xe0 not really a jpeg"), 0o644)
	emptyFile := filepath.Join(dir, "empty.png")
	os.WriteFile(emptyFile, nil, 0o644)
	for _, tc := range []struct{ file, want string }{
		{junk, junk + ": vision: bad frame: not an image OpenCV can decode"},
		{emptyFile, emptyFile + ": vision: bad frame: no bytes"},
		{filepath.Join(dir, "missing.jpg"), "vision: stat " + filepath.Join(dir, "missing.jpg") + ": no such file or directory"},
	} {
		if _, err := r.RecognizeFile(tc.file); err == nil || err.Error() != tc.want {
			t.Errorf("RecognizeFile(%s): %v, want %q", filepath.Base(tc.file), err, tc.want)
		}
	}
	if _, err := r.RecognizeBytes([]byte{0x89, 'P', 'N', 'G'}); !errors.Is(err, ErrFrame) {
		t.Errorf("RecognizeBytes of a broken PNG: %v", err)
	}
	r.Close()
	if _, err := r.Recognize(wrongSize); err == nil || err.Error() != "vision: recognizer is closed" {
		t.Errorf("after Close: %v", err)
	}
}

// TestRecognizeBytes reads the same frame from a file and from bytes.
func TestRecognizeBytes(t *testing.T) {
	p := devProfile(t, "tango")
	r, err := New(p, vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	file := filepath.Join(devDir(t), "tango", "calib", "Qh.jpg")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.RecognizeBytes(b)
	if err != nil || res.Token() != "Qh" {
		t.Fatalf("RecognizeBytes: %v, %v", res, err)
	}
	res2, err := r.RecognizeFile(file)
	if err != nil || res2.Token() != "Qh" || res2.Confidence != res.Confidence {
		t.Fatalf("RecognizeFile: %v, %v", res2, err)
	}
}

func FuzzRecognizeBytes(f *testing.F) {
	d := devDir(f)
	for _, name := range []string{"As.jpg", "CUT.jpg"} {
		b, err := os.ReadFile(filepath.Join(d, "anglo", "calib", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	p := devProfile(f, "anglo")
	r, err := New(p, vision.Shoe)
	if err != nil {
		f.Fatal(err)
	}
	defer r.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := r.RecognizeBytes(b)
		if err != nil {
			if !errors.Is(err, ErrFrame) {
				t.Fatalf("error %v does not wrap ErrFrame", err)
			}
			return
		}
		if res.Confidence < 0 || res.Confidence > 1 {
			t.Fatalf("confidence %v", res.Confidence)
		}
	})
}
