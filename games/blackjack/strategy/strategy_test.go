package strategy

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games/blackjack"
)

// Published total-dependent charts, research gamemath.md §5.4 (columns 2 3 4 5 6 7 8 9 T A).
// Rule set (a): 6 decks, S17, DAS, split once, no surrender (the reference).
var chartA = map[string]string{
	"hard 5": "HHHHHHHHHH", "hard 6": "HHHHHHHHHH", "hard 7": "HHHHHHHHHH", "hard 8": "HHHHHHHHHH",
	"hard 9": "HDDDDHHHHH", "hard 10": "DDDDDDDDHH", "hard 11": "DDDDDDDDDH", "hard 12": "HHSSSHHHHH",
	"hard 13": "SSSSSHHHHH", "hard 14": "SSSSSHHHHH", "hard 15": "SSSSSHHHHH", "hard 16": "SSSSSHHHHH",
	"hard 17": "SSSSSSSSSS", "hard 18": "SSSSSSSSSS", "hard 19": "SSSSSSSSSS", "hard 20": "SSSSSSSSSS",
	"soft 13": "HHHDDHHHHH", "soft 14": "HHHDDHHHHH", "soft 15": "HHDDDHHHHH", "soft 16": "HHDDDHHHHH",
	"soft 17": "HDDDDHHHHH", "soft 18": "SBBBBSSHHH", "soft 19": "SSSSSSSSSS", "soft 20": "SSSSSSSSSS",
	"pair 1": "PPPPPPPPPP", "pair 10": "SSSSSSSSSS", "pair 9": "PPPPPSPPSS", "pair 8": "PPPPPPPPPP",
	"pair 7": "PPPPPPHHHH", "pair 6": "PPPPPHHHHH", "pair 5": "DDDDDDDDHH", "pair 4": "HHHPPHHHHH",
	"pair 3": "PPPPPPHHHH", "pair 2": "PPPPPPHHHH",
}

// Rule set (b): 6 decks, H17, no DAS, split to 4 hands, late surrender except against an ace.
var chartB = map[string]string{
	"hard 9": "HDDDDHHHHH", "hard 10": "DDDDDDDDHH", "hard 11": "DDDDDDDDDD", "hard 12": "HHSSSHHHHH",
	"hard 13": "SSSSSHHHHH", "hard 14": "SSSSSHHHHH", "hard 15": "SSSSSHHHRH", "hard 16": "SSSSSHHRRH",
	"hard 17": "SSSSSSSSSS", "hard 18": "SSSSSSSSSS",
	"soft 13": "HHHDDHHHHH", "soft 14": "HHHDDHHHHH", "soft 15": "HHDDDHHHHH", "soft 16": "HHDDDHHHHH",
	"soft 17": "HDDDDHHHHH", "soft 18": "BBBBBSSHHH", "soft 19": "SSSSBSSSSS", "soft 20": "SSSSSSSSSS",
	"pair 1": "PPPPPPPPPP", "pair 10": "SSSSSSSSSS", "pair 9": "PPPPPSPPSS", "pair 8": "PPPPPPPPPP",
	"pair 7": "PPPPPPHHHH", "pair 6": "HPPPPHHHHH", "pair 4": "HHHHHHHHHH", "pair 3": "HHPPPPHHHH",
	"pair 2": "HHPPPPHHHH",
}

func ruleSetB() blackjack.Rules {
	r, _ := blackjack.Preset("classic")
	r.Name = "b"
	r.HitSoft17 = true
	r.DoubleAfterSplit = false
	r.MaxHands = 4
	r.Surrender = blackjack.SurrenderNotAce
	return r
}

func compareChart(t *testing.T, s *Strategy, want map[string]string) {
	t.Helper()
	for key, row := range want {
		var kind string
		var n int
		if _, err := fmtSscan(key, &kind, &n); err != nil {
			t.Fatal(err)
		}
		if got := s.Row(kind, n); got != row {
			t.Errorf("%s: got %s, published %s", key, got, row)
		}
	}
}

// fmtSscan splits a chart key such as "hard 12" into its kind and number.
func fmtSscan(key string, kind *string, n *int) (int, error) {
	f := strings.Fields(key)
	if len(f) != 2 {
		return 0, fmt.Errorf("bad chart key %q", key)
	}
	v, err := strconv.Atoi(f[1])
	*kind, *n = f[0], v
	return 2, err
}

func TestPublishedCharts(t *testing.T) {
	a, err := Generate(blackjack.Reference(), 6)
	if err != nil {
		t.Fatal(err)
	}
	compareChart(t, a, chartA)
	b, err := Generate(ruleSetB(), 6)
	if err != nil {
		t.Fatal(err)
	}
	compareChart(t, b, chartB)
}

