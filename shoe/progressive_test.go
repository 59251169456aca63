package shoe_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
)

// progressiveTable is a Caribbean stud table feeding pool "arica" (RULES.md §7).
func progressiveTable(t testing.TB, game string, seed uint64) (*shoetest.Table, *[]tablebus.Event) {
	t.Helper()
	proc, _ := shoe.ProcedureFor(shoe.Poker, 0)
	eng, err := catalog.New(games.Config{Game: game, Options: map[string]string{"progressive": "controller"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", Progressive: "arica"})
	if err != nil {
		t.Fatal(err)
	}
	d := &shoetest.Dealer{ID: "dealer-7", Proc: proc, Rng: shoetest.Seeded(seed), Bettors: shoetest.BettorsFor(game, 500), Choose: shoetest.ChooserFor(game)}
	tb := shoetest.NewTable(m, d, t0)
	tb.PoolValue = 2_500_000
	var evs []tablebus.Event
	tb.Emit = func(e tablebus.Event) error { evs = append(evs, e); return nil }
	return tb, &evs
}

// TestProgressiveRounds plays rounds of the three progressive games with the simulated
// controller: every round with progressive bets sends its bets and hands, waits for the award,
// and settles each progressive bet at the prize less the bet.
func TestProgressiveRounds(t *testing.T) {
	for _, game := range []string{"caribbean-stud", "draw-poker", "go-poker"} {
		t.Run(game, func(t *testing.T) {
			tb, evs := progressiveTable(t, game, 11)
			if err := tb.OpenProgressive(); err != nil {
				t.Fatal(err)
			}
			if err := tb.RunShoes(40, 100000); err != nil {
				t.Fatal(err)
			}
			var bets, hands, awards, settled int
			var lastBets, lastHand []int
			var award *tablebus.Event
			for _, e := range *evs {
				switch e.Type {
				case tablebus.ProgressiveBet:
					bets++
					lastBets = nil
					for _, b := range e.Bets {
						lastBets = append(lastBets, b.Seat)
					}
				case tablebus.ProgressiveHand:
					hands++
					lastHand = nil
					for _, c := range e.Claims {
						lastHand = append(lastHand, c.Seat)
						if !c.Void && len(c.Cards) != 5 {
							t.Fatalf("claim %+v: five cards", c)
						}
					}
					if !slices.Equal(lastHand, lastBets) {
						t.Fatalf("hands for seats %v, bets on %v", lastHand, lastBets)
					}
				case tablebus.ProgressiveAward:
					awards++
					c := e
					award = &c
				case tablebus.RoundSettled:
					settled++
					var net int64
					for _, s := range e.Settle {
						net += s.Net
						if s.Spot == "progressive" {
							won := int64(0)
							if award != nil {
								for _, p := range award.Payouts {
									if p.Seat == s.Seat {
										won += p.Amount
									}
								}
							}
							if s.Net != won-s.Amount && s.Net != 0 {
								t.Fatalf("seat %d's progressive nets %d, won %d on %d", s.Seat, s.Net, won, s.Amount)
							}
						}
					}
					if net != *e.Net {
						t.Fatalf("round.settled net %d, its settlements add up to %d", *e.Net, net)
					}
					award = nil
				}
			}
			if bets == 0 || hands != bets || awards != bets {
				t.Errorf("%d progressive.bet, %d progressive.hand, %d progressive.award", bets, hands, awards)
			}
			t.Logf("%d rounds settled, %d with progressive bets", settled, bets)
		})
	}
}

// dealRound opens a round with bets and deals until it waits for the award.
func dealRound(t *testing.T, tb *shoetest.Table, bets []games.Bet) {
	t.Helper()
	m := tb.M
	evs, err := m.Step(shoe.NewCards{Counts: card.CountOf(card.Deck()), Time: t0})
	if err != nil || m.Phase() != shoe.Verified {
		t.Fatalf("new cards: %v %v", evs, err)
	}
	if _, err := m.Step(shoe.ShuffleDone{Cards: 52, By: "shuffler", Time: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Step(shoe.OpenRound{Bets: bets, Time: t0}); err != nil {
		t.Fatal(err)
	}
	deck := card.Deck()
	for i := 0; m.Need().Kind != games.NeedDone; {
		n := m.Need()
		var err error
		switch n.Kind {
		case games.NeedCard:
			_, err = m.Step(shoe.Read{Kind: shoe.ReadCard, Card: deck[i], Time: t0})
			i++
		case games.NeedDecision:
			_, err = m.Step(shoe.PlayerDecision{Seat: n.Seat, Choice: "bet", Time: t0})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if m.AwaitingAward() == 0 {
		t.Fatal("the round does not wait for its award")
	}
}

// TestProgressiveHolds: no progressive bet while the controller is offline or at a table without
// a pool; a round whose award does not come, is refused, or does not match is held, and the
// award (or a void) releases it.
func TestProgressiveHolds(t *testing.T) {
	bets := []games.Bet{{Seat: 1, Spot: "ante", Amount: 1000}, {Seat: 1, Spot: "progressive", Amount: 500}, {Seat: 2, Spot: "ante", Amount: 1000}}
	t.Run("offline", func(t *testing.T) {
		tb, _ := progressiveTable(t, "caribbean-stud", 1)
		m := tb.M
		m.Step(shoe.NewCards{Counts: card.CountOf(card.Deck()), Time: t0})
		m.Step(shoe.ShuffleDone{Cards: 52, By: "shuffler", Time: t0})
		_, err := m.Step(shoe.OpenRound{Bets: bets, Time: t0})
		const want = "shoe: refused: progressive bets: the progressive controller is offline; the table takes no progressive bet until it is back (RULES.md §7)"
		if !errors.Is(err, shoe.ErrRefused) || err.Error() != want {
			t.Errorf("bets while offline: %v\nwant %s", err, want)
		}
		evs, err := m.Step(shoe.ProgressiveLink{Open: true, Time: t0})
		if err != nil || evs[0].Type != tablebus.ProgressiveLink || evs[0].State != tablebus.LinkOpen {
			t.Fatalf("link: %v %v", evs, err)
		}
		if _, err := m.Step(shoe.OpenRound{Bets: bets, Time: t0}); err != nil {
			t.Errorf("bets once online: %v", err)
		}
	})
	t.Run("no pool", func(t *testing.T) {
		tb, _ := newTable(t, "caribbean-stud", 1)
		m := tb.M
		m.Step(shoe.NewCards{Counts: card.CountOf(card.Deck()), Time: t0})
		m.Step(shoe.ShuffleDone{Cards: 52, By: "shuffler", Time: t0})
		_, err := m.Step(shoe.OpenRound{Bets: bets, Time: t0})
		if !errors.Is(err, shoe.ErrRefused) || !strings.Contains(err.Error(), "this table feeds no progressive pool") {
			t.Errorf("bets at a table without a pool: %v", err)
		}
	})
	award := func(m *shoe.Machine, ok bool, payouts ...tablebus.PrizePaid) shoe.ProgressiveAward {
		a := tablebus.Award{V: 1, Controller: "progressive.P1", Pool: "arica", Table: "T1", Round: m.Round(), Ref: 9, OK: ok, Value: 100_000, Payouts: payouts, TS: t0}
		if !ok {
			a.Error = "a prize larger than the pools hold"
		}
		return shoe.ProgressiveAward{Award: a, Time: t0}
	}
	for _, tc := range []struct {
		name  string
		first func(m *shoe.Machine) shoe.Input
		code  string
	}{
		{"unconfirmed", func(m *shoe.Machine) shoe.Input { return shoe.ProgressiveTimeout{Round: m.Round(), Time: t0} }, shoe.FaultProgressiveUnconfirmed},
		{"refused", func(m *shoe.Machine) shoe.Input { return award(m, false) }, shoe.FaultProgressiveRefused},
		{"mismatch", func(m *shoe.Machine) shoe.Input {
			return award(m, true, tablebus.PrizePaid{Seat: 2, Kind: "hand", Category: "flush", Amount: 25_000})
		}, shoe.FaultProgressiveMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, _ := progressiveTable(t, "caribbean-stud", 1)
			m := tb.M
			m.Step(shoe.ProgressiveLink{Open: true, Time: t0})
			dealRound(t, tb, bets)
			evs, err := m.Step(tc.first(m))
			if err != nil || m.Held() != tc.code {
				t.Fatalf("held %q, want %q: %v %v", m.Held(), tc.code, evs, err)
			}
			// Cards and commands wait; the right award releases the round.
			if _, err := m.Step(shoe.PlayerDecision{Seat: 1, Choice: "bet", Time: t0}); err == nil {
				t.Error("a decision taken while held")
			}
			evs, err = m.Step(award(m, true))
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, e := range evs {
				types = append(types, string(e.Type))
			}
			if got := strings.Join(types, " "); got != "fault.resolved progressive.award round.settled guide" {
				t.Errorf("released with %s", got)
			}
			if m.Held() != "" || m.AwaitingAward() != 0 || m.Phase() != shoe.Counting {
				t.Errorf("after the award: held %q, awaiting %d, %s", m.Held(), m.AwaitingAward(), m.Phase())
			}
		})
	}
	t.Run("void", func(t *testing.T) {
		tb, _ := progressiveTable(t, "caribbean-stud", 1)
		m := tb.M
		m.Step(shoe.ProgressiveLink{Open: true, Time: t0})
		dealRound(t, tb, bets)
		m.Step(shoe.ProgressiveTimeout{Round: m.Round(), Time: t0})
		evs, err := m.Step(shoe.VoidRound{Reason: "the controller is down", Dealer: "supervisor.S1", Time: t0})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Type == tablebus.RoundVoided {
				if len(e.Settle) != 3 || e.Settle[1].Spot != "progressive" || e.Settle[1].Net != 0 {
					t.Errorf("voided: %+v", e.Settle)
				}
			}
		}
		if _, err := m.Step(award(m, true)); !errors.Is(err, shoe.ErrRefused) {
			t.Errorf("an award after the void: %v", err)
		}
	})
}

// TestProgressiveInputsJournal: the progressive inputs survive the journal's form.
func TestProgressiveInputsJournal(t *testing.T) {
	c := card.MustParse("Kh")
	for _, in := range []shoe.Input{
		shoe.ProgressiveLink{Open: true, Reason: "controller online", Time: t0},
		shoe.ProgressiveLink{Reason: "controller offline", Time: t0},
		shoe.ProgressiveTimeout{Round: 42, Time: t0},
		shoe.ProgressiveAward{Award: tablebus.Award{V: 1, Controller: "progressive.P1", Pool: "arica", Table: "T1", Round: 42, Ref: 9, OK: true, Value: 100,
			Payouts: []tablebus.PrizePaid{{Seat: 2, Kind: "carta-magica", Amount: 500}}, Draw: &tablebus.PrizeDraw{Kind: "carta-magica", Seat: 2, Card: &c}, TS: t0}, Time: t0},
	} {
		b, err := shoe.MarshalInput(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := shoe.UnmarshalInput(b)
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := shoe.MarshalInput(back)
		if string(b) != string(b2) {
			t.Errorf("%s came back as %s", b, b2)
		}
	}
}
