package baccarat

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// bankerGrid is the published drawing grid (gamemath.md §1.4, scribd "Baccarat" rule sheet):
// rows banker two-card total 7 down to 0, columns the player's third card 0–9. It is typed in
// independently of BankerAction.
var bankerGrid = map[int]string{
	7: "SSSSSSSSSS",
	6: "SSSSSSHHSS",
	5: "SSSSHHHHSS",
	4: "SSHHHHHHSS",
	3: "HHHHHHHHSH",
	2: "HHHHHHHHHH",
	1: "HHHHHHHHHH",
	0: "HHHHHHHHHH",
}

func TestBankerActionMatchesPublishedGrid(t *testing.T) {
	for bt, row := range bankerGrid {
		for p3 := range 10 {
			want := Stand
			if row[p3] == 'H' {
				want = Draw
			}
			if got := BankerAction(PuntoBanco, bt, p3); got != want {
				t.Errorf("punto banco: banker %d, player's third %d: %v, want %v", bt, p3, got, want)
			}
			if bt == 3 && p3 == 9 || bt == 5 && p3 == 4 {
				want = Option
			}
			if got := BankerAction(CheminDeFer, bt, p3); got != want {
				t.Errorf("chemin de fer: banker %d, player's third %d: %v, want %v", bt, p3, got, want)
			}
		}
	}
	for bt := range 8 {
		want := Draw
		if bt >= 6 {
			want = Stand
		}
		if got := BankerAction(PuntoBanco, bt, -1); got != want {
			t.Errorf("player stood, banker %d: %v, want %v", bt, got, want)
		}
	}
	for pt := range 8 {
		want, chemmy := Draw, Draw
		if pt >= 6 {
			want, chemmy = Stand, Stand
		}
		if pt == 5 {
			chemmy = Option
		}
		if got := PlayerAction(PuntoBanco, pt); got != want {
			t.Errorf("player %d: %v, want %v", pt, got, want)
		}
		if got := PlayerAction(CheminDeFer, pt); got != chemmy {
			t.Errorf("punter %d: %v, want %v", pt, got, chemmy)
		}
	}
}

func TestCommission(t *testing.T) {
	for _, tc := range []struct{ win, commission, net int64 }{
		{100, 5, 95},
		{2000, 100, 1900},
		{110, 5, 105},     // 5.5 cents rounds down
		{119, 5, 114},     // 5.95 cents rounds down
		{19, 0, 19},       // 0.95 cents rounds down to nothing
		{1, 0, 1},         // one cent
		{2999, 149, 2850}, // 149.95
		{10000, 500, 9500},
	} {
		if c := Commission(tc.win); c != tc.commission || tc.win-c != tc.net {
			t.Errorf("Commission(%d) = %d (net %d), want %d (net %d)", tc.win, c, tc.win-c, tc.commission, tc.net)
		}
	}
}