// TestNoHoleCard checks the published changes for European no-hole-card rules, where the
// dealer's blackjack takes doubles and splits (red-dog-poker.info "blackjack basic strategy":
// "do not split or double down against a dealer's ace, do not double down against a dealer 10,
// and do not split a pair of 8's against a dealer's 10").
func TestNoHoleCard(t *testing.T) {
	r, _ := blackjack.Preset("enhc")
	r.Surrender = blackjack.SurrenderNone
	s, err := Generate(r, 6)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"hard 10": "DDDDDDDDHH", "hard 11": "DDDDDDDDHH", "pair 8": "PPPPPPPPHH", "pair 1": "PPPPPPPPPH",
	} {
		var kind string
		var n int
		if _, err := fmtSscan(key, &kind, &n); err != nil {
			t.Fatal(err)
		}
		if got := s.Row(kind, n); got != want {
			t.Errorf("enhc %s: %s, want %s", key, got, want)
		}
	}
	for _, kind := range []string{"hard", "soft", "pair"} {
		for n := 1; n <= 20; n++ {
			if kind == "pair" && n > 10 || kind != "pair" && n < 4 {
				continue
			}
			row := s.Row(kind, n)
			if c := row[9]; c == 'D' || c == 'B' || c == 'P' {
				t.Errorf("enhc %s %d doubles or splits against an ace: %s", kind, n, row)
			}
		}
	}
}

// TestEarlySurrender checks retiro's surrender against an ace or ten without a peek against the
// published early-surrender rules (Wizard of Odds, early surrender: against an ace hard 5–7 and
// 12–17, 3-3, 6-6, 7-7, 8-8; against a ten hard 14–16, 7-7, 8-8). Retiro doubles only on 9–11.
func TestEarlySurrender(t *testing.T) {
	r, _ := blackjack.Preset("retiro")
	s, err := Generate(r, 6)
	if err != nil {
		t.Fatal(err)
	}
	surr := func(row string, col int) bool { return row[col] == 'R' || row[col] == 'Q' }
	for n := 5; n <= 20; n++ {
		row := s.Row("hard", n)
		wantA := n <= 7 || n >= 12 && n <= 17
		wantT := n >= 14 && n <= 16
		if surr(row, 9) != wantA || surr(row, 8) != wantT {
			t.Errorf("retiro hard %d: %s (surrender vs A %v, vs T %v)", n, row, wantA, wantT)
		}
	}
	for v := 1; v <= 10; v++ {
		row := s.Row("pair", v)
		wantA := v == 3 || v == 6 || v == 7 || v == 8
		wantT := v == 7 || v == 8
		if surr(row, 9) != wantA || surr(row, 8) != wantT {
			t.Errorf("retiro pair %d: %s (surrender vs A %v, vs T %v)", v, row, wantA, wantT)
		}
	}
}

func TestDecide(t *testing.T) {
	s, err := Generate(blackjack.Reference(), 6)
	if err != nil {
		t.Fatal(err)
	}
	all := Allowed(0).With(Hit).With(Stand).With(Double).With(Split).With(Surrender)
	hs := Allowed(0).With(Hit).With(Stand)
	for _, tc := range []struct {
		t       int
		soft    bool
		pair    int
		up      int
		allowed Allowed
		want    Action
	}{
		{11, false, 0, 6, all, Double},
		{11, false, 0, 6, hs, Hit},
		{18, true, 0, 4, all, Double},
		{18, true, 0, 4, hs, Stand}, // B: double else stand
		{16, false, 8, 10, all, Split},
		{16, false, 8, 10, hs, Hit},
		{20, false, 10, 6, all, Stand},
		{12, true, 1, 1, all, Split},
		{12, true, 1, 1, hs, Hit},
		{21, false, 0, 1, hs, Stand},
		{25, false, 0, 1, hs, Stand},
	} {
		if got := s.Decide(tc.t, tc.soft, tc.pair, tc.up, tc.allowed); got != tc.want {
			t.Errorf("Decide(%d soft=%v pair=%d up=%d) = %v, want %v", tc.t, tc.soft, tc.pair, tc.up, got, tc.want)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	if _, err := Generate(blackjack.Reference(), 0); err == nil {
		t.Error("0 decks accepted")
	}
	r := blackjack.Reference()
	r.MaxHands = 0
	if _, err := Generate(r, 6); err == nil {
		t.Error("invalid rules accepted")
	}
}

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		if _, err := Generate(blackjack.Reference(), 6); err != nil {
			b.Fatal(err)
		}
	}
}
