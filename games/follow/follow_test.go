package follow_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/games/follow"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
)

// feed returns one simulated shoe's secure feed for a game.
func feed(t *testing.T, game string, seed uint64) []tablebus.Event {
	t.Helper()
	ent, _ := catalog.Lookup(game)
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, _ := shoe.ProcedureFor(fam, 0)
	eng, err := catalog.New(games.Config{Game: game})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", Manage: catalog.Manage})
	tb := shoetest.NewTable(m, shoetest.NewDealer(game, proc, seed), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var evs []tablebus.Event
	tb.Emit = func(e tablebus.Event) error {
		e.Seq = uint64(len(evs) + 1)
		evs = append(evs, e)
		return nil
	}
	if err := tb.RunShoes(2, 200000); err != nil {
		t.Fatal(err)
	}
	return evs
}

func newFollower(t *testing.T, game string) *follow.Follower {
	eng, err := catalog.New(games.Config{Game: game})
	if err != nil {
		t.Fatal(err)
	}
	return follow.New(eng, catalog.Manage)
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// The separate engine must reach exactly the daemon's results and settlements, and ask for the
// same next card after every card.
func TestFollowerAgreesWithTheDaemon(t *testing.T) {
	for _, game := range catalog.Games() {
		evs := feed(t, game, 11)
		f := newFollower(t, game)
		var mine []tablebus.Event
		rounds := 0
		for _, e := range evs {
			for _, o := range f.Apply(e) {
				if o.Type == tablebus.Fault {
					t.Fatalf("%s: alarm at seq %d: %s", game, e.Seq, o.Problem)
				}
				mine = append(mine, o)
			}
			if e.Type == tablebus.RoundSettled {
				rounds++
			}
		}
		var theirResults, myResults, theirSettled, mySettled []string
		for _, e := range evs {
			switch e.Type {
			case tablebus.RoundResult:
				// The daemon marks the cards that stayed face down; the engine knows no faces.
				hs := append([]tablebus.Hand(nil), e.Hands...)
				for i := range hs {
					hs[i].Down = nil
				}
				theirResults = append(theirResults, js([]any{e.Round, e.Result, hs}))
			case tablebus.RoundSettled:
				theirSettled = append(theirSettled, js([]any{e.Round, e.Settle, *e.Net}))
			}
		}
		for _, e := range mine {
			switch e.Type {
			case tablebus.RoundResult:
				myResults = append(myResults, js([]any{e.Round, e.Result, e.Hands}))
			case tablebus.RoundSettled:
				mySettled = append(mySettled, js([]any{e.Round, e.Settle, *e.Net}))
			}
		}
		if rounds < 2 || js(theirResults) != js(myResults) || js(theirSettled) != js(mySettled) {
			t.Fatalf("%s: %d rounds; results agree %v, settlements agree %v", game, rounds, js(theirResults) == js(myResults), js(theirSettled) == js(mySettled))
		}
	}
}

func TestFollowerAlarms(t *testing.T) {
	evs := feed(t, "punto-banco", 12)
	t.Run("card to the wrong hand", func(t *testing.T) {
		f := newFollower(t, "punto-banco")
		bad := append([]tablebus.Event(nil), evs...)
		for i, e := range bad {
			if e.Type == tablebus.CardDealt && e.To.Name == "banker" {
				bad[i].To = &tablebus.Place{Name: "player"}
				break
			}
		}
		if !hasAlarm(f, bad, follow.AlarmMismatch) {
			t.Fatal("no alarm")
		}
	})
	t.Run("altered settlement", func(t *testing.T) {
		f := newFollower(t, "punto-banco")
		bad := append([]tablebus.Event(nil), evs...)
		for i, e := range bad {
			if e.Type == tablebus.RoundSettled && len(e.Settle) > 0 {
				s := append([]tablebus.Settlement(nil), e.Settle...)
				s[0].Net++
				bad[i].Settle = s
				break
			}
		}
		if !hasAlarm(f, bad, follow.AlarmMismatch) {
			t.Fatal("no alarm")
		}
	})
	t.Run("settled before the round's last card", func(t *testing.T) {
		f := newFollower(t, "punto-banco")
		var bad []tablebus.Event
		dropped := false
		for i, e := range evs {
			// Drop the last card of the first round that has one before its result, and
			// renumber so that no gap shows: only the early result can give it away.
			if !dropped && e.Type == tablebus.CardDealt && i+1 < len(evs) && evs[i+1].Type == tablebus.RoundResult {
				dropped = true
				continue
			}
			e.Seq = uint64(len(bad) + 1)
			bad = append(bad, e)
		}
		if !dropped || !hasAlarm(f, bad, follow.AlarmMismatch) {
			t.Fatalf("no alarm (dropped a card: %v)", dropped)
		}
	})
	t.Run("gap", func(t *testing.T) {
		f := newFollower(t, "punto-banco")
		bad := append(append([]tablebus.Event(nil), evs[:40]...), evs[41:]...)
		if !hasAlarm(f, bad, follow.AlarmGap) {
			t.Fatal("no alarm")
		}
	})
}

func hasAlarm(f *follow.Follower, evs []tablebus.Event, code string) bool {
	for _, e := range evs {
		for _, o := range f.Apply(e) {
			if o.Type == tablebus.Fault && o.Code == code {
				return true
			}
		}
	}
	return false
}
