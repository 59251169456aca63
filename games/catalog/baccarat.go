package catalog

import (
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
)

// The baccarat family (RULES.md §2): 8 decks by default (RULES.md §1 "8 (6 allowed)").
func init() {
	for _, g := range []string{"punto-banco", "baccarat", "chemin-de-fer"} {
		register(Entry{Game: g, Family: "baccarat", Decks: 8, New: func(cfg games.Config) (games.Engine, error) {
			return baccarat.New(cfg)
		}})
	}
}
