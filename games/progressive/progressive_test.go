package progressive

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

func cards(t *testing.T, s string) []card.Card {
	t.Helper()
	cs, err := card.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestParsePrize(t *testing.T) {
	tests := []struct {
		in   string
		want Prize
		err  bool
	}{
		{"100x", Prize{Multiple: 100}, false},
		{"10%", Prize{Percent: 1000}, false},
		{"12.5%", Prize{Percent: 1250}, false},
		{"0.01%", Prize{Percent: 1}, false},
		{"100%", Prize{Percent: 10000}, false},
		{"100.5%", Prize{}, true},
		{"0%", Prize{}, true},
		{"1.234%", Prize{}, true},
		{"-5x", Prize{}, true},
		{"5", Prize{}, true},
		{"x", Prize{}, true},
	}
	for _, tt := range tests {
		got, err := ParsePrize(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParsePrize(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("Prize(%q).String() = %q", tt.in, got.String())
		}
	}
}

func TestParseTable(t *testing.T) {
	const s = "royal-flush=100%,straight-flush=10%,four-of-a-kind=100x,full-house=75x,flush=50x"
	got, err := ParseTable(s)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != s || DefaultTable().String() != s {
		t.Errorf("got %q and default %q, want %q", got, DefaultTable(), s)
	}
	for _, bad := range []struct{ in, want string }{
		{"royal-flush", `progressive: bad configuration: prize table item "royal-flush" is not category=prize`},
		{"five-aces=10x", `progressive: bad configuration: hand: unknown category "five-aces"`},
		{"flush=5x,flush=6x", `progressive: bad configuration: prize table names flush twice`},
	} {
		if _, err := ParseTable(bad.in); err == nil || err.Error() != bad.want {
			t.Errorf("ParseTable(%q): got %v, want %q", bad.in, err, bad.want)
		}
	}
}

func testConfig() Config {
	return Config{
		Pool: "caribbean", Base: 1_000_000, Share: 7000,
		Reserves: []Reserve{{Name: "reserve", Share: 2000}},
		Prizes:   DefaultTable(), MagicCard: 50_000, LuckyPlayer: 20_000, RandomOdds: 1000,
	}
}

func TestConfigCheck(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"ok", func(*Config) {}, ""},
		{"no base", func(c *Config) { c.Base = 0 }, "progressive: bad configuration: pool caribbean: the main pool's base must be above zero (seed 000)"},
		{"share over 100%", func(c *Config) { c.Share = 10001 }, "progressive: bad configuration: pool caribbean: the share of each bet that feeds the pools must be above 0 and at most 10000 basis points"},
		{"reserves take all", func(c *Config) { c.Reserves[0].Share = 10000 }, "progressive: bad configuration: pool caribbean: the reserves take 10000 basis points, leaving nothing for the main pool"},
		{"reserve named main", func(c *Config) { c.Reserves[0].Name = "main" }, `progressive: bad configuration: pool caribbean: reserve pool names must be distinct, not empty, not "main"`},
		{"both prize kinds", func(c *Config) { c.Prizes[hand.Flush] = Prize{Multiple: 5, Percent: 5} }, "progressive: bad configuration: pool caribbean: prize for flush must be a positive multiple or a percentage up to 100%"},
		{"odds without prizes", func(c *Config) { c.MagicCard, c.LuckyPlayer = 0, 0 }, "progressive: bad configuration: pool caribbean: random prizes are drawn but none is offered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testConfig()
			c.Prizes = DefaultTable()
			c.Reserves = []Reserve{{Name: "reserve", Share: 2000}}
			tt.edit(&c)
			err := c.Check()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrConfig) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestSettle plays one round with two percentage winners, a fixed prize the pools must fund, a
// folded royal flush, a void hand and a magic card, with every amount worked out by hand.
func TestSettle(t *testing.T) {
	c := testConfig()
	st := State{Main: 2_000_001, Reserves: map[string]int64{"reserve": 300_000}, Commission: 7, Funded: 1_000_000}
	r := Round{Table: "T1", Round: "42", Bets: []Bet{
		{Seat: 1, Amount: 500, Cards: cards(t, "As Ks Qs Js Ts")},               // royal flush: 100%
		{Seat: 2, Amount: 1000, Cards: cards(t, "9h 8h 7h 6h 5h")},              // straight flush: 10%
		{Seat: 3, Amount: 500, Cards: cards(t, "Ad Kd Qd Jd Td"), Folded: true}, // folded: nothing
		{Seat: 4, Amount: 700, Cards: cards(t, "2c 2d 2h 2s 3c")},               // four of a kind: 100×
		{Seat: 5, Amount: 300, Void: true},                                      // void: returned
		{Seat: 6, Amount: 500, Cards: cards(t, "7c 7d 9s Tc Jh")},               // pair: nothing
	}, Draw: &Drawn{Kind: MagicCard, Seat: 6, Card: card.MustParse("9s")}}
	next, res, err := c.Settle(st, r)
	if err != nil {
		t.Fatal(err)
	}
	// Feeds: 70% to the pools, of which 20% to the reserve (rounded down), the rest to main.
	//   seat 1: 500 → pools 350 (reserve 70, main 280), commission 150
	//   seat 2: 1000 → pools 700 (reserve 140, main 560), commission 300
	//   seat 3: 500 → 350 (70, 280), 150;  seat 4: 700 → 490 (98, 392), 210
	//   seat 6: 500 → 350 (70, 280), 150;  seat 5: returned
	// main 2,000,001 + 280+560+280+392+280 = 2,001,793; reserve 300,000 + 448 = 300,448.
	// Payouts right to left: seat 6 pair: none; seat 4 quads 700×100 = 70,000 from main
	// (1,931,793 left); seat 2 SF 10% = 193,179 (1,738,614 left); seat 1 royal 100% = 1,738,614
	// (0 left); magic card 9s held by seat 6: 50,000 from the reserve (250,448 left).
	// Refill to the base 1,000,000: 250,448 from the reserve, 749,552 from the house.
	wantPay := []struct {
		seat   int
		amount int64
	}{{4, 70_000}, {2, 193_179}, {1, 1_738_614}, {6, 50_000}}
	if len(res.Payouts) != len(wantPay) {
		t.Fatalf("payouts %+v", res.Payouts)
	}
	for i, w := range wantPay {
		if p := res.Payouts[i]; p.Seat != w.seat || p.Amount != w.amount {
			t.Errorf("payout %d: seat %d %d, want seat %d %d", i, p.Seat, p.Amount, w.seat, w.amount)
		}
	}
	if f := res.Payouts[3].From; len(f) != 1 || f[0] != (Source{Pool: "reserve", Amount: 50_000}) {
		t.Errorf("magic card paid from %+v", f)
	}
	want := State{Main: 1_000_000, Reserves: map[string]int64{"reserve": 0}, Commission: 7 + 150 + 300 + 150 + 210 + 150,
		Funded: 1_000_000 + 749_552, Rounds: 1}
	if g, w := mustJSON(t, next), mustJSON(t, want); g != w {
		t.Errorf("state %s, want %s", g, w)
	}
	if g, w := mustJSON(t, res.After), mustJSON(t, want); g != w {
		t.Errorf("result's after %s, want %s", g, w)
	}
	if st.Main != 2_000_001 || st.Reserves["reserve"] != 300_000 {
		t.Errorf("Settle modified its input state: %+v", st)
	}
	nets := map[int]int64{1: 1_738_614 - 500, 2: 193_179 - 1000, 3: -500, 4: 70_000 - 700, 5: 0, 6: 50_000 - 500}
	for seat, w := range nets {
		if g := res.Net(seat); g != w {
			t.Errorf("seat %d net %d, want %d", seat, g, w)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSettleRefusesBadRounds(t *testing.T) {
	c := testConfig()
	st := c.Start()
	royal := cards(t, "As Ks Qs Js Ts")
	tests := []struct {
		name string
		r    Round
		want string
	}{
		{"no table", Round{Round: "1"}, "progressive: bad round: a round needs its table and round id"},
		{"seat twice", Round{Table: "T", Round: "1", Bets: []Bet{{Seat: 2, Amount: 5, Cards: royal}, {Seat: 2, Amount: 5, Cards: royal}}},
			"progressive: bad round: table T round 1: seat 2: a seat bets once, seats are 1 or above"},
		{"four cards", Round{Table: "T", Round: "1", Bets: []Bet{{Seat: 1, Amount: 5, Cards: royal[:4]}}},
			"progressive: bad round: table T round 1: seat 1: the hand must be five distinct cards: 4 given"},
		{"zero bet", Round{Table: "T", Round: "1", Bets: []Bet{{Seat: 1, Amount: 0, Cards: royal}}},
			"progressive: bad round: table T round 1: seat 1: a bet must be a positive amount of cents"},
		{"draw for a seat without bet", Round{Table: "T", Round: "1", Bets: []Bet{{Seat: 1, Amount: 5, Cards: royal}}, Draw: &Drawn{Kind: LuckyPlayer, Seat: 3}},
			"progressive: bad round: table T round 1: random prize drawn for seat 3, which has no progressive bet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := c.Settle(st, tt.r)
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrRound) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestSettleConservesMoney checks over random rounds that every cent is accounted for: what the
// pools hold after = before + bets − returned − commission − payouts + house funding.
func TestSettleConservesMoney(t *testing.T) {
	c := testConfig()
	st := c.Start()
	rng := rand.New(rand.NewPCG(7, 7))
	deck := card.Deck()
	for i := range 2000 {
		var r Round
		r.Table, r.Round = "T", string(rune('a'+i%26))+string(rune('0'+i/26%10))
		for seat := 1; seat <= 7; seat++ {
			if rng.IntN(2) == 0 {
				continue
			}
			rng.Shuffle(len(deck), func(a, b int) { deck[a], deck[b] = deck[b], deck[a] })
			r.Bets = append(r.Bets, Bet{Seat: seat, Amount: int64(100 * (1 + rng.IntN(5))), Cards: append([]card.Card(nil), deck[:5]...),
				Folded: rng.IntN(5) == 0, Void: rng.IntN(20) == 0})
		}
		if i%3 == 0 && len(r.Bets) > 0 {
			r.Draw = &Drawn{Kind: LuckyPlayer, Seat: r.Bets[0].Seat}
		}
		next, res, err := c.Settle(st, r)
		if err != nil {
			t.Fatal(err)
		}
		var in, paid int64
		for _, f := range res.Feeds {
			if !f.Returned {
				in += f.Amount - f.Commission
			}
		}
		for _, p := range res.Payouts {
			paid += p.Amount
		}
		before := st.Main + st.Reserves["reserve"]
		after := next.Main + next.Reserves["reserve"]
		if after != before+in-paid+(next.Funded-st.Funded) {
			t.Fatalf("round %d: pools %d → %d, fed %d, paid %d, house %d", i, before, after, in, paid, next.Funded-st.Funded)
		}
		if next.Main < c.Base {
			t.Fatalf("round %d: main pool %d below its base", i, next.Main)
		}
		st = next
	}
}

func TestDraw(t *testing.T) {
	c := testConfig()
	c.RandomOdds = 1 // draw every round
	seats := []int{5, 2, 7}
	rng := rand.NewChaCha8([32]byte{1})
	kinds := map[string]int{}
	seatsSeen := map[int]int{}
	cardsSeen := map[card.Card]int{}
	const n = 52000
	for range n {
		d, err := c.Draw(rng, seats)
		if err != nil || d == nil {
			t.Fatalf("draw: %v, %v", d, err)
		}
		kinds[d.Kind]++
		seatsSeen[d.Seat]++
		if d.Kind == MagicCard {
			cardsSeen[d.Card]++
		}
	}
	// Each kind about n/2, each seat about n/3, each card about n/104: within 5 standard
	// deviations.
	within := func(what string, got int, p float64, trials int) {
		mean := p * float64(trials)
		sd := math.Sqrt(float64(trials) * p * (1 - p))
		if d := float64(got) - mean; d > 5*sd || d < -5*sd {
			t.Errorf("%s: %d, expected %.0f ± %.0f", what, got, mean, 5*sd)
		}
	}
	within("carta mágica", kinds[MagicCard], 0.5, n)
	for _, s := range seats {
		within("seat", seatsSeen[s], 1.0/3, n)
	}
	if len(cardsSeen) != 52 {
		t.Errorf("%d distinct magic cards, want 52", len(cardsSeen))
	}
	for c, k := range cardsSeen {
		within("card "+c.String(), k, 1.0/52, kinds[MagicCard])
	}
	c.RandomOdds = 0
	if d, err := c.Draw(rng, seats); d != nil || err != nil {
		t.Errorf("odds 0 drew %v, %v", d, err)
	}
	c.RandomOdds = 1
	if _, err := c.Draw(errReader{}, seats); err == nil || err.Error() != "progressive: drawing a random prize: no entropy" {
		t.Errorf("failing reader: got %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }
