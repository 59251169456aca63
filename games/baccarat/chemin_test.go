package baccarat

import (
	"errors"
	"reflect"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

func chemmy(t *testing.T, opts map[string]string) *Engine {
	t.Helper()
	return mustNew(t, games.Config{Game: "chemin-de-fer", Options: opts})
}

// play deals cards and answers decisions in order: an entry "seat:draw" answers a decision.
func play(t *testing.T, e *Engine, steps ...string) []string {
	t.Helper()
	var say []string
	for _, s := range steps {
		n := e.Need()
		var st games.Step
		var err error
		if len(s) > 2 && s[1] == ':' {
			if n.Kind != games.NeedDecision || n.Seat != int(s[0]-'0') || !reflect.DeepEqual(n.Options, []string{"draw", "stand"}) {
				t.Fatalf("step %q: need %v", s, n)
			}
			st, err = e.Decide(int(s[0]-'0'), s[2:])
		} else {
			if n.Kind != games.NeedCard {
				t.Fatalf("step %q: need %v", s, n)
			}
			st, err = e.Card(card.MustParse(s))
		}
		if err != nil {
			t.Fatalf("step %q: %v", s, err)
		}
		say = append(say, games.Words(st.Say)...)
	}
	if n := e.Need(); n.Kind != games.NeedDone {
		t.Fatalf("after the steps: need %v", n)
	}
	return say
}

func TestCheminDeFerOptions(t *testing.T) {
	bets := []games.Bet{{Seat: 3, Spot: SpotPlayer, Amount: 3000}, {Seat: 5, Spot: SpotPlayer, Amount: 3000}, {Seat: 4, Spot: SpotPlayer, Amount: 1000}}
	for _, tc := range []struct {
		name   string
		steps  []string
		say    []string
		result string
	}{
		{
			// Seats 3 and 5 stake the same; 3 is nearer the banker (seat 1) and plays the hand.
			name:  "punter stands on 5, banker draws on 4",
			steps: []string{"2s", "4h", "3d", "Kc", "3:stand", "5c"},
			say: []string{"card to banker", "card to player", "card to banker", "punter's option on 5: draw or stand",
				"player stands on 5", "banker draws", "banker wins 9 to 5"},
			result: "banker",
		},
		{
			name:  "punter draws on 5, banker's option on 3 against a 9",
			steps: []string{"2s", "Ah", "3d", "2c", "3:draw", "9h", "1:stand"},
			say: []string{"card to banker", "card to player", "card to banker", "punter's option on 5: draw or stand",
				"player draws", "banker's option on 3: draw or stand", "banker stands on 3", "player wins 4 to 3"},
			result: "player",
		},
		{
			name:  "banker's option on 5 against a 4, drawing",
			steps: []string{"2s", "Ah", "Kd", "4c", "4s", "1:draw", "Th"},
			say: []string{"card to banker", "card to player", "card to banker", "player draws", "banker's option on 5: draw or stand",
				"banker draws", "player wins 6 to 5"},
			result: "player",
		},
		{
			name:   "punter 4 must draw, banker 5 against a 5 must draw",
			steps:  []string{"4s", "Ah", "Kd", "4c", "5s", "3h"},
			result: "player",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := chemmy(t, map[string]string{OptBank: "10000"})
			if err := e.Begin(bets); err != nil {
				t.Fatal(err)
			}
			say := play(t, e, tc.steps...)
			if len(tc.say) > 0 && !reflect.DeepEqual(say, tc.say) {
				t.Errorf("say\n got %q\nwant %q", say, tc.say)
			}
			o, err := e.Outcome()
			if err != nil || o.Result != tc.result {
				t.Fatalf("%+v %v", o, err)
			}
		})
	}
}

