package blackjack

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

func mustEngine(t *testing.T, preset string, bets ...games.Bet) *Engine {
	t.Helper()
	e, err := New(games.Config{Game: GameBlackjack, Rules: preset})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Begin(bets); err != nil {
		t.Fatal(err)
	}
	return e
}

func main(seat int, amount int64) games.Bet {
	return games.Bet{Seat: seat, Spot: SpotMain, Amount: amount}
}

func feed(t *testing.T, e *Engine, cards string) []games.Step {
	t.Helper()
	var steps []games.Step
	for _, s := range strings.Fields(cards) {
		st, err := e.Card(card.MustParse(s))
		if err != nil {
			t.Fatalf("card %s: %v", s, err)
		}
		steps = append(steps, st)
	}
	return steps
}

// TestDealOrder checks the RULES.md §4 deal order and faces: boxes in seat order, the up card,
// the boxes' second cards, the hole card face down (classic) or none (enhc).
func TestDealOrder(t *testing.T) {
	box := func(s int) games.Need {
		return games.Need{Kind: games.NeedCard, To: games.Place{Name: "box", Seat: s}}
	}
	up := games.Need{Kind: games.NeedCard, To: games.Place{Name: "dealer"}}
	hole := games.Need{Kind: games.NeedCard, To: games.Place{Name: "dealer"}, Face: games.FaceDown}
	for _, tc := range []struct {
		preset string
		want   []games.Need
	}{
		{"classic", []games.Need{box(2), box(5), up, box(2), box(5), hole}},
		{"retiro", []games.Need{box(2), box(5), up, box(2), box(5), hole}},
		{"real21", []games.Need{box(2), box(5), up, box(2), box(5)}},
		{"enhc", []games.Need{box(2), box(5), up, box(2), box(5)}},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			e := mustEngine(t, tc.preset, main(5, 100), main(2, 100))
			var got []games.Need
			for _, c := range []string{"Ts", "9s", "5d", "Th", "9h", "2c"}[:len(tc.want)] {
				got = append(got, e.Need())
				feed(t, e, c)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("needs\n got %v\nwant %v", got, tc.want)
			}
			// Seat 2 holds T-T against a 5: every preset may split it (equal rank and value);
			// retiro doubles only 9–11 and surrenders only against an ace or a ten.
			want := games.Need{Kind: games.NeedDecision, Seat: 2, Options: []string{"H", "S", "D", "P", "R"}}
			if tc.preset == "retiro" {
				want.Options = []string{"H", "S", "P"}
			}
			if got := e.Need(); !reflect.DeepEqual(got, want) {
				t.Errorf("first decision %v, want %v", got, want)
			}
		})
	}
}

// TestRevealHoleCard checks that the hole card (round card index 3 with one box) is revealed at
// the peek when it makes a blackjack, and otherwise when the dealer plays.
func TestRevealHoleCard(t *testing.T) {
	e := mustEngine(t, "classic", main(1, 100))
	steps := feed(t, e, "9s Ts 9h Ac")
	if got := steps[3].Reveal; !reflect.DeepEqual(got, []int{3}) {
		t.Errorf("peek blackjack reveal %v, want [3]", got)
	}
	if e.Need().Kind != games.NeedDone {
		t.Errorf("need %v after a dealer blackjack, want done", e.Need())
	}

	e = mustEngine(t, "classic", main(1, 100))
	steps = feed(t, e, "9s Ts 9h 7c")
	if len(steps[3].Reveal) != 0 {
		t.Errorf("hole card revealed at the deal: %v", steps[3].Reveal)
	}
	st, err := e.Decide(1, "S")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.Reveal, []int{3}) {
		t.Errorf("reveal at the dealer's turn %v, want [3]", st.Reveal)
	}
	if e.Need().Kind != games.NeedDone {
		t.Errorf("dealer on 17 should stand; need %v", e.Need())
	}
	o, err := e.Outcome()
	if err != nil || o.Net() != 100 {
		t.Errorf("outcome %+v, %v; want net +100", o, err)
	}
}

