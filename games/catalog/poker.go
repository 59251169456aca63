package catalog

import (
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/poker"
)

// The poker family (RULES.md §5–§6): one deck, shuffled before every round (RULES.md §1).
func init() {
	for _, g := range poker.HouseGames {
		register(Entry{Game: g, Family: "poker", Decks: 1, New: func(cfg games.Config) (games.Engine, error) {
			return poker.NewHouse(cfg)
		}})
	}
	for _, g := range poker.CircleGames {
		register(Entry{Game: g, Family: "poker", Decks: 1, New: func(cfg games.Config) (games.Engine, error) {
			return poker.NewCircle(cfg)
		}})
	}
}
