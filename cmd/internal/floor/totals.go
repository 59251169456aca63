package floor

import (
	"strconv"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Family names of games/catalog, which decide how a hand is counted.
const (
	familyBaccarat  = "baccarat"
	familyTrente    = "trente"
	familyBlackjack = "blackjack"
	familyPoker     = "poker"
)

// total says a hand's running total as the dealer would call it, for a game family. It is ""
// where the family has no running total (poker hands are ranked at the showdown) or where a card
// of the hand is not known to the view (a hidden card on the public feed).
func total(family string, cards []card.Card) string {
	if len(cards) == 0 {
		return ""
	}
	for _, c := range cards {
		if !c.Valid() {
			return ""
		}
	}
	switch family {
	case familyBaccarat:
		// RULES.md §2: A = 1, 2–9 pip, ten and court 0; the total is the sum mod 10.
		t := 0
		for _, c := range cards {
			t += c.BaccaratValue()
		}
		return strconv.Itoa(t % 10)
	case familyTrente:
		// RULES.md §3: A = 1, 2–10 pip, court 10; the row's total is the plain sum.
		t := 0
		for _, c := range cards {
			t += c.PipValue()
		}
		return strconv.Itoa(t)
	case familyBlackjack:
		// RULES.md §4: A = 1 or 11. One ace counted as 11 when that does not pass 21 makes a
		// soft total; a total over 21 is a bust. A two-card 21 is written 21: whether it is a
		// blackjack (an unsplit hand) the round's result says.
		t, aces := 0, 0
		for _, c := range cards {
			t += c.PipValue()
			if c.Rank() == card.Ace {
				aces++
			}
		}
		switch {
		case t > 21:
			return "bust " + strconv.Itoa(t)
		case aces > 0 && t+10 == 21:
			return "21"
		case aces > 0 && t+10 < 21:
			return "soft " + strconv.Itoa(t+10)
		}
		return strconv.Itoa(t)
	}
	return ""
}