// TestCardIsHit checks the "a card to the same hand = hit": a card while the hand waits
// for its decision is a hit, and the hand then waits for its next decision.
func TestCardIsHit(t *testing.T) {
	e := mustEngine(t, "enhc", main(1, 100), main(2, 100))
	feed(t, e, "5s 9d 7c 4h Td")
	if n := e.Need(); n.Kind != games.NeedDecision || n.Seat != 1 {
		t.Fatalf("need %v, want seat 1's decision", n)
	}
	feed(t, e, "3c") // seat 1: 5 4 3 = 12, by the card alone
	if n := e.Need(); n.Kind != games.NeedDecision || n.Seat != 1 || !reflect.DeepEqual(n.Options, []string{"H", "S"}) {
		t.Fatalf("need %v, want seat 1 to decide H or S on three cards", n)
	}
	if _, err := e.Decide(1, "s"); err != nil { // lower case accepted
		t.Fatal(err)
	}
	feed(t, e, "Kc") // seat 2: 9 T = 19, hits a king by the card alone: bust
	if n := e.Need(); n.Kind != games.NeedCard || n.To.Name != "dealer" {
		t.Fatalf("need %v, want the dealer's card", n)
	}
	feed(t, e, "7d") // dealer 7 7 = 14
	feed(t, e, "2d") // 16
	feed(t, e, "Tc") // 26
	o, err := e.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	if got := compactNets(o); got != "1/main/0=100 2/main/0=-100" {
		t.Errorf("settlements %s", got)
	}
}

func compactNets(o *games.Outcome) string {
	var f []string
	for _, s := range o.Settlements {
		f = append(f, s.Spot+"="+itoa(s.Net))
		f[len(f)-1] = itoa(int64(s.Seat)) + "/" + s.Spot + "/" + itoa(int64(s.Hand)) + "=" + itoa(s.Net)
	}
	return strings.Join(f, " ")
}

