package catalog

import (
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/trente"
)

// Trente et quarante (RULES.md §3): 6 decks by default (RULES.md §1 "6 (6–8)").
func init() {
	register(Entry{Game: trente.Game, Family: "trente", Decks: 6, New: func(cfg games.Config) (games.Engine, error) {
		return trente.New(cfg)
	}})
}
