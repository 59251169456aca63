package shoe_test

import (
	"regexp"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

var cardToken = regexp.MustCompile(`"([AKQJT2-9][shdc])"`)

// TestPublicFeedShowsOnlyWhatIsFaceUp checks RULES.md §1 "Hidden cards" on the public form of
// every event of every game (with misreads, so manual entries and faults happen too): every card
// named anywhere in a public payload has been shown face up at the table before, or is shown by
// that very event.
func TestPublicFeedShowsOnlyWhatIsFaceUp(t *testing.T) {
	for _, game := range catalog.Games() {
		t.Run(game, func(t *testing.T) {
			t.Parallel()
			_, evs := runGame(t, game, 9, 6, 37)
			var shown card.Counts
			shoe := ""
			for _, e := range evs {
				if e.Shoe != shoe { // a new shoe: what was shown stays shown, cards come back
					shoe = e.Shoe
					shown = card.Counts{}
				}
				p := e.Public()
				up := (e.Type == tablebus.CardDealt || e.Type == tablebus.Burn) && e.Face != nil && *e.Face == games.FaceUp
				if (up || e.Type == tablebus.Revealed) && p.Card != nil {
					shown.Add(*p.Card)
				}
				b, err := p.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				// Every card named anywhere has been shown; a card named twice may be one card
				// named twice (a summary repeats the hands' cards), so within each hand the
				// count must not exceed what was shown.
				for _, m := range cardToken.FindAllSubmatch(b, -1) {
					if c := card.MustParse(string(m[1])); shown.Of(c) == 0 {
						t.Fatalf("public %s event names %s, never shown face up: %s", e.Type, c, b)
					}
				}
				hands := append([]games.Hand(nil), p.Hands...)
				if p.Dealer != nil {
					hands = append(hands, *p.Dealer)
				}
				for _, h := range hands {
					in := card.CountOf(h.Cards)
					for i, n := range in {
						if n > shown[i] {
							t.Fatalf("public %s: a hand holds %s %d time(s), shown face up %d: %s", e.Type, card.FromIndex(i), n, shown[i], b)
						}
					}
				}
			}
		})
	}
}