func itoa(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

// TestOutOfTurn checks that a card or decision the rules do not allow is a *games.RuleError and
// leaves the engine as it was.
func TestOutOfTurn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		preset  string
		cards   string
		decide  []string // decisions before the bad input
		card    string   // the bad card, or
		seat    int      // the bad decision's seat
		dec     string
		wantErr string
	}{
		{name: "card while insurance is asked", preset: "classic", cards: "9s As 9h 7c", card: "5d",
			wantErr: "blackjack: 5d: card out of turn: waiting for decision from seat 1: I N"},
		{name: "card after the round", preset: "classic", cards: "Ts 9s Kh 8c", decide: []string{"S"}, card: "5d",
			wantErr: "card out of turn: the round is complete"},
		{name: "card after the dealer stands", preset: "enhc", cards: "Ts 9s Kh", decide: []string{"S", "8d"}, card: "5c",
			wantErr: "card out of turn: the round is complete"},
		{name: "decision of another seat", preset: "enhc", cards: "Ts 2s 9s Kh 7h", seat: 2, dec: "S",
			wantErr: "blackjack: seat 2: S: not this seat's turn (decision from seat 1: H S D P R)"},
		{name: "unknown decision", preset: "enhc", cards: "Ts 9s 5h", seat: 1, dec: "X",
			wantErr: "blackjack: seat 1: X: unknown decision (RULES.md §8 codes: H S D P R I N E; asked: H S D R)"},
		{name: "hit on hard 21", preset: "enhc", cards: "Ts 9s 5h", decide: []string{"H", "6c"}, seat: 1, dec: "H",
			wantErr: "blackjack: seat 1: H: no decision is asked now (card to dealer); hand 1: a player cannot hit a hand of 21 or more (RULES.md §4)"},
		{name: "insurance against a ten", preset: "enhc", cards: "Ts Td 5h", seat: 1, dec: "I",
			wantErr: "seat 1: I: insurance and even money are asked only against an ace"},
		{name: "resplit aces while the next ace is dealt", preset: "enhc", cards: "As 6c Ah", decide: []string{"P", "Ad"}, seat: 1, dec: "P",
			wantErr: "blackjack: seat 1: P: no decision is asked now (card to box 1 hand 2); hand 1: split aces are not resplit (RULES.md §4 enhc)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bets []games.Bet
			bets = append(bets, main(1, 100))
			if strings.Contains(tc.name, "another seat") {
				bets = append(bets, main(2, 100))
			}
			e := mustEngine(t, tc.preset, bets...)
			feed(t, e, tc.cards)
			for _, d := range tc.decide {
				if c, err := card.Parse(d); err == nil {
					feed(t, e, c.String())
					continue
				}
				if _, err := e.Decide(1, d); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(e)
			var err error
			if tc.card != "" {
				_, err = e.Card(card.MustParse(tc.card))
			} else {
				_, err = e.Decide(tc.seat, tc.dec)
			}
			if tc.wantErr == "" {
				if err == nil {
					t.Fatalf("no error; need now %v", e.Need())
				}
				t.Logf("error: %v", err)
			} else if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			var re *games.RuleError
			if !errors.As(err, &re) {
				t.Errorf("error %T is not a *games.RuleError", err)
			}
			if after := snapshot(e); after != before {
				t.Errorf("engine changed by a refused input:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// snapshot describes everything an input can change.
func snapshot(e *Engine) string {
	var b strings.Builder
	b.WriteString(e.Need().String())
	for _, bx := range e.boxes {
		for _, h := range bx.hands {
			b.WriteString(" |")
			for _, c := range h.cards {
				b.WriteString(" " + c.String())
			}
			if h.done {
				b.WriteString(" done")
			}
		}
		b.WriteString(" ins" + itoa(bx.ins[0]))
	}
	b.WriteString(" dealer")
	for _, c := range e.dealer {
		b.WriteString(" " + c.String())
	}
	b.WriteString(" n" + itoa(int64(e.n)))
	return b.String()
}

func TestBeforeBeginAndAfter(t *testing.T) {
	e, err := New(games.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Card(card.MustParse("As")); err == nil || !strings.Contains(err.Error(), "no round has begun") {
		t.Errorf("card before Begin: %v", err)
	}
	if _, err := e.Outcome(); err == nil {
		t.Errorf("outcome before the round: no error")
	}
	if _, err := e.Burn(card.None); err == nil {
		t.Errorf("burn: no error")
	}
	if err := e.Begin(nil); err != nil {
		t.Fatal(err)
	}
	if e.Need().Kind != games.NeedDone {
		t.Errorf("a round without bets needs %v, want done", e.Need())
	}
	if _, err := e.Card(card.None); err == nil {
		t.Errorf("card.None accepted")
	}
}

// TestPresetTable checks every preset against the RULES.md §4 table, row by row.
func TestPresetTable(t *testing.T) {
	type row struct {
		hole, peek, h17 bool
		split           SplitMatch
		hands           int
		double          Double
		das             bool
		surrender       Surrender
		ins, even, all  bool
		atOnce, promo   bool
	}
	want := map[string]row{
		"classic": {true, true, false, SplitValue, 2, DoubleAny, true, SurrenderAny, true, true, false, false, false},
		"real21":  {false, false, true, SplitRank, 4, DoubleAny, false, SurrenderNotAce, false, true, true, true, true},
		"retiro":  {true, false, false, SplitValue, 4, Double9to11, true, SurrenderAceTen, true, false, true, false, false},
		"enhc":    {false, false, false, SplitValue, 4, DoubleAny, true, SurrenderNotAce, true, true, true, true, false},
	}
	for _, name := range Presets() {
		r, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		got := row{r.HoleCard, r.Peek, r.HitSoft17, r.Split, r.MaxHands, r.Double, r.DoubleAfterSplit, r.Surrender,
			r.Insurance, r.EvenMoney, r.DealerBJTakesAll, r.BlackjackAtOnce, r.Promotions}
		if got != want[name] {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want[name])
		}
		if r.ResplitAces || r.HitSplitAces || r.BlackjackNum != 3 || r.BlackjackDen != 2 {
			t.Errorf("%s: split aces or 3:2 wrong: %+v", name, r)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestOptions(t *testing.T) {
	base, _ := Preset("classic")
	for _, tc := range []struct {
		opts    map[string]string
		check   func(Rules) bool
		wantErr string
	}{
		{map[string]string{"soft17": "hit"}, func(r Rules) bool { return r.HitSoft17 }, ""},
		{map[string]string{"surrender": "none"}, func(r Rules) bool { return r.Surrender == SurrenderNone }, ""},
		{map[string]string{"blackjack-pays": "6:5"}, func(r Rules) bool { return r.BlackjackNum == 6 && r.BlackjackDen == 5 }, ""},
		{map[string]string{"max-hands": "4", "resplit-aces": "yes"}, func(r Rules) bool { return r.MaxHands == 4 && r.ResplitAces }, ""},
		{map[string]string{"double": "9-11"}, func(r Rules) bool { return r.Double == Double9to11 }, ""},
		{map[string]string{"dealer-blackjack-takes": "all"}, func(r Rules) bool { return r.DealerBJTakesAll }, ""},
		{map[string]string{"soft17": "maybe"}, nil, `blackjack: option soft17="maybe": want hit or stand`},
		{map[string]string{"hole-card": "no"}, nil, "blackjack: peek=yes needs hole-card=yes"},
		{map[string]string{"max-hands": "9"}, nil, "want a number of hands 1 to 8"},
		{map[string]string{"blackjack-pays": "3-2"}, nil, "want a payout N:D"},
		{map[string]string{"colour": "red"}, nil, `blackjack: unknown option "colour" (known: blackjack-at-once, blackjack-pays,`},
	} {
		r, err := base.WithOptions(tc.opts)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want %q", tc.opts, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !tc.check(r) {
			t.Errorf("%v: %+v, %v", tc.opts, r, err)
		}
	}
	if n := len(OptionNames()); n != 16 {
		t.Errorf("%d options, want one per Rules field but Name, one for both blackjack-pays fields (16)", n)
	}
}

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		cards string
		total int
		soft  bool
	}{
		{"As Kd", 21, true}, {"As 6d", 17, true}, {"As 6d Td", 17, false}, {"As Ah", 12, true},
		{"As Ah Ad Ac", 14, true}, {"Ts 6d 9c", 25, false}, {"5s 5d", 10, false}, {"As Ah Td 9c", 21, false},
	} {
		cs, _ := card.ParseList(tc.cards)
		if got, soft := Score(cs); got != tc.total || soft != tc.soft {
			t.Errorf("Score(%s) = %d %v, want %d %v", tc.cards, got, soft, tc.total, tc.soft)
		}
	}
}

func TestPairOf(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want Pair
		pays int64
	}{
		{"8h", "8h", PerfectPair, 25}, {"8h", "8d", ColouredPair, 12}, {"8s", "8c", ColouredPair, 12},
		{"8s", "8h", MixedPair, 6}, {"Kd", "Ks", MixedPair, 6}, {"Kd", "Qd", NoPair, 0}, {"Td", "Kd", NoPair, 0},
	} {
		p := PairOf(card.MustParse(tc.a), card.MustParse(tc.b))
		if p != tc.want || p.Pays() != tc.pays {
			t.Errorf("PairOf(%s, %s) = %v pays %d, want %v pays %d", tc.a, tc.b, p, p.Pays(), tc.want, tc.pays)
		}
	}
}

func TestPrizeOf(t *testing.T) {
	for _, tc := range []struct {
		cards string
		bj    bool
		want  Prize
	}{
		{"As Js", true, JackOfSpades}, {"Js Ad", true, JackOfSpades}, {"As Js", false, NoPrize},
		{"As Jh", true, NoPrize}, {"As Ks", true, NoPrize},
		{"6h 7h 8h", false, Suited678}, {"8c 6c 7c", false, Suited678}, {"6h 7h 8d", false, NoPrize},
		{"7d 7d 7d", false, SuitedSevens}, {"7d 7d 7h", false, NoPrize}, {"7d 7d", false, NoPrize},
		{"6h 7h 8h 2c", false, NoPrize},
		{"2s 2h As Ad 3s 3h 2c", false, SevenCards}, {"2s 2h As Ad 3s 3h Tc", false, NoPrize},
		{"As Ah Ad Ac 2s 2h 3h", false, SevenCards},
	} {
		cs, _ := card.ParseList(tc.cards)
		if got := PrizeOf(cs, tc.bj); got != tc.want {
			t.Errorf("PrizeOf(%s, %v) = %v, want %v", tc.cards, tc.bj, got, tc.want)
		}
	}
	if SevenCards.Pays() != 1 || JackOfSpades.Pays() != 4 || Suited678.Pays() != 5 || SuitedSevens.Pays() != 7 || NoPrize.Pays() != 0 {
		t.Errorf("prize payouts differ from RULES.md §4 (1, 4, 5, 7)")
	}
}

func TestDecks(t *testing.T) {
	for _, d := range []int{0, 6, 8} {
		if _, err := New(games.Config{Decks: d}); err != nil {
			t.Errorf("%d decks: %v", d, err)
		}
	}
	for _, d := range []int{1, 2, 4, 7, -1} {
		if _, err := New(games.Config{Decks: d}); err == nil {
			t.Errorf("%d decks accepted", d)
		}
	}
	if _, err := NewChallenge21(games.Config{Rules: "classic"}); err == nil {
		t.Errorf("challenge21 accepted rules classic")
	}
	if _, err := NewChallenge21(games.Config{Options: map[string]string{"hole-card": "yes"}}); err == nil {
		t.Errorf("challenge21 accepted a hole card")
	}
}

// TestHoleCardHidden checks RULES.md §1 "Hidden cards": nothing the engine says names the hole
// card before the step that reveals it.
func TestHoleCardHidden(t *testing.T) {
	for _, preset := range []string{"classic", "retiro"} {
		e := mustEngine(t, preset, main(1, 100), main(2, 100))
		var said []string
		for _, c := range []string{"Td", "5s", "9c", "7h", "6d", "Qh"} { // hole card Qh
			st, err := e.Card(card.MustParse(c))
			if err != nil {
				t.Fatal(err)
			}
			said = append(said, games.Words(st.Say)...)
		}
		if n := e.Need(); n.Kind != games.NeedDecision {
			t.Fatalf("%s: need %v", preset, n)
		}
		st1, _ := e.Decide(1, "S")
		said = append(said, games.Words(st1.Say)...)
		for _, s := range said {
			if strings.Contains(s, "Qh") {
				t.Errorf("%s: %q names the hole card before it is turned up", preset, s)
			}
		}
		st2, err := e.Decide(2, "S")
		if err != nil {
			t.Fatal(err)
		}
		// The words never name a card (the reveal event carries it): they say what it makes.
		if say := strings.Join(games.Words(st2.Say), "; "); !reflect.DeepEqual(st2.Reveal, []int{5}) || !strings.Contains(say, "hole card: 19") || len(card.Named(say)) > 0 {
			t.Errorf("%s: reveal step %+v", preset, st2)
		}
	}
}

// TestBlackjackAtOnce checks the table's last row: a blackjack against a non-ten, non-ace up
// card is paid at once under enhc and real21, and waits for the end under retiro and classic.
func TestBlackjackAtOnce(t *testing.T) {
	for preset, want := range map[string]bool{"enhc": true, "real21": true, "retiro": false, "classic": false} {
		e := mustEngine(t, preset, main(1, 100), main(2, 100))
		steps := feed(t, e, "As 9s 7d Kh 9h")
		if preset == "classic" || preset == "retiro" {
			steps = append(steps, feed(t, e, "2c")...)
		}
		last := strings.Join(games.Words(steps[len(steps)-1].Say), "; ")
		if got := strings.Contains(last, "seat 1 blackjack paid 3:2 at once"); got != want {
			t.Errorf("%s: %q; paid at once %v, want %v", preset, last, got, want)
		}
	}
}
