package floor

import (
	"math/big"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
)

// simulateShoes plays whole shoes of a simulated baccarat table configured by cfg and returns
// its secure feed.
func simulateShoes(t testing.TB, cfg games.Config, seed uint64, shoes, misreadEvery int) []tablebus.Event {
	t.Helper()
	proc, err := shoe.ProcedureFor(shoe.Baccarat, 0)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := catalog.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1", Manage: catalog.Manage})
	if err != nil {
		t.Fatal(err)
	}
	tb := shoetest.NewTable(m, shoetest.NewDealer(cfg.Game, proc, seed), simStart)
	tb.MisreadEvery = misreadEvery
	var out []tablebus.Event
	var seq uint64
	tb.Emit = func(e tablebus.Event) error {
		seq++
		e.V, e.Seq, e.Table, e.Source, e.Session = tablebus.SchemaVersion, seq, "T1", tablebus.SourceTable, 1
		out = append(out, e)
		return nil
	}
	if err := tb.RunShoes(shoes, shoes*5000); err != nil {
		t.Fatal(err)
	}
	return out
}

func evOf(t *testing.T, v *OddsView, spot string) *BetEV {
	t.Helper()
	if v == nil {
		t.Fatal("no live odds")
	}
	for i := range v.Bets {
		if v.Bets[i].Spot == spot {
			return &v.Bets[i]
		}
	}
	t.Fatalf("no live odds for %s: %+v", spot, v)
	return nil
}

// TestOddsFullShoe: before a card leaves the shoe, the live odds are the published 8-deck
// figures (issue 20): EZ's banker 1.0183%, Dragon 7 7.6113%, Panda 8 10.1876%.
func TestOddsFullShoe(t *testing.T) {
	f := New(Options{})
	if err := f.Configure("T1", TableConfig{PayTable: "ez"}); err != nil {
		t.Fatal(err)
	}
	f.Apply(Delivery{Event: &tablebus.Event{V: 1, Seq: 1, Type: tablebus.ShoeLoaded, Table: "T1", Source: "table", Game: "punto-banco", Decks: 8, Count: 416, Shoe: "T1-000001"}})
	v, _ := f.Table("T1")
	for spot, want := range map[string]string{"banker": "-1.0183", "player": "-1.2351", "dragon-7": "-7.6113", "panda-8": "-10.1876",
		"tie": "-14.3596", "player-dragon": "-2.6517", "perfect-pair": "-13.0294"} {
		b := evOf(t, v.Odds, spot)
		if b.EV != want || b.Full != want || b.Player {
			t.Errorf("%s: %+v, want %s", spot, *b, want)
		}
	}
	if v.Odds.Left != 416 || v.Odds.PayTable != "ez" || v.Odds.Heavy != DefaultHeavySideBet || v.Odds.Unknown != 0 {
		t.Errorf("odds %+v", v.Odds)
	}
	if err := f.Configure("T1", TableConfig{PayTable: "ez-plus"}); err == nil || !strings.Contains(err.Error(), `unknown pay table "ez-plus"`) {
		t.Errorf("a bad pay table: %v", err)
	}
}

// TestOddsFollowTheShoe plays 400 coups of simulated shoes and requires, after every coup, each
// bet's live expected return to be exactly what a direct enumeration over the cards left gives:
// the cards left worked out here from the feed, and refOdds, this test's own enumeration with
// its own tableau and pay tables (RULES.md §2).
func TestOddsFollowTheShoe(t *testing.T) {
	for _, table := range []string{"standard", "ez", "super6"} {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			// A few hundred coups at the standard table, a shoe at the others.
			shoes := 1
			if table == "standard" && !testing.Short() {
				shoes = 3
			}
			cfg := games.Config{Game: "punto-banco", Options: map[string]string{"paytable": table}}
			evs := simulateShoes(t, cfg, 20+uint64(len(table)), shoes, 0)
			f := New(Options{})
			if err := f.Configure("T1", TableConfig{PayTable: table}); err != nil {
				t.Fatal(err)
			}
			var left card.Counts
			checked, perfect, cut := 0, 0, false
			for _, e := range evs {
				f.Apply(Delivery{Event: &e})
				switch e.Type {
				case tablebus.ShoeLoaded:
					left, cut = card.Decks(e.Decks), false
				case tablebus.Burn, tablebus.CardDealt:
					left.Remove(*e.Card)
				case tablebus.CutCardReached:
					cut = true
				}
				if e.Type != tablebus.RoundResult {
					continue
				}
				v, _ := f.Table("T1")
				if cut { // the shoe ends with this coup: no figures for a next one
					if len(v.Odds.Bets) != 0 || !strings.Contains(v.Odds.Note, "stop card") {
						t.Fatalf("after the last coup: %+v", v.Odds)
					}
					continue
				}
				if v.Odds.Left != left.Total() || v.Odds.Unknown != 0 {
					t.Fatalf("after round %d: %d cards left and %d unknown, the feed says %d", e.Round, v.Odds.Left, v.Odds.Unknown, left.Total())
				}
				// The perfect pair's direct count is over every four cards: now and then.
				withPerfect := checked%40 == 0
				ref := refOdds(left, table, withPerfect)
				for spot, want := range ref {
					got := evOf(t, v.Odds, spot)
					if got.ev.Cmp(want) != 0 {
						t.Fatalf("after round %d (%d cards left): %s returns %s (%s), the direct enumeration %s",
							e.Round, left.Total(), spot, got.ev.FloatString(12), got.EV, want.FloatString(12))
					}
				}
				checked++
				if withPerfect {
					perfect++
				}
			}
			if checked < 70*shoes {
				t.Fatalf("%d coups checked", checked)
			}
			t.Logf("%s: %d coups, each bet's live odds equal to the direct enumeration (the perfect pair at %d of them)", table, checked, perfect)
		})
	}
}

