package catalog

import (
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
)

func init() {
	managers = append(managers, func(e games.Engine, a games.Action) (any, bool, error) {
		be, ok := e.(*baccarat.Engine)
		if !ok {
			return nil, false, nil
		}
		err := be.Manage(baccarat.BankAction{Action: a.Action, Seat: a.Seat, Amount: a.Amount})
		return be.Bank(), true, err
	})
}
