package progressive

import "testing"

// FuzzParseTable: ParseTable never panics, and a table it accepts writes back to a string that
// parses to the same table.
func FuzzParseTable(f *testing.F) {
	f.Add("royal-flush=100%,straight-flush=10%,four-of-a-kind=100x")
	f.Add("flush=12.5%")
	f.Add("pair=0.01%")
	f.Fuzz(func(t *testing.T, s string) {
		tb, err := ParseTable(s)
		if err != nil {
			return
		}
		again, err := ParseTable(tb.String())
		if err != nil || again.String() != tb.String() {
			t.Fatalf("%q → %q → %q, %v", s, tb, again, err)
		}
		for _, p := range tb {
			if (p.Multiple > 0) == (p.Percent > 0) || p.Percent > BP {
				t.Fatalf("%q gave prize %+v", s, p)
			}
		}
	})
}