// refBankerDraws is the banker's third card rule as the published grid gives it (seed 003
// "Regla para la tercera carta"): rows the banker's two-card total, columns the player's third
// card's value.
var refBankerDraws = [8]string{
	"HHHHHHHHHH", "HHHHHHHHHH", "HHHHHHHHHH", "HHHHHHHHSH",
	"SSHHHHHHSS", "SSSSHHHHSS", "SSSSSSHHSS", "SSSSSSSSSS",
}

// hand is a hand's card values as refOdds deals them.
type hand struct {
	c [3]int
	n int
}

func (h hand) with(v int) hand { h.c[h.n] = v; h.n++; return h }

func (h hand) total() int { return (h.c[0] + h.c[1] + h.c[2]) % 10 }

// refOdds enumerates every coup the cards left can deal, one card at a time, and returns each
// bet's expected return per unit (the perfect pair only when perfect): the value bets over the
// cards' values, the pair bets over their ranks (and the perfect pair over the cards).
func refOdds(left card.Counts, table string, perfect bool) map[string]*big.Rat {
	var val [10]int64
	var rank [13]int64
	for i, n := range left {
		c := card.FromIndex(i)
		v := int(c.Rank())
		if v >= 10 {
			v = 0
		}
		val[v] += int64(n)
		rank[c.Rank()-1] += int64(n)
	}
	n := int64(left.Total())
	// Each coup counts as six cards dealt: its sequences times the ways to deal the rest.
	six := big.NewInt(1)
	for k := int64(0); k < 6; k++ {
		six.Mul(six, big.NewInt(n-k))
	}
	spots := []string{"player", "banker", "tie", "dragon-7", "panda-8", "lucky-6", "player-dragon", "banker-dragon"}
	// Returns are summed in twentieths of a unit (0.95:1 is 19, 1:2 is 10), as integers, by
	// the spot's place in spots.
	var sum [8]int64
	const (
		player = iota
		banker
		tie
		dragon7
		panda8
		lucky6
		playerDragon
		bankerDragon
	)
	// settle adds a coup's weight w (of six-card sequences) to every bet's return.
	settle := func(w int64, p, b hand) {
		pf, bf := p.total(), b.total()
		pn, bn := p.n == 2 && pf >= 8, b.n == 2 && bf >= 8
		add := func(spot int, num, den int64) { sum[spot] += w * num * 20 / den }
		lose := func(spot int) { add(spot, -1, 1) }
		switch {
		case pf > bf:
			add(player, 1, 1)
			lose(banker)
		case bf > pf:
			lose(player)
			switch {
			case table == "ez" && bf == 7 && b.n == 3: // a push
			case table == "ez", table == "super6" && bf != 6:
				add(banker, 1, 1)
			case table == "super6":
				add(banker, 1, 2)
			default:
				add(banker, 19, 20)
			}
		}
		if pf == bf {
			add(tie, 8, 1)
		} else {
			lose(tie)
		}
		if bf > pf && bf == 7 && b.n == 3 {
			add(dragon7, 40, 1)
		} else {
			lose(dragon7)
		}
		if pf > bf && pf == 8 && p.n == 3 {
			add(panda8, 25, 1)
		} else {
			lose(panda8)
		}
		switch {
		case bf > pf && bf == 6 && b.n == 2:
			add(lucky6, 12, 1)
		case bf > pf && bf == 6:
			add(lucky6, 20, 1)
		default:
			lose(lucky6)
		}
		margin := [10]int64{4: 1, 5: 2, 6: 4, 7: 6, 8: 10, 9: 30}
		for _, side := range [2]struct {
			spot               int
			own, other         int
			natural, otherNatl bool
		}{{playerDragon, pf, bf, pn, bn}, {bankerDragon, bf, pf, bn, pn}} {
			switch {
			case side.natural && side.own > side.other:
				add(side.spot, 1, 1)
			case side.natural && side.otherNatl && side.own == side.other: // a push
			case !side.natural && side.own-side.other >= 4:
				add(side.spot, margin[side.own-side.other], 1)
			default:
				lose(side.spot)
			}
		}
	}
	// deal draws one card's value for the player (toPlayer) or the banker: its weight is how
	// many cards of that value are left; then the coup goes on by the tableau.
	var next func(w int64, k int, p, b hand)
	deal := func(w int64, k int, p, b hand, toPlayer bool) {
		for v := range 10 {
			if val[v] == 0 {
				continue
			}
			c := val[v]
			val[v]--
			if toPlayer {
				next(w*c, k+1, p.with(v), b)
			} else {
				next(w*c, k+1, p, b.with(v))
			}
			val[v]++
		}
	}
	next = func(w int64, k int, p, b hand) {
		if k < 4 { // player, banker, player, banker
			deal(w, k, p, b, k%2 == 0)
			return
		}
		pt, bt := (p.c[0]+p.c[1])%10, (b.c[0]+b.c[1])%10
		done := func() {
			tail := int64(1)
			for j := int64(k); j < 6; j++ {
				tail *= n - j
			}
			settle(w*tail, p, b)
		}
		switch {
		case pt >= 8 || bt >= 8: // a natural
			done()
		case p.n == 2 && pt <= 5: // the player draws on 0–5
			deal(w, k, p, b, true)
		case p.n == 2 && b.n == 2 && bt <= 5: // the player stood: the banker draws on 0–5
			deal(w, k, p, b, false)
		case p.n == 3 && b.n == 2 && refBankerDraws[bt][p.c[2]] == 'H':
			deal(w, k, p, b, false)
		default:
			done()
		}
	}
	next(1, 0, hand{}, hand{})
	out := map[string]*big.Rat{}
	for i, s := range spots {
		out[s] = new(big.Rat).SetFrac(big.NewInt(sum[i]), new(big.Int).Mul(six, big.NewInt(20)))
	}
	// The pairs, over the ranks of the first four cards: player, banker, player, banker.
	var pp, either int64
	four := n * (n - 1) * (n - 2) * (n - 3)
	for a := range 13 {
		wa := rank[a]
		rank[a]--
		for b := range 13 {
			wb := wa * rank[b]
			rank[b]--
			for c := range 13 {
				wc := wb * rank[c]
				rank[c]--
				for d := range 13 {
					w := wc * rank[d]
					if w <= 0 {
						continue
					}
					if a == c {
						pp += w
					}
					if a == c || b == d {
						either += w
					}
				}
				rank[c]++
			}
			rank[b]++
		}
		rank[a]++
	}
	ret := func(win, pays int64) *big.Rat { return big.NewRat(win*pays-(four-win), four) }
	out["player-pair"], out["banker-pair"], out["either-pair"] = ret(pp, 11), ret(pp, 11), ret(either, 5)
	if perfect {
		var cs [52]int64
		for i, k := range left {
			cs[i] = int64(k)
		}
		var pf int64
		for a := range 52 {
			wa := cs[a]
			cs[a]--
			for b := range 52 {
				wb := wa * cs[b]
				if wb <= 0 {
					continue
				}
				cs[b]--
				for c := range 52 {
					wc := wb * cs[c]
					if wc <= 0 {
						continue
					}
					cs[c]--
					for d := range 52 {
						if a == c || b == d {
							pf += wc * cs[d]
						}
					}
					cs[c]++
				}
				cs[b]++
			}
			cs[a]++
		}
		out["perfect-pair"] = ret(pf, 25)
	}
	return out
}

