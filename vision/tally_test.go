package vision

import (
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

func TestTally(t *testing.T) {
	as := Label{Kind: Card, Card: card.MustParse("As"), Group: "shoe"}
	cut := Label{Kind: Cut, Group: "shoe"}
	tl := Tally{Group: "shoe"}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	tl.Add(as, Result{Kind: Card, Card: card.MustParse("As"), Elapsed: ms(2)})
	tl.Add(as, Result{Kind: Card, Card: card.MustParse("Ah"), Elapsed: ms(3)}) // wrong
	tl.Add(as, Result{Kind: Cut, Elapsed: ms(1)})                              // wrong, and confused
	tl.Add(cut, Result{Kind: Cut, Elapsed: ms(4)})                             // correct
	tl.Add(cut, Rejected("blank card that looks like the back", 0))            // rejected
	if tl.Correct != 2 || tl.Wrong != 2 || tl.Reject != 1 || tl.Confused != 1 || tl.Frames() != 5 {
		t.Fatalf("tally %+v", tl)
	}
	if got := tl.Accuracy(); got != 0.4 {
		t.Errorf("Accuracy() = %v, want 0.4", got)
	}
	if got := tl.Quantile(0.5); got != ms(2) {
		t.Errorf("median %v, want 2ms", got)
	}
	if got := tl.Quantile(0.99); got != ms(4) {
		t.Errorf("p99 %v, want 4ms", got)
	}
	var b strings.Builder
	tl.WriteTo(&b)
	want := "shoe      5 frames     2 correct ( 40.0%)    2 wrong    1 rejected  median 2.0 ms  p99 4.0 ms\n"
	if b.String() != want {
		t.Errorf("WriteTo:\n%q\nwant\n%q", b.String(), want)
	}
}
