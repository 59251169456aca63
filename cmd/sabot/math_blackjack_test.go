package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestMathBlackjack(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"math", "blackjack", "--rules", "reference", "--rounds", "2e4", "--workers", "1"}, nil, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{
		"PAR SHEET: blackjack, rules reference, 6 decks",
		"20000 rounds in",
		"house edge ",
		"published (basic strategy, cut card)",
		"6.1093%",                    // perfect pairs edge, exact
		"11     D D D D D D D D D H", // the reference chart
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestMathChallenge21(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"math", "challenge21", "--bets", "2", "--rounds", "2e4", "--workers", "1"}, nil, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"PAR SHEET: challenge21, 2 round bets, enhc rules, 6 decks", "all 2 round bets together", "INSURANCE"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "perfect pairs") {
		t.Errorf("challenge21 sheet shows perfect pairs, which it has no spot for")
	}
	err = run(context.Background(), []string{"math", "challenge21", "--bets", "4"}, nil, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "math challenge21: --bets 4: a box places 2 or 3 round bets (RULES.md §4)") {
		t.Errorf("--bets 4: %v", err)
	}
}

func TestMathBlackjackErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rules", "vegas"}, `math blackjack: unknown rules preset "vegas" (known: classic, real21, retiro, enhc); or reference`},
		{[]string{"--decks", "3"}, "math blackjack: --decks 3: a shoe holds 1, 2, 4, 6 or 8 decks (RULES.md §0)"},
		{[]string{"--rounds", "lots"}, `math blackjack: --rounds "lots": want a whole number of rounds`},
		{[]string{"--rounds", "10"}, "math blackjack: --rounds 10: at least 1000"},
		{[]string{"--option", "soft18=hit"}, `math blackjack: unknown option "soft18"`},
		{[]string{"--decks", "1", "--behind", "45"}, "math blackjack: sim: 45 cards behind the cut card"},
		{[]string{"extra"}, `math blackjack: unexpected argument "extra"`},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"math", "blackjack", "--rounds", "1000", "--workers", "1"}, tc.args...), nil, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