// fed applies events to a floor, numbering them, and returns the alerts they raised.
type fed struct {
	f   *Floor
	seq uint64
}

func (d *fed) apply(e tablebus.Event) []Alert {
	d.seq++
	e.V, e.Seq, e.Table, e.Source, e.Shoe = 1, d.seq, "T1", "table", "T1-000001"
	return d.f.Apply(Delivery{Event: &e})
}

// TestOddsAlert: with every eight and nine burned, the Dragon 7 (a banker three-card 7: no
// naturals to stop it) favours the player. A seat that puts at least half its main bet on it
// (the default heavy side bet), or bets it alone, raises an alert; a small Dragon 7 beside a
// main bet does not; a table configured with a higher threshold lets the same bet pass.
func TestOddsAlert(t *testing.T) {
	for _, tc := range []struct {
		name  string
		heavy int // the table's option; 0 the default
		bets  []tablebus.Bet
		want  []string // the seats the alerts name
	}{
		{name: "heavy", bets: []tablebus.Bet{{Seat: 3, Spot: "banker", Amount: 1000}, {Seat: 3, Spot: "dragon-7", Amount: 500}}, want: []string{"seat 3 bets 5.00 on dragon-7, 50% of its player and banker bets"}},
		{name: "alone", bets: []tablebus.Bet{{Seat: 5, Spot: "dragon-7", Amount: 100}}, want: []string{"seat 5 bets 1.00 on dragon-7, with no bet on player or banker"}},
		{name: "light", bets: []tablebus.Bet{{Seat: 4, Spot: "banker", Amount: 1000}, {Seat: 4, Spot: "dragon-7", Amount: 499}}},
		{name: "unfavourable bet", bets: []tablebus.Bet{{Seat: 4, Spot: "panda-8", Amount: 5000}}},
		{name: "configured higher", heavy: 200, bets: []tablebus.Bet{{Seat: 3, Spot: "player", Amount: 1000}, {Seat: 3, Spot: "dragon-7", Amount: 1500}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &fed{f: New(Options{})}
			if err := d.f.Configure("T1", TableConfig{PayTable: "ez", HeavySideBet: tc.heavy}); err != nil {
				t.Fatal(err)
			}
			d.apply(tablebus.Event{Type: tablebus.ShoeLoaded, Game: "punto-banco", Decks: 8, Count: 416})
			pos := 0
			for _, r := range []card.Rank{card.Eight, card.Nine} {
				for _, s := range []card.Suit{card.Spades, card.Hearts, card.Diamonds, card.Clubs} {
					for range 8 {
						pos++
						c := card.New(r, s)
						down := tablebus.FaceDown
						d.apply(tablebus.Event{Type: tablebus.Burn, Card: &c, Face: &down, Pos: pos})
					}
				}
			}
			alerts := d.apply(tablebus.Event{Type: tablebus.RoundOpened, Round: 1, Game: "punto-banco", Bets: tc.bets})
			v, _ := d.f.Table("T1")
			d7 := evOf(t, v.Odds, "dragon-7")
			if !d7.Player || !strings.HasPrefix(d7.EV, "+") || v.Odds.Left != 352 {
				t.Fatalf("no eights or nines: dragon 7 %+v, %d left", *d7, v.Odds.Left)
			}
			if evOf(t, v.Odds, "panda-8").Player {
				t.Fatal("panda 8 favourable without eights")
			}
			t.Logf("no eights or nines: dragon 7 returns %s%%", d7.EV)
			if len(alerts) != len(tc.want) {
				t.Fatalf("%d alerts %+v, want %d", len(alerts), alerts, len(tc.want))
			}
			for i, a := range alerts {
				if a.Kind != KindAdvantage || a.Severity != Warning || a.Round != 1 || !strings.HasPrefix(a.Text, tc.want[i]) ||
					!strings.Contains(a.Text, "while it favours the player by "+d7.EV[1:]+"% for the 352 cards left (coup 1 of the shoe)") {
					t.Errorf("alert %+v", a)
				}
			}
		})
	}
}

