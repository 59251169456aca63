package vision

import (
	"fmt"
	"math"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

// testJudge is a judge over four classes with the recognizer's kind of rule: the best class when
// its distance is at most 0.1 and it leads the runner-up by 0.05 or more.
type testJudge struct{}

var testClasses = []string{"As", "Kd", "CUT", "BACK"}

func (testJudge) Judge(dist []float64) Result {
	const limit = 0.1
	best, second := -1, -1
	for i, d := range dist {
		if math.IsNaN(d) {
			continue
		}
		switch {
		case best < 0 || d < dist[best]:
			best, second = i, best
		case second < 0 || d < dist[second]:
			second = i
		}
	}
	if best < 0 {
		return Rejected("nothing measured", 0)
	}
	if dist[best] > limit {
		return Rejected(fmt.Sprintf("best %s at %.2f, over %.1f", testClasses[best], dist[best], limit), 0)
	}
	if second >= 0 && dist[second]-dist[best] < 0.05 {
		return Rejected(fmt.Sprintf("%s leads %s by %.2f", testClasses[best], testClasses[second], dist[second]-dist[best]), 0)
	}
	switch tok := testClasses[best]; tok {
	case "CUT":
		return Result{Kind: Cut, Confidence: 1}
	case "BACK":
		return Result{Kind: Back, Confidence: 1}
	default:
		return Result{Kind: Card, Card: card.MustParse(tok), Confidence: 1}
	}
}

// frame is one frame's result with its evidence: the distances of As, Kd, CUT, BACK.
func frame(d ...float64) Result {
	r := testJudge{}.Judge(d)
	best := math.Inf(1)
	for _, v := range d {
		if v < best { // NaN compares false: not measured
			best = v
		}
	}
	r.Evidence = &Evidence{Dist: d, Fits: best <= 0.1}
	return r
}

func TestCombiner(t *testing.T) {
	none := Result{Kind: None, Confidence: 1}
	rej := Rejected("cannot find the card: no top edge", 0)
	nan := math.NaN()
	tests := []struct {
		name     string
		frames   []Result
		want     string // the passage's result
		evidence int
		tally    string
	}{
		{"clean read", []Result{none, frame(0.05, 0.3, 0.5, 0.5), frame(0.07, 0.3, 0.5, 0.5), none}, "As (1.00)", 2, "As×2 NONE×2"},
		// A frame that fits no class (the card half out of the window) is left out of the mean.
		{"a frame that fits nothing is left out", []Result{frame(0.4, 0.5, 0.6, 0.6), frame(0.06, 0.3, 0.5, 0.5)}, "As (1.00)", 1, "As×1 reject×1"},
		// Two frames that each fit, but too close on their own: their mean decides.
		{"evidence adds up", []Result{frame(0.06, 0.1, 0.5, 0.5), frame(0.06, 0.2, 0.5, 0.5)}, "As (1.00)", 2, "As×1 reject×1"},
		{"a doubtful mean is rejected", []Result{frame(0.08, 0.11, 0.5, 0.5), frame(0.08, 0.13, 0.5, 0.5)}, "reject: As leads Kd by 0.04 (over 2 frames: As×1 reject×1)", 2, "As×1 reject×1"},
		// One frame that reads another card on its own rejects the passage, whatever the mean.
		{"one confident frame of another card", []Result{frame(0.02, 0.4, 0.5, 0.5), frame(0.02, 0.4, 0.5, 0.5), frame(0.2, 0.02, 0.5, 0.5)}, "reject: frames read As, but a frame read Kd on its own: As×2 Kd×1", 3, "As×2 Kd×1"},
		{"cut card", []Result{none, frame(0.5, 0.5, 0.02, 0.4), frame(0.5, 0.5, 0.04, 0.4)}, "CUT (1.00)", 2, "CUT×2 NONE×1"},
		{"card and cut card", []Result{frame(0.02, 0.5, 0.3, 0.5), frame(0.02, 0.5, 0.3, 0.5), frame(0.2, 0.5, 0.02, 0.5)}, "reject: frames read As, but a frame read CUT on its own: As×2 CUT×1", 3, "As×2 CUT×1"},
		{"sensor blocked, nothing seen", []Result{none, none, rej}, "reject: no frame showed the card: NONE×2 reject×1", 0, "NONE×2 reject×1"},
		{"no frames", nil, "reject: no frames while the sensor was blocked", 0, ""},
		// A frame that did not measure every class is no evidence: Kd is not ruled out by it.
		{"a class not measured everywhere", []Result{frame(0.04, nan, 0.5, 0.5), frame(0.04, 0.2, 0.5, 0.5)}, "As (1.00)", 1, "As×2"},
		{"no frame measured every class", []Result{frame(0.04, nan, 0.5, 0.5), frame(0.04, math.Inf(1), 0.5, 0.5)}, "reject: no frame showed the card: As×2", 0, "As×2"},
		// The mean is judged by the same rule as a frame: frames that each fit may average out
		// of the threshold only if one of them was left out as fitting nothing.
		{"the mean is judged", []Result{frame(0.09, 0.5, 0.5, 0.5), frame(0.09, 0.5, 0.5, 0.5), frame(0.05, 0.5, 0.5, 0.5)}, "As (1.00)", 3, "As×3"},
		{"another recognizer's frame is left out", []Result{frame(0.04, 0.3, 0.5, 0.5), {Kind: Card, Card: card.MustParse("As"), Evidence: &Evidence{Dist: []float64{0.9}, Fits: true}}}, "As (1.00)", 1, "As×2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Combiner{Judge: testJudge{}}
			c.Begin()
			for _, f := range tc.frames {
				c.Add(f)
			}
			p := c.End()
			if got := p.Result.String(); got != tc.want {
				t.Errorf("result %q, want %q", got, tc.want)
			}
			if p.Evidence != tc.evidence || p.Frames != len(tc.frames) || p.Tally != tc.tally {
				t.Errorf("evidence %d frames %d tally %q, want %d %d %q", p.Evidence, p.Frames, p.Tally, tc.evidence, len(tc.frames), tc.tally)
			}
			if c.Open() {
				t.Error("still open after End")
			}
		})
	}
}

