package hand

import (
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

// FuzzEval ranks arbitrary bytes as cards: Eval never panics, refuses what is not five to seven
// distinct cards, and agrees with the reference evaluator on what it accepts; Eval3, EvalOmaha
// and Partial never panic.
func FuzzEval(f *testing.F) {
	f.Add([]byte{1, 5, 9, 13, 17, 21, 25})
	f.Add([]byte{0, 0, 0, 0, 0})
	f.Add([]byte{52, 51, 50, 49, 48, 47})
	f.Add([]byte{200, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		cs := make([]card.Card, len(b))
		for i, x := range b {
			cs[i] = card.Card(x)
		}
		r, err := Eval(cs...)
		if err == nil {
			if want := refBest(cs); r != want {
				t.Fatalf("%v: %v, reference %v", cs, r, want)
			}
			_ = r.String()
		}
		_, _ = Eval3(cs...)
		_, _ = Partial(cs...)
		if len(cs) >= 4 {
			_, _ = EvalOmaha(cs[:len(cs)/2], cs[len(cs)/2:])
		}
		_ = EvalMask(MaskOf(cs...)).String()
		_ = Rank(uint32(len(b)) << 18).String()
	})
}
