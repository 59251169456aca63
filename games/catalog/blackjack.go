package catalog

import (
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/blackjack"
)

// The blackjack family (RULES.md §4): blackjack with its four presets, and Challenge 21.
func init() {
	register(Entry{Game: blackjack.GameBlackjack, Family: "blackjack", Decks: 6, Presets: blackjack.Presets(),
		New: func(cfg games.Config) (games.Engine, error) { return blackjack.New(cfg) }})
	register(Entry{Game: blackjack.GameChallenge21, Family: "blackjack", Decks: 6,
		New: func(cfg games.Config) (games.Engine, error) { return blackjack.NewChallenge21(cfg) }})
}