func mustNew(t *testing.T, cfg games.Config) *Engine {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func cards(t testing.TB, s string) []card.Card {
	t.Helper()
	cs, err := card.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

var allBets = []games.Bet{
	{Seat: 1, Spot: SpotPlayer, Amount: 1000},
	{Seat: 2, Spot: SpotBanker, Amount: 1000},
	{Seat: 3, Spot: SpotTie, Amount: 500},
	{Seat: 4, Spot: SpotPlayerPair, Amount: 200},
	{Seat: 5, Spot: SpotBankerPair, Amount: 300},
	{Seat: 6, Spot: SpotBanker, Amount: 110},
}

// TestPuntoBancoCoups plays whole coups card by card: where each card goes, what the dealer is
// told, the hands and every settlement.
func TestPuntoBancoCoups(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cards  string
		to     string // where each card went: p or b
		say    []string
		result string
		pt, bt int
		nets   []int64 // per allBets
	}{
		{
			name: "player natural 9", cards: "4s 2h 5d 3c", to: "pbpb",
			say:    []string{"card to banker", "card to player", "card to banker", "natural 9", "player wins 9 to 5"},
			result: "player", pt: 9, bt: 5,
			nets: []int64{1000, -1000, -500, -200, -300, -110},
		},
		{
			name: "both naturals, banker higher", cards: "Ks 9h 8d Jc", to: "pbpb",
			say:    []string{"card to banker", "card to player", "card to banker", "natural 9 to 8", "banker wins 9 to 8"},
			result: "banker", pt: 8, bt: 9,
			nets: []int64{-1000, 950, -500, -200, -300, 105},
		},
		{
			name: "player stands on 7, banker draws on 5 and wins 8 to 7", cards: "4s 3h 3d 2c 3s", to: "pbpbb",
			say:    []string{"card to banker", "card to player", "card to banker", "player stands on 7", "banker draws", "banker wins 8 to 7"},
			result: "banker", pt: 7, bt: 5,
			nets: []int64{-1000, 950, -500, -200, -300, 105},
		},
		{
			name: "player draws, banker stands on 6 against a 5", cards: "As 3h 2d 3c 5c", to: "pbpbp",
			say:    []string{"card to banker", "card to player", "card to banker", "player draws", "banker stands on 6", "player wins 8 to 6"},
			result: "player", pt: 3, bt: 6,
			nets: []int64{1000, -1000, -500, -200, 3300, -110},
		},
		{
			name: "banker 3 stands against an 8", cards: "Ts Kh 2d 3c 8c", to: "pbpbp",
			say:    []string{"card to banker", "card to player", "card to banker", "player draws", "banker stands on 3", "banker wins 3 to 0"},
			result: "banker", pt: 2, bt: 3,
			nets: []int64{-1000, 950, -500, -200, -300, 105},
		},
		{
			name: "tie on three cards each, with both pairs", cards: "2s 3h 2d 3c 6c 4h", to: "pbpbpb",
			say:    []string{"card to banker", "card to player", "card to banker", "player draws", "banker draws", "tie 0 to 0"},
			result: "tie", pt: 4, bt: 6,
			nets: []int64{0, 0, 4000, 2200, 3300, 0},
		},
		{
			name: "tie 6 to 6: player and banker stand", cards: "3s 6h 3d Tc", to: "pbpb",
			say:    []string{"card to banker", "card to player", "card to banker", "player stands on 6", "banker stands on 6", "tie 6 to 6"},
			result: "tie", pt: 6, bt: 6,
			nets: []int64{0, 0, 4000, 2200, -300, 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustNew(t, games.Config{Game: "punto-banco"})
			if err := e.Begin(allBets); err != nil {
				t.Fatal(err)
			}
			var say []string
			for i, c := range cards(t, tc.cards) {
				n := e.Need()
				want := map[byte]string{'p': "player", 'b': "banker"}[tc.to[i]]
				if n.Kind != games.NeedCard || n.To.Name != want || n.Face != games.FaceUp {
					t.Fatalf("card %d: need %v, want card to %s face up", i+1, n, want)
				}
				st, err := e.Card(c)
				if err != nil {
					t.Fatalf("card %d (%s): %v", i+1, c, err)
				}
				say = append(say, games.Words(st.Say)...)
			}
			if n := e.Need(); n.Kind != games.NeedDone {
				t.Fatalf("after the cards: need %v", n)
			}
			if !reflect.DeepEqual(say, tc.say) {
				t.Errorf("say\n got %q\nwant %q", say, tc.say)
			}
			o, err := e.Outcome()
			if err != nil {
				t.Fatal(err)
			}
			if o.Result != tc.result || o.Hands[0].Name != "player" || o.Hands[1].Name != "banker" {
				t.Errorf("result %s hands %s/%s", o.Result, o.Hands[0].Name, o.Hands[1].Name)
			}
			if o.Hands[0].Total != Total(o.Hands[0].Cards) || o.Hands[1].Total != Total(o.Hands[1].Cards) {
				t.Errorf("totals %d %d", o.Hands[0].Total, o.Hands[1].Total)
			}
			if got := Total(o.Hands[0].Cards[:2]); got != tc.pt {
				t.Errorf("player two-card total %d, want %d", got, tc.pt)
			}
			if got := Total(o.Hands[1].Cards[:2]); got != tc.bt {
				t.Errorf("banker two-card total %d, want %d", got, tc.bt)
			}
			if len(o.Settlements) != len(allBets) {
				t.Fatalf("%d settlements", len(o.Settlements))
			}
			for i, s := range o.Settlements {
				if s.Seat != allBets[i].Seat || s.Spot != allBets[i].Spot || s.Amount != allBets[i].Amount || s.Net != tc.nets[i] {
					t.Errorf("settlement %d: %+v, want net %d", i, s, tc.nets[i])
				}
			}
		})
	}
}

func TestCardOutOfTurnIsAnAlarmAndChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name, cards, extra, rule string
	}{
		{"banker stands on 6", "As 3h 2d 3c 5c", "9d", "card out of turn: dealer error: banker stands on 6"},
		{"natural", "4s 2h 5d 3c", "9d", "card out of turn: dealer error: natural 9, both hands stand"},
		{"banker has drawn", "4s 3h 3d 2c 3s", "9d", "card out of turn: dealer error: the coup is complete, banker has drawn its third card"},
		{"both stand", "3s 6h 3d Tc", "2s", "card out of turn: dealer error: banker stands on 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustNew(t, games.Config{Game: "punto-banco"})
			if err := e.Begin(allBets); err != nil {
				t.Fatal(err)
			}
			for _, c := range cards(t, tc.cards) {
				if _, err := e.Card(c); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := e.Outcome()
			_, err := e.Card(card.MustParse(tc.extra))
			var re *games.RuleError
			if !errors.As(err, &re) || re.Rule != tc.rule || re.What != tc.extra || re.Game != "punto-banco" {
				t.Fatalf("extra card: %v, want rule %q", err, tc.rule)
			}
			after, _ := e.Outcome()
			if !reflect.DeepEqual(before, after) || e.Need().Kind != games.NeedDone {
				t.Errorf("the refused card changed the coup:\n%+v\n%+v", before, after)
			}
		})
	}
	e := mustNew(t, games.Config{Game: "punto-banco"})
	if _, err := e.Card(card.MustParse("As")); err == nil || !strings.Contains(err.Error(), "no coup in progress") {
		t.Errorf("card before Begin: %v", err)
	}
	if _, err := e.Outcome(); !errors.Is(err, ErrIncomplete) {
		t.Errorf("outcome before Begin: %v", err)
	}
	if err := e.Begin(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Outcome(); !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "card to player") {
		t.Errorf("outcome of an empty coup: %v", err)
	}
	if _, err := e.Decide(1, "draw"); err == nil || !strings.Contains(err.Error(), "no decisions") {
		t.Errorf("decision in punto banco: %v", err)
	}
	if _, err := e.Burn(card.None); err == nil {
		t.Error("burn in a coup accepted")
	}
	if _, err := e.Card(card.None); err == nil {
		t.Error("card None accepted")
	}
}

