package shoe

import (
	"strings"
	"testing"
)

func TestProcedureSettings(t *testing.T) {
	bj, _ := ProcedureFor(Blackjack, 0)
	if bj.BehindDefault != 78 || bj.BehindMin != 52 || bj.BehindMax != 156 || bj.BurnCount != 1 {
		t.Fatalf("blackjack procedure %+v", bj)
	}
	p, err := bj.WithBurn("0")
	if err != nil || p.Burn != BurnFixed || p.BurnCount != 0 {
		t.Fatalf("burn 0: %+v %v", p, err)
	}
	p, err = bj.WithBurn("first-card")
	if err != nil || p.Burn != BurnFirstValue {
		t.Fatalf("first-card: %+v %v", p, err)
	}
	p, err = bj.WithStopCard(104)
	if err != nil || p.BehindDefault != 104 {
		t.Fatalf("stop card 104: %+v %v", p, err)
	}
	pk, _ := ProcedureFor(Poker, 0)
	for _, tc := range []struct {
		p    Procedure
		burn string
		stop int
		want string
	}{
		{bj, "11", 0, "0 to 10"},
		{bj, "x", 0, "first-card"},
		{pk, "1", 0, "burn nothing"},
		{bj, "", 51, "52 to 156"},
		{bj, "", 157, "52 to 156"},
	} {
		var err error
		if tc.burn != "" {
			_, err = tc.p.WithBurn(tc.burn)
		} else {
			_, err = tc.p.WithStopCard(tc.stop)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q %d: %v, want %q", tc.p.Family, tc.burn, tc.stop, err, tc.want)
		}
	}
	// A table that burns nothing deals from the first card (review finding: Burning never ended).
	bac, _ := ProcedureFor(Baccarat, 0)
	nb, _ := bac.WithBurn("0")
	if nb.Burn != BurnFixed || nb.BurnCount != 0 {
		t.Fatalf("%+v", nb)
	}
}
