package baccarat

import (
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// refCoup is an independent punto banco coup, written from the published grid (bankerGrid)
// rather than from BankerAction: it returns the player's and banker's cards.
func refCoup(cs []card.Card) (p, b []card.Card, ok bool) {
	if len(cs) < 4 {
		return nil, nil, false
	}
	val := func(h []card.Card) int {
		t := 0
		for _, c := range h {
			if c.Rank() < card.Ten {
				t += int(c.Rank())
			}
		}
		return t % 10
	}
	p, b = []card.Card{cs[0], cs[2]}, []card.Card{cs[1], cs[3]}
	i := 4
	next := func() (card.Card, bool) {
		if i >= len(cs) {
			return 0, false
		}
		i++
		return cs[i-1], true
	}
	pt, bt := val(p), val(b)
	if pt >= 8 || bt >= 8 {
		return p, b, true
	}
	bankerDraws := bt <= 5
	if pt <= 5 {
		c, ok := next()
		if !ok {
			return nil, nil, false
		}
		p = append(p, c)
		v := 0
		if c.Rank() < card.Ten {
			v = int(c.Rank())
		}
		bankerDraws = bankerGrid[bt][v] == 'H'
	}
	if bankerDraws {
		c, ok := next()
		if !ok {
			return nil, nil, false
		}
		b = append(b, c)
	}
	return p, b, true
}

// FuzzPuntoBanco deals arbitrary card sequences and checks the engine against refCoup: the same
// hands, the result, no card accepted after the coup ends, and settlements that follow the pay
// table. Nothing may panic.
func FuzzPuntoBanco(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{36, 35, 28, 44, 20, 8})
	f.Add([]byte{51, 50, 49, 48, 47, 46})
	f.Fuzz(func(t *testing.T, data []byte) {
		var cs []card.Card
		for _, d := range data {
			cs = append(cs, card.Card(d%53)) // None included: it must be refused
		}
		e, err := New(games.Config{Game: "punto-banco"})
		if err != nil {
			t.Fatal(err)
		}
		bets := []games.Bet{{Seat: 1, Spot: SpotPlayer, Amount: 1000}, {Seat: 2, Spot: SpotBanker, Amount: 1010},
			{Seat: 3, Spot: SpotTie, Amount: 100}, {Seat: 4, Spot: SpotPlayerPair, Amount: 100}, {Seat: 4, Spot: SpotBankerPair, Amount: 100}}
		if err := e.Begin(bets); err != nil {
			t.Fatal(err)
		}
		var valid []card.Card
		for _, c := range cs {
			if !c.Valid() {
				if _, err := e.Card(c); err == nil {
					t.Fatalf("card %d accepted", c)
				}
				continue
			}
			valid = append(valid, c)
		}
		used := 0
		for _, c := range valid {
			n := e.Need()
			_, err := e.Card(c)
			if n.Kind == games.NeedDone {
				if err == nil || !strings.Contains(err.Error(), "card out of turn: dealer error") {
					t.Fatalf("card %s after the coup: %v", c, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("card %s when %v: %v", c, n, err)
			}
			used++
		}
		p, b, ok := refCoup(valid)
		o, err := e.Outcome()
		if !ok {
			if err == nil {
				t.Fatalf("outcome with too few cards: %+v", o)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if o.CardsUsed != used || !equal(o.Hands[0].Cards, p) || !equal(o.Hands[1].Cards, b) {
			t.Fatalf("hands %v %v, reference %v %v", o.Hands[0].Cards, o.Hands[1].Cards, p, b)
		}
		pt, bt := Total(p), Total(b)
		want := map[string]int64{}
		switch {
		case pt > bt:
			want["player"], want["banker"], want["tie"] = 1000, -1010, -100
		case bt > pt:
			want["player"], want["banker"], want["tie"] = -1000, 1010-50, -100
		default:
			want["player"], want["banker"], want["tie"] = 0, 0, 800
		}
		want["player-pair"], want["banker-pair"] = -100, -100
		if p[0].Rank() == p[1].Rank() {
			want["player-pair"] = 1100
		}
		if b[0].Rank() == b[1].Rank() {
			want["banker-pair"] = 1100
		}
		for _, s := range o.Settlements {
			if s.Net != want[s.Spot] {
				t.Errorf("%s net %d, want %d (player %v %d, banker %v %d)", s.Spot, s.Net, want[s.Spot], p, pt, b, bt)
			}
		}
	})
}

func equal(a, b []card.Card) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzParseComposition: any input gives a composition that passes Check, or an error; never a
// panic.
func FuzzParseComposition(f *testing.F) {
	f.Add("A 32\n2 32\n3 32\n4 32\n5 32\n6 32\n7 32\n8 32\n9 32\nT 32\nJ 32\nQ 32\nK 32\n", 8)
	f.Add("As 1\nAh 1\nAd 1\nAc 1\n2 4\n3 4\n4 4\n5 4\n6 4\n7 4\n8 4\n9 4\n10 4\nJ 4\nQ 4\nK 4 # x\n", 1)
	f.Add("A -1\n", 8)
	f.Fuzz(func(t *testing.T, in string, decks int) {
		decks = 1 + (decks&7+8)%8
		c, err := ParseComposition(strings.NewReader(in), decks)
		if err != nil {
			return
		}
		if err := c.Check(decks); err != nil {
			t.Fatalf("accepted %v: %v", c, err)
		}
		x, err := ExactOdds(c)
		if err != nil {
			t.Fatal(err)
		}
		if x.Banker+x.Player+x.Tie != x.Sequences {
			t.Fatalf("counts do not add up: %+v", x)
		}
	})
}

// FuzzCheminDeFer plays coups from arbitrary bytes (cards and option answers) on one engine, coup
// after coup, and checks the money: the players' nets and the bank's cancel out but for the
// house's commission, and the bank moves by exactly the banker's net.
func FuzzCheminDeFer(f *testing.F) {
	f.Add([]byte{4, 13, 12, 7, 0, 21, 1, 3, 9, 40, 22, 8, 19, 30})
	f.Add([]byte{36, 35, 28, 44, 20, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := New(games.Config{Game: "chemin-de-fer", Options: map[string]string{OptBank: "10000", OptSeats: "4"}})
		if err != nil {
			t.Fatal(err)
		}
		for len(data) > 0 {
			b := e.Bank()
			if b.Phase != BankHeld {
				if err := e.Manage(BankAction{Action: "accept", Seat: b.Offer, Amount: b.OfferMin + 1000}); err != nil {
					t.Fatal(err)
				}
				b = e.Bank()
			}
			punter := b.Banker%4 + 1
			stake := min(b.Amount, int64(data[0])*37+1)
			if err := e.Begin([]games.Bet{{Seat: punter, Spot: SpotPlayer, Amount: stake}}); err != nil {
				t.Fatal(err)
			}
			for e.Need().Kind != games.NeedDone {
				if len(data) == 0 {
					return
				}
				d := data[0]
				data = data[1:]
				n := e.Need()
				if n.Kind == games.NeedDecision {
					if _, err := e.Decide(n.Seat, []string{"draw", "stand"}[d&1]); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if _, err := e.Card(card.Card(d%52 + 1)); err != nil {
					t.Fatal(err)
				}
			}
			o, err := e.Outcome()
			if err != nil {
				t.Fatal(err)
			}
			d := o.Detail.(CheminDetail)
			bankNet := o.Settlements[len(o.Settlements)-1].Net
			if o.Net() != -d.Commission || d.Commission != Commission(stake)*int64(btoi(o.Result == ResultBanker)) {
				t.Fatalf("players net %d, commission %d: %+v", o.Net(), d.Commission, o)
			}
			if o.Result != ResultPlayer && e.Bank().Amount != b.Amount+bankNet {
				t.Fatalf("bank %d → %d with net %d", b.Amount, e.Bank().Amount, bankNet)
			}
			if o.Result == ResultPlayer && (e.Bank().Phase != BankOffered || e.Bank().Returned != b.Amount-stake) {
				t.Fatalf("lost bank: %+v", e.Bank())
			}
			if len(o.Hands[0].Cards) > 3 || len(o.Hands[1].Cards) > 3 {
				t.Fatalf("hands %+v", o.Hands)
			}
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
