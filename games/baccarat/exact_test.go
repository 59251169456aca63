package baccarat

import (
	"errors"
	"github.com/sabot-tables/sabot/shoe/card"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestExactOddsPublished checks the enumeration against the published figures (gamemath.md
// §1.1–1.3): the exact sequence counts of casinoexploit.com for 8 and 6 decks, and the
// probabilities and house edges of multiplayerbaccarat.com / the Wizard of Odds to six decimals.
func TestExactOddsPublished(t *testing.T) {
	for _, tc := range []struct {
		decks                  int
		banker, player, tie    uint64
		sequences              uint64
		pb, pp, pt             string // six decimals
		eBanker, ePlayer, eTie string // percent, four decimals
		ePair                  string // percent, three decimals
	}{
		{
			decks: 8, banker: 2292252566437888, player: 2230518282592256, tie: 475627426473216, sequences: 4998398275503360,
			pb: "0.458597", pp: "0.446247", pt: "0.095156",
			eBanker: "1.0579", ePlayer: "1.2351", eTie: "14.3596", ePair: "10.361",
		},
		{
			decks: 6, banker: 403095751234560, player: 392220492728832, tie: 83552962932288,
			pb: "0.458653", pp: "0.446279", pt: "0.095069",
			eBanker: "1.0558", ePlayer: "1.2374", eTie: "14.4382", ePair: "11.254",
		},
	} {
		x, err := ExactOdds(Decks(tc.decks))
		if err != nil {
			t.Fatal(err)
		}
		if x.Banker != tc.banker || x.Player != tc.player || x.Tie != tc.tie {
			t.Errorf("%d decks: counts %d/%d/%d, want %d/%d/%d", tc.decks, x.Banker, x.Player, x.Tie, tc.banker, tc.player, tc.tie)
		}
		if x.Banker+x.Player+x.Tie != x.Sequences || tc.sequences != 0 && x.Sequences != tc.sequences {
			t.Errorf("%d decks: %d sequences", tc.decks, x.Sequences)
		}
		for _, p := range []struct {
			name string
			got  *big.Rat
			want string
		}{{"banker", x.PBanker(), tc.pb}, {"player", x.PPlayer(), tc.pp}, {"tie", x.PTie(), tc.pt}} {
			if g := p.got.FloatString(6); g != p.want {
				t.Errorf("%d decks: P(%s) = %s, want %s", tc.decks, p.name, g, p.want)
			}
		}
		edges := x.Edges()
		for i, want := range []string{tc.eBanker, tc.ePlayer, tc.eTie, tc.ePair, tc.ePair} {
			e := edges[i]
			prec := len(want) - strings.IndexByte(want, '.') - 1
			if g := new(big.Rat).Mul(e.Edge, big.NewRat(100, 1)).FloatString(prec); g != want {
				t.Errorf("%d decks: %s edge %s%%, want %s%%", tc.decks, e.Bet, g, want)
			}
		}
	}
	// The 8-deck pair chance is exactly 31/415 (gamemath.md §1.3).
	x, _ := ExactOdds(Decks(8))
	if x.PPair().Cmp(big.NewRat(31, 415)) != 0 {
		t.Errorf("P(pair) = %v, want 31/415", x.PPair())
	}
}

func TestParseComposition(t *testing.T) {
	full := "A 32\n2 32\n3 32\n4 32\n5 32\n6 32\n7 32\n8 32\n9 32\nT 32\nJ 32\nQ 32\nK 32\n"
	c, err := ParseComposition(strings.NewReader("# the full shoe\n"+full), 8)
	if err != nil || c != Decks(8) {
		t.Fatalf("full shoe: %v %v", c, err)
	}
	bySuit := strings.Replace(full, "A 32\n", "As 8\nAh 7 # one ace of hearts dealt\nAd 8\nAc 8\n", 1)
	c, err = ParseComposition(strings.NewReader(bySuit), 8)
	want := Decks(8)
	want[0] = 31
	if err != nil || c != want {
		t.Fatalf("by suit: %v %v", c, err)
	}
	for _, tc := range []struct{ in, want string }{
		{strings.Replace(full, "A 32", "A -1", 1), "baccarat: composition line 1: A -1: a count cannot be negative"},
		{strings.Replace(full, "A 32", "A 33", 1), "baccarat: composition line 1: A 33: impossible, no shoe holds so many"},
		{strings.Replace(strings.ReplaceAll(full, "32", "24"), "K 24", "K 25", 1), "baccarat: composition: 25 of rank K: impossible, a 6-deck shoe holds 24"},
		{strings.Replace(full, "A 32\n", "", 1), "baccarat: composition: no count for A"},
		{full + "A 3\n", "baccarat: composition line 14: rank A given twice"},
		{strings.Replace(full, "A 32", "A x", 1), `baccarat: composition line 1: count "x" is not a whole number`},
		{strings.Replace(full, "A 32", "Z 3", 1), `baccarat: composition line 1: "Z" is neither a rank nor a card`},
		{strings.Replace(full, "A 32", "A 3 4", 1), `baccarat: composition line 1: want "RANK COUNT" or "CARD COUNT", got "A 3 4"`},
		{strings.Replace(full, "A 32", "As 8", 1), "baccarat: composition: rank A is given by some of its cards only: give all four suits, or the rank"},
		{strings.Replace(full, "A 32", "As 9", 1), "baccarat: composition line 1: As 9: impossible, a 8-deck shoe holds 8"},
		{"A 1\n2 1\n3 1\n4 0\n5 0\n6 0\n7 0\n8 0\n9 0\nT 0\nJ 0\nQ 0\nK 2\n", "baccarat: composition: 5 cards: a coup may need 6"},
	} {
		decks := 8
		if strings.Contains(tc.want, "6-deck") {
			decks = 6
		}
		if _, err := ParseComposition(strings.NewReader(tc.in), decks); err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

func TestExactOddsPartialShoe(t *testing.T) {
	// Six cards left, all tens: every coup is 0 to 0, a tie.
	var c Composition
	c[9] = 6
	x, err := ExactOdds(c)
	if err != nil || x.Tie != x.Sequences || x.Sequences != 720 {
		t.Fatalf("%+v %v", x, err)
	}
	// Eight 9s and eight 8s: every coup is decided by naturals on four cards.
	c = Composition{}
	c[7], c[8] = 8, 8
	x, _ = ExactOdds(c)
	if x.Banker != x.Player || x.Banker+x.Player+x.Tie != x.Sequences {
		t.Errorf("symmetric shoe: banker %d player %d tie %d", x.Banker, x.Player, x.Tie)
	}
	c[0] = -1
	if _, err := ExactOdds(c); !errors.Is(err, ErrComposition) {
		t.Errorf("negative count: %v", err)
	}
}

// BenchmarkBaccaratExact8Decks is issue 7's target: the exact 8-deck enumeration in under one
// second. It reports the banker, player and tie probabilities and the edges it found, in parts
// per million (8 decks: 458597, 446247, 95156; edges 10579, 12351, 143596).
func BenchmarkBaccaratExact8Decks(b *testing.B) {
	var x *Exact
	for b.Loop() {
		var err error
		if x, err = ExactOdds(Decks(8)); err != nil {
			b.Fatal(err)
		}
	}
	// Parts per million, so that the benchmark line shows six decimals.
	ppm := func(r *big.Rat) float64 { v, _ := r.Float64(); return v * 1e6 }
	b.ReportMetric(ppm(x.PBanker()), "P(banker)-ppm")
	b.ReportMetric(ppm(x.PPlayer()), "P(player)-ppm")
	b.ReportMetric(ppm(x.PTie()), "P(tie)-ppm")
	e := x.Edges()
	b.ReportMetric(ppm(e[0].Edge), "banker-edge-ppm")
	b.ReportMetric(ppm(e[1].Edge), "player-edge-ppm")
	b.ReportMetric(ppm(e[2].Edge), "tie-edge-ppm")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/enumeration")
}

// TestPayTablesPublished checks every pay table and side bet against its published 8-deck
// figures, from the exact enumeration of a full shoe:
//
//   - EZ Baccarat (888casino.com, E. Jacobson, "Card counting the Super Six"; issue 20): the
//     banker 1.0183%; Dragon 7 P = 0.022534, 7.6113%; Panda 8 P = 0.034543, 10.1876%.
//   - Super 6 (the same article): the banker 1.4581%, its win with 6 in 269,232,304,455,680 of
//     the sequences (excelpunks.com's table). Lucky 6 at 12:1 and 20:1 (the Wizard of Odds,
//     "Lucky 6", its stingy table): 186,173,936,904,192 and 83,058,367,551,488 sequences,
//     16.68%.
//   - Dragon Bonus (the Wizard of Odds, "Baccarat side bets"): every line's sequences, 2.65%
//     on the player, 9.37% on the banker.
//   - Either Pair at 5:1: 13.71%; Perfect Pair at 25:1 (the Wizard of Odds, "Perfect Pairs
//     (version 1)"): 246,848,784 of 7,379,583,120, P = 0.033450, 13.03%.
func TestPayTablesPublished(t *testing.T) {
	x, err := ExactCards(card.Decks(8))
	if err != nil {
		t.Fatal(err)
	}
	find := func(tb PayTable, spot string) BetOdds {
		t.Helper()
		bs := x.Odds(PuntoBanco, tb, []string{spot})
		if len(bs) != 1 {
			t.Fatalf("%s %s: %d figures", tb, spot, len(bs))
		}
		return bs[0]
	}
	for _, tc := range []struct {
		table PayTable
		spot  string
		pwin  string // the chance the bet wins, as published (its decimals)
		edge  string // percent, as published
	}{
		{EZ, SpotBanker, "", "1.0183"},
		{EZ, SpotDragon7, "0.022534", "7.6113"},
		{EZ, SpotPanda8, "0.034543", "10.1876"},
		{EZ, SpotPlayer, "", "1.2351"},
		{Super6, SpotBanker, "", "1.4581"},
		{Super6, SpotLucky6, "", "16.68"},
		{Standard, SpotBanker, "", "1.0579"},
		{Standard, SpotPlayerBonus, "", "2.65"},
		{Standard, SpotBankerBonus, "", "9.37"},
		{Standard, SpotEitherPair, "", "13.71"},
		{Standard, SpotPerfectPair, "0.033450", "13.03"},
	} {
		b := find(tc.table, tc.spot)
		if tc.pwin != "" {
			if got := b.PWin.FloatString(len(tc.pwin) - 2); got != tc.pwin {
				t.Errorf("%s %s: P(win) %s, published %s", tc.table, tc.spot, got, tc.pwin)
			}
		}
		prec := len(tc.edge) - strings.IndexByte(tc.edge, '.') - 1
		if got := new(big.Rat).Mul(b.EV, big.NewRat(-100, 1)).FloatString(prec); got != tc.edge {
			t.Errorf("%s %s: edge %s%%, published %s%%", tc.table, tc.spot, got, tc.edge)
		}
	}
	count := func(b BetOdds, event string) uint64 {
		t.Helper()
		for _, l := range b.Lines {
			if l.Event == event {
				return l.Count
			}
		}
		t.Fatalf("%s: no line %q in %+v", b.Spot, event, b.Lines)
		return 0
	}
	for _, tc := range []struct {
		table PayTable
		spot  string
		event string
		count uint64
	}{
		{Super6, SpotBanker, "banker wins with 6", 269_232_304_455_680},
		{Super6, SpotLucky6, "banker wins with a two-card 6", 186_173_936_904_192},
		{Super6, SpotLucky6, "banker wins with a three-card 6", 83_058_367_551_488},
		{Standard, SpotPlayerBonus, "win by 9", 18_409_431_764_992},
		{Standard, SpotPlayerBonus, "win by 8", 34_097_645_543_424},
		{Standard, SpotPlayerBonus, "win by 7", 89_590_261_473_280},
		{Standard, SpotPlayerBonus, "win by 6", 141_238_897_317_888},
		{Standard, SpotPlayerBonus, "win by 5", 166_169_165_987_840},
		{Standard, SpotPlayerBonus, "win by 4", 186_780_352_174_080},
		{Standard, SpotPlayerBonus, "natural win", 812_685_054_124_032},
		{Standard, SpotPlayerBonus, "natural tie", 89_325_908_267_520},
		{Standard, SpotBankerBonus, "win by 9", 15_390_342_909_952},
		{Standard, SpotBankerBonus, "win by 8", 28_305_092_784_128},
		{Standard, SpotBankerBonus, "win by 7", 79_517_099_278_336},
		{Standard, SpotBankerBonus, "win by 6", 119_200_072_366_080},
		{Standard, SpotBankerBonus, "win by 5", 157_275_882_332_160},
		{Standard, SpotBankerBonus, "win by 4", 201_147_167_287_296},
		{Standard, SpotBankerBonus, "natural win", 812_685_054_124_032},
		// The Wizard counts the first four cards' sequences a quarter as often as Sabot does.
		{Standard, SpotPerfectPair, "either hand a perfect pair", 4 * 246_848_784},
	} {
		if got := count(find(tc.table, tc.spot), tc.event); got != tc.count {
			t.Errorf("%s %s %q: %d sequences, published %d", tc.table, tc.spot, tc.event, got, tc.count)
		}
	}
	if fd := x.FourDen; fd != 4*7_379_583_120 {
		t.Errorf("four-card sequences %d", fd)
	}
	// Every bet's lines cover every sequence once.
	for _, tb := range []PayTable{Standard, EZ, Super6} {
		for _, b := range x.Odds(PuntoBanco, tb, allSpots) {
			var sum uint64
			for _, l := range b.Lines {
				sum += l.Count
			}
			if sum != b.Lines[0].Den {
				t.Errorf("%s %s: lines add up to %d of %d", tb, b.Spot, sum, b.Lines[0].Den)
			}
		}
	}
}

var allSpots = []string{SpotPlayer, SpotBanker, SpotTie, SpotPlayerPair, SpotBankerPair, SpotDragon7, SpotPanda8, SpotLucky6,
	SpotPlayerBonus, SpotBankerBonus, SpotEitherPair, SpotPerfectPair}

// TestOddsLeaveOut: the perfect pair needs the suits, baccarat's pairs the tie they push on.
func TestOddsLeaveOut(t *testing.T) {
	x, _ := ExactOdds(Decks(8))
	for _, b := range x.Odds(PuntoBanco, Standard, allSpots) {
		if b.Spot == SpotPerfectPair {
			t.Error("a perfect pair priced without the suits")
		}
	}
	for _, b := range x.Odds(Baccarat, Standard, allSpots) {
		if pairSpot(b.Spot) {
			t.Errorf("baccarat's %s priced apart from the tie that voids it", b.Spot)
		}
		if b.Spot == SpotBanker && b.Edge != x.Odds(PuntoBanco, Standard, []string{SpotBanker})[0].Edge {
			t.Errorf("baccarat's banker edge %s differs from punto banco's", b.Edge)
		}
	}
}

func TestPayNet(t *testing.T) {
	for _, tc := range []struct {
		pay  Pay
		a    int64
		want int64
	}{
		{Pay{19, 20}, 110, 105}, // the commission of 5.5 cents is 5: the half cent to the player
		{Pay{95, 100}, 19, 19},
		{Pay{1, 2}, 101, 51}, // Super 6: 50.5 cents rounded up
		{Pay{1, 2}, 100, 50},
		{Pay{1, 2}, 1, 1},
		{win(40), 500, 20000},
		{Push, 700, 0},
		{Lose, 700, -700},
		{Pay{1, 2}, MaxStake + 1, MaxStake/2 + 1},
	} {
		if got := tc.pay.Net(tc.a); got != tc.want {
			t.Errorf("%s on %d: %d, want %d", tc.pay, tc.a, got, tc.want)
		}
	}
	for p, s := range map[Pay]string{{19, 20}: "0.95:1", {1, 2}: "1:2", {8, 1}: "8:1", Push: "push", Lose: "lose", {3, 2}: "1.5:1"} {
		if p.String() != s {
			t.Errorf("%v is %q, want %q", p, p.String(), s)
		}
	}
}

// BenchmarkLiveOdds is the live odds of issue 20 for one coup: every bet of the layout and every
// side bet, exactly, for the cards left in a shoe 200 cards into its 416 (target: under 20 ms,
// well inside the time between two coups).
func BenchmarkLiveOdds(b *testing.B) {
	cs := card.Decks(8)
	r := rand.New(rand.NewPCG(20, 20))
	for cs.Total() > 216 {
		c := card.FromIndex(r.IntN(52))
		cs.Remove(c)
	}
	spots := AllSpots()
	var n int
	for b.Loop() {
		bs, err := LiveOdds(cs, PuntoBanco, EZ, spots)
		if err != nil {
			b.Fatal(err)
		}
		n = len(bs)
	}
	b.ReportMetric(float64(n), "bets")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/coup")
}
