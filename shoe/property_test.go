package shoe_test

import (
	"fmt"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
)

// shoeInvariants checks RULES.md §1 over one game's event stream of several shoes, for any
// family: every card accounted for once, a burn never dealt, no round opened after the stop card,
// every round closed, the start-of-shoe burn as the family's rule says, every shoe balanced.
func shoeInvariants(t *testing.T, game string, proc shoe.Procedure, evs []tablebus.Event, faultsAllowed bool) (shoes, rounds int) {
	t.Helper()
	fail := func(e tablebus.Event, format string, a ...any) {
		t.Helper()
		t.Fatalf("%s shoe %s round %d: %s", game, e.Shoe, e.Round, fmt.Sprintf(format, a...))
	}
	var (
		used              map[int]tablebus.Type // shoe position → burn or card
		dealt, burned     int
		startBurns        int
		inRound, cutSeen  bool
		firstBurn         *tablebus.Event
		roundsInShoe      int
		revealedPositions map[int]bool
	)
	for _, e := range evs {
		switch e.Type {
		case tablebus.ShoeLoaded:
			used, dealt, burned, startBurns, inRound, cutSeen, firstBurn, roundsInShoe = map[int]tablebus.Type{}, 0, 0, 0, false, false, nil, 0
			revealedPositions = map[int]bool{}
		case tablebus.Burn, tablebus.CardDealt:
			if e.Card == nil || !e.Card.Valid() || e.Pos <= 0 || e.Pos > proc.Total() {
				fail(e, "%s without a valid card or position: %+v", e.Type, e)
			}
			if prev, dup := used[e.Pos]; dup {
				fail(e, "position %d used twice (%s then %s)", e.Pos, prev, e.Type)
			}
			used[e.Pos] = e.Type
			if e.Type == tablebus.Burn {
				burned++
				if !inRound {
					startBurns++
					if firstBurn == nil {
						firstBurn = &e
					}
				}
				if inRound && e.Face != nil && *e.Face != tablebus.FaceDown {
					fail(e, "a burn inside a round is face up")
				}
			} else {
				dealt++
				if !inRound {
					fail(e, "a card dealt outside a round")
				}
			}
		case tablebus.Revealed:
			if used[e.Pos] != tablebus.CardDealt || revealedPositions[e.Pos] {
				fail(e, "reveal of position %d, which is %q (revealed before: %v)", e.Pos, used[e.Pos], revealedPositions[e.Pos])
			}
			revealedPositions[e.Pos] = true
		case tablebus.RoundOpened:
			if inRound {
				fail(e, "a round opened inside a round")
			}
			if cutSeen {
				fail(e, "a round opened after the stop card (RULES.md §1)")
			}
			// The burn at the start of the shoe is over before the first round.
			if roundsInShoe == 0 {
				switch proc.Burn {
				case shoe.BurnFirstValue:
					if firstBurn == nil || startBurns != firstBurn.Card.PipValue()+1 {
						fail(e, "%d cards burned after a first card %v", startBurns, firstBurn)
					}
				case shoe.BurnFixed:
					if startBurns != proc.BurnCount {
						fail(e, "%d cards burned at the start, the rule is %d", startBurns, proc.BurnCount)
					}
				case shoe.BurnNone:
					if startBurns != 0 {
						fail(e, "%d cards burned at the start of a poker deck", startBurns)
					}
				}
			}
			inRound = true
			roundsInShoe++
		case tablebus.RoundSettled, tablebus.RoundVoided:
			if !inRound {
				fail(e, "%s outside a round", e.Type)
			}
			var net int64
			for _, s := range e.Settle {
				net += s.Net
			}
			if e.Net == nil || *e.Net != net {
				fail(e, "net %v is not the sum of the settlements (%d)", e.Net, net)
			}
			inRound = false
			rounds++
		case tablebus.CutCardReached:
			cutSeen = true
		case tablebus.ShoeEnded:
			if inRound {
				fail(e, "the shoe ended inside a round")
			}
			a := e.Account
			if !*e.OK || a.Dealt != dealt || a.Burned != burned || a.Dealt+a.Burned+a.Left != proc.Total() || a.Want != proc.Total() {
				fail(e, "accounting %+v ok=%v; counted dealt %d, burned %d", *a, *e.OK, dealt, burned)
			}
			if proc.BehindMax > 0 && !cutSeen {
				fail(e, "the shoe ended before the stop card")
			}
			shoes++
		case tablebus.Fault:
			if !faultsAllowed {
				fail(e, "fault %s: %s", e.Code, e.Problem)
			}
		}
	}
	return shoes, rounds
}

// gameTable is a simulated table of game with the simulated dealer for it.
func gameTable(t testing.TB, game string, seed uint64) *shoetest.Table {
	t.Helper()
	return configTable(t, games.Config{Game: game}, seed)
}

// configTable is gameTable for a table with options.
func configTable(t testing.TB, cfg games.Config, seed uint64) *shoetest.Table {
	t.Helper()
	game := cfg.Game
	ent, err := catalog.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, _ := shoe.ProcedureFor(fam, 0)
	eng, err := catalog.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pool := ""
	if cfg.Options["progressive"] == "controller" {
		pool = "arica" // RULES.md §7: the table's progressive, answered as a controller would
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", Manage: catalog.Manage, Progressive: pool})
	if err != nil {
		t.Fatal(err)
	}
	tb := shoetest.NewTable(m, shoetest.NewDealer(game, proc, seed), t0)
	if pool != "" {
		tb.PoolValue = 2_000_000
		if err := tb.OpenProgressive(); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

func runGame(t *testing.T, game string, seed uint64, shoes, misreadEvery int) (shoe.Procedure, []tablebus.Event) {
	t.Helper()
	tb := gameTable(t, game, seed)
	tb.MisreadEvery = misreadEvery
	var evs []tablebus.Event
	tb.Emit = func(e tablebus.Event) error { evs = append(evs, e); return nil }
	if err := tb.RunShoes(shoes, shoes*20000); err != nil {
		t.Fatalf("%s seed %d: %v", game, seed, err)
	}
	return tb.Dealer.Proc, evs
}

// TestEveryGameThousandsOfShoes plays a thousand simulated shoes of every game (a thousand
// rounds of the one-deck poker games) and checks RULES.md §1 on all of them.
func TestEveryGameThousandsOfShoes(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 50
	}
	for _, game := range catalog.Games() {
		t.Run(game, func(t *testing.T) {
			t.Parallel()
			proc, evs := runGame(t, game, 1, n, 0)
			shoes, rounds := shoeInvariants(t, game, proc, evs, false)
			if shoes != n || rounds < n {
				t.Fatalf("%d shoes, %d rounds", shoes, rounds)
			}
			t.Logf("%d shoes, %d rounds, %d events", shoes, rounds, len(evs))
		})
	}
}

// TestEveryGameWithMisreads makes every 23rd card unreadable: every hold is resolved by manual
// entry, and every shoe still balances.
func TestEveryGameWithMisreads(t *testing.T) {
	for _, game := range catalog.Games() {
		t.Run(game, func(t *testing.T) {
			t.Parallel()
			proc, evs := runGame(t, game, 2, 20, 23)
			faults, resolved := 0, 0
			for _, e := range evs {
				switch e.Type {
				case tablebus.Fault:
					faults++
				case tablebus.FaultResolved:
					resolved++
				}
			}
			shoeInvariants(t, game, proc, evs, true)
			if faults == 0 || faults != resolved {
				t.Fatalf("%d faults, %d resolved", faults, resolved)
			}
		})
	}
}