func TestEngineIsReusedCoupAfterCoup(t *testing.T) {
	e := mustNew(t, games.Config{Game: "punto-banco"})
	for i, coup := range []struct {
		cards, result string
	}{
		{"4s 2h 5d 3c", "player"},
		{"Ks 9h 8d Jc", "banker"},
		{"3s 6h 3d Tc", "tie"},
	} {
		if err := e.Begin([]games.Bet{{Seat: 1, Spot: SpotBanker, Amount: 100}}); err != nil {
			t.Fatal(err)
		}
		for _, c := range cards(t, coup.cards) {
			if _, err := e.Card(c); err != nil {
				t.Fatalf("coup %d: %v", i+1, err)
			}
		}
		o, err := e.Outcome()
		if err != nil || o.Result != coup.result || len(o.Hands[0].Cards)+len(o.Hands[1].Cards) != 4 || o.CardsUsed != 4 {
			t.Fatalf("coup %d: %+v %v", i+1, o, err)
		}
	}
}

func TestBeginRefuses(t *testing.T) {
	seed := map[string]string{OptLimits: "5-500"}
	for _, tc := range []struct {
		name string
		game string
		opts map[string]string
		bets []games.Bet
		want string // the whole error
	}{
		{"tie in baccarat", "baccarat", nil, []games.Bet{{Seat: 1, Spot: "tie", Amount: 100}},
			"baccarat: seat 1: tie 100: baccarat has no tie bet: a tie voids the coup (RULES.md §2, seed 000)"},
		{"unknown spot", "punto-banco", nil, []games.Bet{{Seat: 2, Spot: "dragon", Amount: 100}},
			"punto-banco: seat 2: dragon 100: unknown spot (punto-banco takes player, banker, tie, player-pair, banker-pair)"},
		{"over the limit", "punto-banco", seed, []games.Bet{{Seat: 1, Spot: "banker", Amount: 50001}},
			"punto-banco: seat 1: banker 50001: outside the table's banker limit 500–50000 (seed 003)"},
		{"under the limit", "punto-banco", seed, []games.Bet{{Seat: 1, Spot: "player", Amount: 499}},
			"punto-banco: seat 1: player 499: outside the table's player limit 500–50000 (seed 003)"},
		{"tie over its own maximum", "punto-banco", seed, []games.Bet{{Seat: 1, Spot: "tie", Amount: 6001}},
			"punto-banco: seat 1: tie 6001: outside the table's tie limit 500–6000 (seed 003)"},
		{"tie alone under its minimum", "punto-banco", seed, []games.Bet{{Seat: 1, Spot: "tie", Amount: 100}},
			"punto-banco: seat 1: tie 100: outside the table's tie limit 500–6000 (seed 003)"},
		{"tie with another seat's bet is still alone", "punto-banco", seed, []games.Bet{{Seat: 2, Spot: "player", Amount: 500}, {Seat: 1, Spot: "tie", Amount: 100}},
			"punto-banco: seat 1: tie 100: outside the table's tie limit 500–6000 (seed 003)"},
		{"tie with a bet, under the lower minimum", "punto-banco", map[string]string{OptLimits: "25-1000"}, []games.Bet{{Seat: 1, Spot: "player", Amount: 2500}, {Seat: 1, Spot: "tie", Amount: 499}},
			"punto-banco: seat 1: tie 499: outside the table's tie limit 500–12000 (seed 003)"},
		{"twice on one spot", "punto-banco", nil, []games.Bet{{Seat: 1, Spot: "player", Amount: 100}, {Seat: 1, Spot: "player", Amount: 100}},
			"punto-banco: seat 1: player 100: a second bet on the same spot: one bet per seat and spot"},
		{"no seat", "punto-banco", nil, []games.Bet{{Spot: "player", Amount: 100}},
			"punto-banco: player 100: a bet must name its seat (box) 1 or above"},
		{"negative", "punto-banco", nil, []games.Bet{{Seat: 1, Spot: "player", Amount: -100}},
			"punto-banco: seat 1: player -100: a bet must be a positive amount of cents"},
		{"huge", "punto-banco", nil, []games.Bet{{Seat: 1, Spot: "tie", Amount: 1 << 62}},
			"punto-banco: seat 1: tie 4611686018427387904: over the engine's largest stake 1099511627776 cents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustNew(t, games.Config{Game: tc.game, Options: tc.opts})
			err := e.Begin(tc.bets)
			var re *games.RuleError
			if !errors.As(err, &re) || err.Error() != tc.want {
				t.Fatalf("Begin: %v\nwant %s", err, tc.want)
			}
		})
	}
	// seed 003: the lower tie minimum with other bets, and the maximum in range.
	e := mustNew(t, games.Config{Game: "punto-banco", Options: seed})
	if err := e.Begin([]games.Bet{{Seat: 1, Spot: "banker", Amount: 500}, {Seat: 1, Spot: "tie", Amount: 100}, {Seat: 2, Spot: "tie", Amount: 6000}}); err != nil {
		t.Errorf("tie 100 with a banker bet: %v", err)
	}
	// Limits in the configuration override the preset spot by spot.
	e = mustNew(t, games.Config{Game: "punto-banco", Options: seed, Limits: []games.Limit{{Spot: "banker", Min: 100, Max: 200}}})
	if err := e.Begin([]games.Bet{{Seat: 1, Spot: "banker", Amount: 100}}); err != nil {
		t.Errorf("configured banker limit: %v", err)
	}
	if err := e.Begin([]games.Bet{{Seat: 1, Spot: "player", Amount: 100}}); err == nil {
		t.Error("preset player limit not applied")
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		cfg  games.Config
		want string
	}{
		{games.Config{Game: "mini-baccarat"}, `baccarat: unknown game "mini-baccarat" (known: punto-banco, baccarat, chemin-de-fer)`},
		{games.Config{Game: "punto-banco", Rules: "macau"}, `baccarat: punto-banco has no rule presets (got "macau")`},
		{games.Config{Game: "punto-banco", Options: map[string]string{"limits": "2-200"}}, `baccarat: unknown table range "2-200" (seed 003: 1-100, 5-500, 25-1000)`},
		{games.Config{Game: "punto-banco", Options: map[string]string{"commission": "4"}}, `baccarat: unknown option "commission" for punto-banco`},
		{games.Config{Game: "punto-banco", Options: map[string]string{"tie-min-with-bet": "-3"}}, `baccarat: option tie-min-with-bet: "-3" is not a positive number of cents`},
		{games.Config{Game: "baccarat", Options: map[string]string{"bank": "1000"}}, `baccarat: option "bank" is for chemin-de-fer only`},
		{games.Config{Game: "punto-banco", Limits: []games.Limit{{Spot: "tie", Min: 500, Max: 100}}}, `baccarat: limit for tie: 500–100 is not a range of positive cents`},
	} {
		if _, err := New(tc.cfg); err == nil || err.Error() != tc.want {
			t.Errorf("New(%+v): %v\nwant %s", tc.cfg, err, tc.want)
		}
	}
}