func TestCheminDeFerFirstCardsFaceDown(t *testing.T) {
	e := chemmy(t, nil)
	if err := e.Begin([]games.Bet{{Seat: 2, Spot: SpotPlayer, Amount: 100}}); err != nil {
		t.Fatal(err)
	}
	faces := []games.Face{}
	var last games.Step
	for _, c := range []string{"2s", "Ah", "Kd", "4c", "5s", "3h"} {
		faces = append(faces, e.Need().Face)
		st, err := e.Card(card.MustParse(c))
		if err != nil {
			t.Fatal(err)
		}
		last = st
	}
	if want := []games.Face{games.FaceDown, games.FaceDown, games.FaceDown, games.FaceDown, games.FaceUp, games.FaceUp}; !reflect.DeepEqual(faces, want) {
		t.Errorf("faces %v", faces)
	}
	if !reflect.DeepEqual(last.Reveal, []int{0, 1, 2, 3}) {
		t.Errorf("reveal %v", last.Reveal)
	}
}

func TestCheminDeFerDecisionErrors(t *testing.T) {
	e := chemmy(t, map[string]string{OptBank: "10000"})
	if err := e.Begin([]games.Bet{{Seat: 3, Spot: SpotPlayer, Amount: 3000}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"2s", "4h", "3d", "Kc"} {
		if _, err := e.Card(card.MustParse(c)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		seat int
		d    string
		want string
	}{
		{4, "draw", "chemin-de-fer: seat 4: draw: not this seat's turn: the option is seat 3's"},
		{3, "H", `chemin-de-fer: seat 3: H: the option is "draw" or "stand" (RULES.md §8)`},
	} {
		if _, err := e.Decide(tc.seat, tc.d); err == nil || err.Error() != tc.want {
			t.Errorf("Decide(%d, %q): %v\nwant %s", tc.seat, tc.d, err, tc.want)
		}
	}
	_, err := e.Card(card.MustParse("5c"))
	var re *games.RuleError
	if !errors.As(err, &re) || re.Rule != "card out of turn: dealer error: waiting for seat 3 to draw or stand on 5" {
		t.Errorf("card while the punter decides: %v", err)
	}
}

func TestCheminDeFerBank(t *testing.T) {
	e := chemmy(t, map[string]string{OptBanker: "2", OptBank: "10000", OptSeats: "5", OptBankMin: "1000"})
	// Coup 1: seat 4 calls banco (covers the whole bank) and loses: the bank doubles less 5%.
	if err := e.Begin([]games.Bet{{Seat: 4, Spot: SpotPlayer, Amount: 10000}}); err != nil {
		t.Fatal(err)
	}
	play(t, e, "Ks", "9h", "8d", "Jc")
	o, err := e.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	d := o.Detail.(CheminDetail)
	if d.Banco != 4 || d.Punter != 4 || d.Stake != 10000 || d.Commission != 500 || d.After.Amount != 19500 || d.After.Coups != 1 {
		t.Errorf("coup 1 detail %+v", d)
	}
	if want := []games.Settlement{{Seat: 4, Spot: "player", Amount: 10000, Net: -10000}, {Seat: 2, Spot: "bank", Amount: 10000, Net: 9500}}; !reflect.DeepEqual(o.Settlements, want) {
		t.Errorf("coup 1 settlements %+v", o.Settlements)
	}
	if o.Net() != -500 {
		t.Errorf("the house's take is the commission: players net %d", o.Net())
	}
	// Bets over the bank are refused.
	err = e.Begin([]games.Bet{{Seat: 1, Spot: SpotPlayer, Amount: 10000}, {Seat: 3, Spot: SpotPlayer, Amount: 9501}})
	if err == nil || err.Error() != "chemin-de-fer: seat 3: player 9501: the punters' bets come to 19501, more than the bank of 19500 (seed 000: no one plays more than the bank)" {
		t.Errorf("over the bank: %v", err)
	}
	if err := e.Begin([]games.Bet{{Seat: 2, Spot: SpotPlayer, Amount: 1000}}); err == nil {
		t.Error("the banker punted against the own bank")
	}
	if err := e.Manage(BankAction{Action: "raise", Seat: 2, Amount: 19000}); err == nil {
		t.Error("the bank was lowered")
	}
	if err := e.Manage(BankAction{Action: "raise", Seat: 2, Amount: 20000}); err != nil {
		t.Fatal(err)
	}
	// Coup 2: the banker hand loses; the bank pays and passes to seat 3.
	if err := e.Begin([]games.Bet{{Seat: 1, Spot: SpotPlayer, Amount: 5000}, {Seat: 5, Spot: SpotPlayer, Amount: 2000}}); err != nil {
		t.Fatal(err)
	}
	play(t, e, "4s", "2h", "5d", "3c")
	o, _ = e.Outcome()
	d = o.Detail.(CheminDetail)
	wantAfter := Bank{Phase: BankOffered, Seats: 5, Min: 1000, Offer: 3, OfferMin: 1000, Passer: 2, Returned: 13000}
	if d.Punter != 1 || d.Stake != 7000 || d.Commission != 0 || !reflect.DeepEqual(d.After, wantAfter) {
		t.Errorf("coup 2 detail %+v", d)
	}
	if o.Settlements[2] != (games.Settlement{Seat: 2, Spot: "bank", Amount: 7000, Net: -7000}) || o.Net() != 0 {
		t.Errorf("coup 2 settlements %+v", o.Settlements)
	}
	if !reflect.DeepEqual(*e.Bank(), wantAfter) {
		t.Errorf("bank %+v", *e.Bank())
	}
	if err := e.Begin([]games.Bet{{Seat: 1, Spot: SpotPlayer, Amount: 1000}}); err == nil {
		t.Error("a coup began with nobody holding the bank")
	}
	// The rotation: 3 declines, 4 declines, 5 declines, 1 declines: the passer (2) lost the bank,
	// so it goes to auction without it.
	for _, s := range []int{3, 4, 5} {
		if err := e.Manage(BankAction{Action: "decline", Seat: s}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Manage(BankAction{Action: "accept", Seat: 3, Amount: 5000}); err == nil {
		t.Error("a seat that declined took the bank")
	}
	if err := e.Manage(BankAction{Action: "decline", Seat: 1}); err != nil {
		t.Fatal(err)
	}
	if b := e.Bank(); b.Phase != BankAuction || !reflect.DeepEqual(b.Excluded, []int{2}) {
		t.Fatalf("bank %+v", b)
	}
	for _, tc := range []struct {
		a    BankAction
		fail bool
	}{
		{BankAction{Action: "bid", Seat: 2, Amount: 5000}, true}, // the passer
		{BankAction{Action: "bid", Seat: 4, Amount: 999}, true},  // under the minimum
		{BankAction{Action: "bid", Seat: 4, Amount: 3000}, false},
		{BankAction{Action: "bid", Seat: 5, Amount: 3000}, true}, // not above the best bid
		{BankAction{Action: "bid", Seat: 5, Amount: 4000}, false},
		{BankAction{Action: "close"}, false},
	} {
		if err := e.Manage(tc.a); (err != nil) != tc.fail {
			t.Errorf("%+v: %v", tc.a, err)
		}
	}
	if b := e.Bank(); b.Phase != BankHeld || b.Banker != 5 || b.Amount != 4000 || b.Coups != 0 {
		t.Fatalf("after the auction %+v", b)
	}
	// The new banker must deal once: withdrawing at once sends the bank to auction, neither
	// the new banker nor the previous one bidding; with no bid it goes to the seat after
	// the banker who passed it, at the minimum.
	if err := e.Manage(BankAction{Action: "withdraw", Seat: 5}); err != nil {
		t.Fatal(err)
	}
	if b := e.Bank(); b.Phase != BankAuction || !reflect.DeepEqual(b.Excluded, []int{5, 2}) {
		t.Fatalf("refused to deal: %+v", b)
	}
	if err := e.Manage(BankAction{Action: "close"}); err != nil {
		t.Fatal(err)
	}
	if b := e.Bank(); b.Phase != BankHeld || b.Banker != 1 || b.Amount != 1000 {
		t.Fatalf("no bids: %+v", b)
	}
	// Seat 1 deals a tie (nothing changes hands) and withdraws while winning: the offer
	// rotates at the withdrawn amount, and after everyone declines seat 1 may take it back.
	if err := e.Begin([]games.Bet{{Seat: 3, Spot: SpotPlayer, Amount: 500}}); err != nil {
		t.Fatal(err)
	}
	play(t, e, "3s", "6h", "3d", "Tc")
	if o, _ := e.Outcome(); o.Result != "tie" || o.Net() != 0 {
		t.Fatalf("tie: %+v", o)
	}
	if err := e.Manage(BankAction{Action: "withdraw", Seat: 1}); err != nil {
		t.Fatal(err)
	}
	if b := e.Bank(); b.Phase != BankOffered || b.Offer != 2 || b.OfferMin != 1000 || !b.Voluntary || b.Returned != 1000 {
		t.Fatalf("withdrawn: %+v", b)
	}
	if err := e.Manage(BankAction{Action: "accept", Seat: 2, Amount: 999}); err == nil {
		t.Error("the bank taken for less than the banker withdrew")
	}
	for _, s := range []int{2, 3, 4, 5} {
		if err := e.Manage(BankAction{Action: "decline", Seat: s}); err != nil {
			t.Fatal(err)
		}
	}
	if b := e.Bank(); b.Phase != BankOffered || b.Offer != 1 {
		t.Fatalf("back to the passer: %+v", b)
	}
	if err := e.Manage(BankAction{Action: "accept", Seat: 1, Amount: 1500}); err != nil {
		t.Fatal(err)
	}
	if b := e.Bank(); b.Phase != BankHeld || b.Banker != 1 || b.Amount != 1500 {
		t.Fatalf("retaken: %+v", b)
	}
	// Bank management is refused in the middle of a coup, and in the other games.
	if err := e.Begin([]games.Bet{{Seat: 3, Spot: SpotPlayer, Amount: 500}}); err != nil {
		t.Fatal(err)
	}
	if err := e.Manage(BankAction{Action: "raise", Seat: 1, Amount: 5000}); err == nil {
		t.Error("raise in the middle of a coup")
	}
	pb := mustNew(t, games.Config{Game: "punto-banco"})
	if err := pb.Manage(BankAction{Action: "raise", Seat: 1, Amount: 5000}); err == nil || pb.Bank() != nil {
		t.Error("punto banco has a bank")
	}
}

func TestNewBankRefuses(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{OptSeats: "1"}, `baccarat: option seats: "1" is not a number from 2 to 99`},
		{map[string]string{OptBanker: "10"}, `baccarat: option banker: "10" is not a number from 1 to 9`},
		{map[string]string{OptBank: "50"}, `baccarat: option bank: "50" is not a number from 100 to 1099511627776 (the bank is at least the table minimum, seed 000)`},
		{map[string]string{OptBankMin: "x"}, `baccarat: option bank-min: "x" is not a number from 1 to 1099511627776`},
	} {
		if _, err := New(games.Config{Game: "chemin-de-fer", Options: tc.opts}); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v\nwant %s", tc.opts, err, tc.want)
		}
	}
	e := chemmy(t, nil)
	for _, tc := range []struct {
		bets []games.Bet
		want string
	}{
		{nil, "chemin-de-fer: coup: no punter: a coup needs at least one bet against the bank"},
		{[]games.Bet{{Seat: 2, Spot: "banker", Amount: 100}}, `chemin-de-fer: seat 2: banker 100: chemin de fer punters bet only against the bank, on "player"; the bank is the banker's stake (RULES.md §2, seed 000)`},
		{[]games.Bet{{Seat: 12, Spot: "player", Amount: 100}}, "chemin-de-fer: seat 12: player 100: the table has seats 1–9"},
	} {
		if err := e.Begin(tc.bets); err == nil || err.Error() != tc.want {
			t.Errorf("Begin(%v): %v\nwant %s", tc.bets, err, tc.want)
		}
	}
}
