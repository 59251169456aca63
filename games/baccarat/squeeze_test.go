package baccarat

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// TestSqueeze deals a squeeze coup step by step: the four cards face down (the player's to the
// largest player bet, seat 3; the banker's to seat 5, the lower of two equal banker bets), then
// the reveals, player's cards first, each by its own squeezer, before any third card; the
// tableau read from the cards (player 2+3 = 5 draws, banker 10+3 = 3 draws on a 10); the third
// cards face down and revealed in turn; the result only after the last reveal.
func TestSqueeze(t *testing.T) {
	e, err := New(games.Config{Game: "punto-banco", Options: map[string]string{OptSqueeze: "on"}})
	if err != nil {
		t.Fatal(err)
	}
	bets := []games.Bet{{Seat: 2, Spot: SpotPlayer, Amount: 500}, {Seat: 3, Spot: SpotPlayer, Amount: 1000},
		{Seat: 6, Spot: SpotBanker, Amount: 2000}, {Seat: 5, Spot: SpotBanker, Amount: 2000}, {Seat: 7, Spot: SpotTie, Amount: 9000}}
	if err := e.Begin(bets); err != nil {
		t.Fatal(err)
	}
	card1 := func(s string, want games.Need) games.Step {
		t.Helper()
		if n := e.Need(); !needEqual(n, want) {
			t.Fatalf("before %s: need %+v, want %+v", s, n, want)
		}
		st, err := e.Card(card.MustParse(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return st
	}
	reveal := func(seat int, want []int) games.Step {
		t.Helper()
		st, err := e.Decide(seat, Reveal)
		if err != nil {
			t.Fatalf("seat %d reveals: %v", seat, err)
		}
		if !slices.Equal(st.Reveal, want) {
			t.Fatalf("seat %d reveals %v, want %v", seat, st.Reveal, want)
		}
		return st
	}
	down := func(to string) games.Need {
		return games.Need{Kind: games.NeedCard, To: games.Place{Name: to}, Face: games.FaceDown}
	}
	revealFrom := func(seat int) games.Need {
		return games.Need{Kind: games.NeedDecision, Seat: seat, Options: []string{Reveal}}
	}
	card1("2s", down(SpotPlayer))
	card1("Kd", down(SpotBanker))
	card1("3h", down(SpotPlayer))
	st := card1("3c", down(SpotBanker))
	if got := games.Words(st.Say); !slices.Equal(got, []string{"seat 3 squeezes the player's card: reveal it"}) {
		t.Errorf("after the fourth card the dealer is told %q: nothing of the totals", got)
	}
	if n := e.Need(); !needEqual(n, revealFrom(3)) {
		t.Fatalf("after four cards: %+v", n)
	}
	// A card before the reveals: a dealer error, and nothing changes.
	if _, err := e.Card(card.MustParse("Th")); err == nil || !strings.Contains(err.Error(), "waiting for seat 3 to reveal the player's card") {
		t.Fatalf("a card before the reveal: %v", err)
	}
	if _, err := e.Decide(5, Reveal); err == nil || !strings.Contains(err.Error(), "the option is seat 3's") {
		t.Fatalf("the banker's squeezer first: %v", err)
	}
	var re *games.RuleError
	if _, err := e.Decide(3, "draw"); !errors.As(err, &re) || !strings.Contains(re.Rule, `the decision is "reveal"`) {
		t.Fatalf("draw instead of reveal: %v", err)
	}
	if _, err := e.Result(); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("a result before the reveals: %v", err)
	}
	reveal(3, []int{0})
	reveal(3, []int{2})
	st = reveal(5, []int{1})
	if got := games.Words(st.Say); !slices.Equal(got, []string{"seat 5 squeezes the banker's card: reveal it"}) {
		t.Errorf("the banker's turn: %q", got)
	}
	st = reveal(5, []int{3})
	if got := games.Words(st.Say); !slices.Equal(got, []string{"player draws"}) {
		t.Errorf("after the reveals: %q", got)
	}
	card1("Th", down(SpotPlayer)) // the player's 5 draws a ten: still 5
	st = reveal(3, []int{4})
	if got := games.Words(st.Say); !slices.Equal(got, []string{"banker draws"}) {
		t.Errorf("after the player's third card: %q", got) // banker 3 draws unless the third is an 8
	}
	card1("4d", down(SpotBanker))
	if _, err := e.Outcome(); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("an outcome before the last reveal: %v", err)
	}
	st = reveal(5, []int{5})
	if got := games.Words(st.Say); !slices.Equal(got, []string{"banker wins 7 to 5"}) {
		t.Errorf("the result: %q", got)
	}
	if n := e.Need(); n.Kind != games.NeedDone {
		t.Fatalf("after every reveal: %+v", n)
	}
	o, err := e.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	if o.Result != ResultBanker || o.Settlements[2].Net != 1900 || o.Settlements[1].Net != -1000 {
		t.Errorf("outcome %+v", o)
	}
}

func needEqual(a, b games.Need) bool {
	return a.Kind == b.Kind && a.To == b.To && a.Face == b.Face && a.Seat == b.Seat && slices.Equal(a.Options, b.Options)
}

// TestSqueezeWithoutBettors: a hand nobody bets on has nobody to squeeze it and is dealt face
// up; a coup without bets is an ordinary coup.
func TestSqueezeWithoutBettors(t *testing.T) {
	e, err := New(games.Config{Game: "baccarat", Options: map[string]string{OptSqueeze: "on"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Begin([]games.Bet{{Seat: 4, Spot: SpotBanker, Amount: 100}, {Seat: 1, Spot: SpotPlayerPair, Amount: 100}}); err != nil {
		t.Fatal(err)
	}
	var faces []games.Face
	for _, c := range []string{"9s", "2h", "Td", "5c"} { // player natural 9
		faces = append(faces, e.Need().Face)
		if _, err := e.Card(card.MustParse(c)); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(faces, []games.Face{games.FaceUp, games.FaceDown, games.FaceUp, games.FaceDown}) {
		t.Errorf("faces %v: the player's cards up, the banker's down", faces)
	}
	if n := e.Need(); n.Kind != games.NeedDecision || n.Seat != 4 {
		t.Fatalf("need %+v", n)
	}
	for _, want := range []int{1, 3} {
		st, err := e.Decide(4, Reveal)
		if err != nil || !slices.Equal(st.Reveal, []int{want}) {
			t.Fatalf("reveal: %v %v", st.Reveal, err)
		}
	}
	if r, _ := e.Result(); r != ResultPlayer {
		t.Errorf("result %q", r)
	}
	if err := e.Begin(nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"9s", "2h", "Td", "5c"} {
		if n := e.Need(); n.Face != games.FaceUp {
			t.Fatalf("no bets: %+v", n)
		}
		if _, err := e.Card(card.MustParse(c)); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.Need(); n.Kind != games.NeedDone {
		t.Errorf("no bets: %+v", n)
	}
	for _, bad := range []map[string]string{{OptSqueeze: "yes"}} {
		if _, err := New(games.Config{Game: "punto-banco", Options: bad}); err == nil || !strings.Contains(err.Error(), `"yes" (want on or off)`) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if _, err := New(games.Config{Game: "chemin-de-fer", Options: map[string]string{OptSqueeze: "on"}}); err == nil {
		t.Error("squeeze at chemin de fer")
	}
}