// TestOddsNeedTheSecureFeed: the public feed hides the burned cards, so a view of it shows no
// live odds, and says why.
func TestOddsNeedTheSecureFeed(t *testing.T) {
	evs := simulateShoes(t, games.Config{Game: "punto-banco"}, 3, 1, 0)
	f := New(Options{})
	for _, e := range evs[:200] {
		p := e.Public()
		f.Apply(Delivery{Event: &p})
	}
	v, _ := f.Table("T1")
	if v.Odds == nil || len(v.Odds.Bets) != 0 || !strings.Contains(v.Odds.Note, "the secure feed") {
		t.Errorf("odds on the public feed: %+v", v.Odds)
	}
	// Chemin de fer's tableau has options: no live odds.
	f = New(Options{})
	f.Apply(Delivery{Event: &tablebus.Event{V: 1, Seq: 1, Type: tablebus.ShoeLoaded, Table: "T2", Source: "table", Game: "chemin-de-fer", Decks: 8, Count: 416}})
	if v, _ := f.Table("T2"); v.Odds != nil {
		t.Errorf("chemin de fer odds %+v", v.Odds)
	}
}

// BenchmarkOddsPerCoup is the live odds' cost to the view per coup: a whole simulated shoe
// through the floor, per coup (issue 20: well under the time between two coups).
func BenchmarkOddsPerCoup(b *testing.B) {
	evs := simulateShoes(b, games.Config{Game: "punto-banco", Options: map[string]string{"paytable": "ez"}}, 9, 1, 0)
	coups := 0
	for _, e := range evs {
		if e.Type == tablebus.RoundResult {
			coups++
		}
	}
	for b.Loop() {
		f := New(Options{})
		for i := range evs {
			f.Apply(Delivery{Event: &evs[i]})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*coups), "ms/coup")
}
