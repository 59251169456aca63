package vision

import (
	"fmt"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

func cardRes(s string, conf float64) Result {
	return Result{Kind: Card, Card: card.MustParse(s), Confidence: conf}
}

func TestCombiner(t *testing.T) {
	none := Result{Kind: None, Confidence: 0.9}
	rej := Rejected("cannot read the card's index", 0.3)
	tests := []struct {
		name   string
		cfg    CombineConfig
		frames []Result
		want   string // the passage's result
		agree  int
		tally  string
	}{
		{"clean read", CombineConfig{}, []Result{none, cardRes("As", 0.9), cardRes("As", 0.7), none}, "As (0.80)", 2, "As×2 NONE×2"},
		{"rejected frames do not spoil a read", CombineConfig{}, []Result{rej, cardRes("Kd", 0.9), rej, cardRes("Kd", 0.9), cardRes("Kd", 0.6)}, "Kd (0.80)", 3, "Kd×3 reject×2"},
		{"one frame is not enough", CombineConfig{}, []Result{none, cardRes("7c", 0.95), rej}, "reject: only 1 frame(s) read 7c, 2 needed", 1, "7c×1 NONE×1 reject×1"},
		{"one frame is enough when configured", CombineConfig{MinAgree: 1}, []Result{none, cardRes("7c", 0.95), rej}, "7c (0.95)", 1, "7c×1 NONE×1 reject×1"},
		{"disagreement is never a guess", CombineConfig{}, []Result{cardRes("6h", 0.9), cardRes("6h", 0.9), cardRes("6h", 0.9), cardRes("6d", 0.6)}, "reject: frames disagree: 6h×3 6d×1", 0, "6h×3 6d×1"},
		{"cut card", CombineConfig{}, []Result{none, {Kind: Cut, Confidence: 1}, {Kind: Cut, Confidence: 0.8}}, "CUT (0.90)", 2, "CUT×2 NONE×1"},
		{"back", CombineConfig{}, []Result{{Kind: Back, Confidence: 0.9}, {Kind: Back, Confidence: 0.9}, rej}, "BACK (0.90)", 2, "BACK×2 reject×1"},
		{"card and cut card", CombineConfig{}, []Result{cardRes("As", 0.9), cardRes("As", 0.9), {Kind: Cut, Confidence: 1}}, "reject: a card and a cut card or back in one passage: As×2 CUT×1", 0, "As×2 CUT×1"},
		{"cut and back", CombineConfig{}, []Result{{Kind: Cut, Confidence: 1}, {Kind: Cut, Confidence: 1}, {Kind: Back, Confidence: 1}}, "reject: cut card and back in one passage: CUT×2 BACK×1", 0, "CUT×2 BACK×1"},
		{"one cut frame", CombineConfig{}, []Result{{Kind: Cut, Confidence: 1}, none}, "reject: only 1 frame(s) agree, 2 needed: CUT×1 NONE×1", 1, "CUT×1 NONE×1"},
		{"sensor blocked, nothing seen", CombineConfig{}, []Result{none, none, rej}, "reject: no frame read the card: NONE×2 reject×1", 0, "NONE×2 reject×1"},
		{"no frames", CombineConfig{}, nil, "reject: no frames while the sensor was blocked", 0, ""},
		{"card kind without a card", CombineConfig{}, []Result{{Kind: Card}, {Kind: Card}}, "reject: no frame read the card: reject×2", 0, "reject×2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Combiner{Config: tc.cfg}
			c.Begin()
			for _, f := range tc.frames {
				c.Add(f)
			}
			p := c.End()
			if got := p.Result.String(); got != tc.want {
				t.Errorf("result %q, want %q", got, tc.want)
			}
			if p.Agree != tc.agree || p.Frames != len(tc.frames) || p.Tally != tc.tally {
				t.Errorf("agree %d frames %d tally %q, want %d %d %q", p.Agree, p.Frames, p.Tally, tc.agree, len(tc.frames), tc.tally)
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
	// A frame before any Begin opens a passage: a missed leading edge loses no card.
	c.Add(cardRes("2s", 1))
	c.Add(cardRes("2s", 1))
	if p := c.End(); p.Result.Token() != "2s" {
		t.Errorf("passage begun by Add: %v", p.Result)
	}
	// Begin drops an unfinished passage.
	c.Begin()
	c.Add(cardRes("3s", 1))
	c.Begin()
	c.Add(cardRes("4s", 1))
	c.Add(cardRes("4s", 1))
	if p := c.End(); p.Result.Token() != "4s" || p.Frames != 2 {
		t.Errorf("after a second Begin: %v (%d frames)", p.Result, p.Frames)
	}
}

func ExampleCombiner() {
	var c Combiner
	c.Begin() // the card-exit sensor's leading edge
	for _, r := range []Result{
		{Kind: None, Confidence: 1},
		Rejected("cannot read the card's index", 0.2),
		{Kind: Card, Card: card.MustParse("9h"), Confidence: 0.9},
		{Kind: Card, Card: card.MustParse("9h"), Confidence: 0.8},
	} {
		c.Add(r)
	}
	p := c.End() // the trailing edge
	fmt.Println(p.Result, p.Tally)
	// Output: 9h (0.85) 9h×2 NONE×1 reject×1
}
