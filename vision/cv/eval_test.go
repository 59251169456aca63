package cv_test

import (
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/vision/cv"
)

// TestRejectTallyLine: the reasons in the rule's order, the margin's three most frequent pairs
// (ties by name), nothing for a reason with no frame.
func TestRejectTallyLine(t *testing.T) {
	for _, c := range []struct {
		t    cv.RejectTally
		want string
	}{
		{cv.RejectTally{Group: "shoe",
			By:    map[cv.Refusal]int{cv.RefusedMargin: 7, cv.RefusedNoCard: 2, cv.RefusedThreshold: 1},
			Pairs: map[string]int{"CUT/2d": 3, "8h/9h": 1, "8d/9d": 1, "5c/6c": 2}},
			"shoe  10 rejected, 2 no card found, 1 nothing fits, " +
				"7 under the margin (CUT/2d 3, 5c/6c 2, 8d/9d 1)\n"},
		{cv.RejectTally{Group: "table", By: map[cv.Refusal]int{cv.RefusedUnread: 52, cv.RefusedPart: 0}},
			"table 52 rejected, 52 not read\n"},
		{cv.RejectTally{Group: "none", By: map[cv.Refusal]int{cv.RefusedBlank: 1, cv.NotRefused: 1}},
			"none  2 rejected, 1 accepted by the rule, 1 no index\n"},
	} {
		var b strings.Builder
		c.t.WriteTo(&b)
		if b.String() != c.want {
			t.Errorf("got  %q\nwant %q", b.String(), c.want)
		}
	}
}