func TestCombinerEdges(t *testing.T) {
	var c Combiner
	if p := c.End(); p.Result.String() != "reject: no frames: the passage never began" {
		t.Errorf("End without Begin: %v", p.Result)
	}
	c.Add(frame(0.02, 0.5, 0.5, 0.5))
	if p := c.End(); p.Result.String() != "reject: no recognizer to judge the frames" {
		t.Errorf("no judge: %v", p.Result)
	}
	c.Judge = testJudge{}
	// A frame before any Begin opens a passage: a missed leading edge loses no card.
	c.Add(frame(0.02, 0.5, 0.5, 0.5))
	if p := c.End(); p.Result.Token() != "As" {
		t.Errorf("passage begun by Add: %v", p.Result)
	}
	// Begin drops an unfinished passage.
	c.Begin()
	c.Add(frame(0.5, 0.02, 0.5, 0.5))
	c.Begin()
	c.Add(frame(0.02, 0.5, 0.5, 0.5))
	c.Add(frame(0.02, 0.5, 0.5, 0.5))
	if p := c.End(); p.Result.Token() != "As" || p.Frames != 2 {
		t.Errorf("after a second Begin: %v (%d frames)", p.Result, p.Frames)
	}
}

func ExampleCombiner() {
	c := Combiner{Judge: testJudge{}}
	c.Begin() // the card-exit sensor's leading edge
	for _, r := range []Result{
		{Kind: None, Confidence: 1},
		frame(0.3, 0.4, 0.5, 0.5), // fits nothing: left out
		frame(0.05, 0.4, 0.5, 0.5),
	} {
		c.Add(r)
	}
	p := c.End() // the trailing edge
	fmt.Println(p.Result, p.Tally)
	// Output: As (1.00) As×1 NONE×1 reject×1
}
