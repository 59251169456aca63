package floor

import (
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

func TestTotal(t *testing.T) {
	tests := []struct {
		name   string
		family string
		cards  string
		want   string
	}{
		{"baccarat natural", familyBaccarat, "4h 5d", "9"},
		{"baccarat mod 10", familyBaccarat, "7c 8d", "5"},
		{"baccarat courts are 0", familyBaccarat, "Kh Td Qs", "0"},
		{"baccarat ace is 1", familyBaccarat, "As 9s Jd", "0"},
		{"trente plain sum", familyTrente, "Ad As 8h 3s 4h 2h 8d 3s 4c", "34"},
		{"trente court 10", familyTrente, "Kd Qd Jd 2c", "32"},
		{"blackjack hard", familyBlackjack, "Td 6h", "16"},
		{"blackjack soft", familyBlackjack, "Ad 6h", "soft 17"},
		{"blackjack two aces", familyBlackjack, "Ad Ah", "soft 12"},
		{"blackjack soft becomes hard", familyBlackjack, "Ad 6h Kc", "17"},
		{"blackjack 21 with an ace", familyBlackjack, "As Kd", "21"},
		{"blackjack bust", familyBlackjack, "Td 6h 8c", "bust 24"},
		{"poker has no running total", familyPoker, "As Kd", ""},
		{"unknown family", "", "As Kd", ""},
		{"no cards", familyBaccarat, "", ""},
		{"a hidden card", familyBaccarat, "4h ??", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cs []card.Card
			for _, s := range strings.Fields(tc.cards) {
				c, err := card.Parse(s)
				if err != nil {
					c = card.None // "??": a card the view does not know
				}
				cs = append(cs, c)
			}
			if got := total(tc.family, cs); got != tc.want {
				t.Errorf("total(%s, %s) = %q, want %q", tc.family, tc.cards, got, tc.want)
			}
		})
	}
}
