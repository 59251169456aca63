package main

import (
	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
)

// tableConfig is what the table's own view knows of its game beyond the feed, which names the
// game but not its options: a baccarat table's pay table, spots, limits and the surveillance
// option heavy-side-bet (issue 20's live odds and scoreboard).
func tableConfig(eng games.Engine) (floor.TableConfig, bool) {
	b, ok := eng.(*baccarat.Engine)
	if !ok {
		return floor.TableConfig{}, false
	}
	return floor.TableConfig{PayTable: b.PayTable().String(), Spots: b.Spots(), Limits: b.Limits(), HeavySideBet: b.HeavySideBet()}, true
}