func TestBaccaratTieVoidsTheCoup(t *testing.T) {
	e := mustNew(t, games.Config{Game: "baccarat"})
	bets := []games.Bet{
		{Seat: 1, Spot: SpotPlayer, Amount: 1000},
		{Seat: 2, Spot: SpotBanker, Amount: 1000},
		{Seat: 3, Spot: SpotPlayerPair, Amount: 200},
	}
	if err := e.Begin(bets); err != nil {
		t.Fatal(err)
	}
	var say []string
	for i, c := range cards(t, "3s 6h 3d Tc") {
		n := e.Need()
		if n.Face != games.FaceUp {
			t.Errorf("card %d dealt %v, want face up", i+1, n.Face)
		}
		st, err := e.Card(c)
		if err != nil {
			t.Fatal(err)
		}
		say = append(say, games.Words(st.Say)...)
		if st.Reveal != nil {
			t.Errorf("reveal %v", st.Reveal)
		}
	}
	if want := []string{"card to banker", "card to player", "card to banker", "player stands on 6", "banker stands on 6", "tie 6 to 6", "the coup is void: every bet pushes"}; !reflect.DeepEqual(say, want) {
		t.Errorf("say %q", say)
	}
	o, err := e.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range o.Settlements {
		if s.Net != 0 {
			t.Errorf("%+v: a tie voids the coup, every bet pushes (pair included)", s)
		}
	}
	// A non-tie coup settles as punto banco.
	if err := e.Begin(bets); err != nil {
		t.Fatal(err)
	}
	for _, c := range cards(t, "3s 2h 3d Tc") { // player 6 stands, banker 2 draws
		if _, err := e.Card(c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Card(card.MustParse("7h")); err != nil { // banker 9
		t.Fatal(err)
	}
	o, _ = e.Outcome()
	if o.Result != "banker" || o.Net() != -1000+950+2200 {
		t.Errorf("result %s net %d", o.Result, o.Net())
	}
}
