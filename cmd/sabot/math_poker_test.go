package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

func runPokerMath(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"math"}, args...), strings.NewReader(""), &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestMathThreeCardPoker(t *testing.T) {
	out, err := runPokerMath(t, "three-card-poker")
	if err != nil {
		t.Fatal(err)
	}
	out = strings.Join(strings.Fields(out), " ") // the columns' padding aside
	for _, want := range []string{
		"exact over 22100 player hands × 18424 dealer hands",
		"ante and play, play Q-6-4 or better 3.3730%",
		"pair plus 2.3167%",
		"the dealer qualifies (queen high or better) 69.5928%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestMathGoPokerAndDrawPoker(t *testing.T) {
	out, err := runPokerMath(t, "go-poker", "--json")
	if err != nil {
		t.Fatal(err)
	}
	// 968,692 / 2,598,960 (see pokermath.TestGoPoker)
	if !strings.Contains(out, fmt.Sprintf(`"house_edge":%v`, 968692.0/2598960)) || !strings.Contains(out, `"losing":1978380`) {
		t.Errorf("go-poker: %s", out)
	}
	out, err = runPokerMath(t, "draw-poker")
	if err != nil || !strings.Contains(out, "with 789540 of 2598960 hands, 30.3791%") {
		t.Errorf("draw-poker: %v %s", err, out)
	}
}

func TestMathPokerRefusesBadTables(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"caribbean-stud", "--bet-pays", "pair=x"}, `math: --bet-pays: pay table: pair pays "x", not a whole number from 0 to 1000000`},
		{[]string{"caribbean-stud", "-j", "-1"}, "math: -j -1: not a number of goroutines"},
		{[]string{"three-card-poker", "--pair-plus-pays", "five-aces=100"}, `math: --pair-plus-pays: hand: unknown category "five-aces"`},
		{[]string{"go-poker", "--min-pair", "Z"}, `math: --min-pair "Z" is not a rank (2 … A)`},
	}
	for _, tt := range tests {
		if _, err := runPokerMath(t, tt.args...); err == nil || err.Error() != tt.want {
			t.Errorf("%v: got %v, want %q", tt.args, err, tt.want)
		}
	}
}
