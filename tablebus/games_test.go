package tablebus_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// TestOnlyGamesGoImportsGames: the game engines' types reach the wire through games.go alone,
// so a change to a game type cannot change the feed unseen.
func TestOnlyGamesGoImportsGames(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if (p == "github.com/sabot-tables/sabot/games" || strings.HasPrefix(p, "github.com/sabot-tables/sabot/games/")) && f != "games.go" {
				t.Errorf("%s imports %s: map the game types in games.go", f, p)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d files checked", checked)
	}
}

func TestNeedKindsAndFacesMatchTheGames(t *testing.T) {
	for k := games.NeedDone; k <= games.NeedDecision; k++ {
		if w := tablebus.NeedOf(games.Need{Kind: k}).Kind; w.String() != k.String() {
			t.Errorf("need %v is %v on the wire", k, w)
		}
		if g := tablebus.NeedOf(games.Need{Kind: k}).Game().Kind; g != k {
			t.Errorf("need %v comes back as %v", k, g)
		}
	}
	for _, f := range []games.Face{games.FaceUp, games.FaceDown} {
		if w := tablebus.FaceOf(f); w.String() != f.String() || w.Game() != f {
			t.Errorf("face %v is %v on the wire", f, w)
		}
	}
}

func TestSplitDecision(t *testing.T) {
	for _, tc := range []struct{ in, choice, cards, back string }{
		{"exchange:Kd,3c", "exchange", "[Kd 3c]", "exchange:Kd,3c"},
		{"EXCHANGE:10h", "exchange", "[Th]", "exchange:Th"},
		{"exchange:", "exchange", "[]", "exchange:"},
		{"exchange:Zz", "exchange:Zz", "[]", "exchange:Zz"}, // never accepted by an engine
		{"bet:500", "bet:500", "[]", "bet:500"},
		{"fold", "fold", "[]", "fold"},
		{"H", "H", "[]", "H"},
	} {
		choice, cards := tablebus.SplitDecision(tc.in)
		back := tablebus.Event{Choice: choice, Cards: cards}.GameDecision()
		if choice != tc.choice || fmt.Sprint(cards) != tc.cards || back != tc.back {
			t.Errorf("SplitDecision(%q) = %q %v → %q, want %q %s → %q", tc.in, choice, cards, back, tc.choice, tc.cards, tc.back)
		}
		if len(card.Named(choice)) > 0 && tc.choice != "exchange:Zz" {
			t.Errorf("%q names a card", choice)
		}
	}
}

// A draw-poker seat's exchange options name its closed cards: on the wire they are typed, and
// the public feed carries only the word.
func TestNeedExchanges(t *testing.T) {
	opts := []string{"exchange:", "exchange:Kd", "exchange:3c", "exchange:Kd,3c"}
	n := games.Need{Kind: games.NeedDecision, Seat: 2, Options: opts}
	w := tablebus.NeedOf(n)
	if fmt.Sprint(w.Options, w.Exchanges) != "[exchange] [[] [Kd] [3c] [Kd 3c]]" {
		t.Fatalf("wire need %+v", w)
	}
	if g := w.Game(); !slices.Equal(g.Options, opts) {
		t.Errorf("back to the engine: %q", g.Options)
	}
	if s := w.String(); s != "decision from seat 2: exchange:…" {
		t.Errorf("need says %q", s)
	}
	e := tablebus.Event{V: 1, Seq: 1, Type: tablebus.Guide, Table: "T1", TS: goldenT0, Need: &w, State: "in-round"}
	b, _ := e.Public().Marshal()
	if want := `{"v":1,"seq":1,"type":"guide","table":"T1","source":"","session":0,"ts":"2026-11-29T20:00:00Z","need":{"kind":"decision","seat":2,"options":["exchange"]},"state":"in-round","hidden":true}`; string(b) != want {
		t.Errorf("public guide\n got %s\nwant %s", b, want)
	}
	if w.Exchanges == nil {
		t.Error("Public changed the secure event's need")
	}
}

// ExampleEvent_Public shows the public form of events that carry hidden cards: a card entered
// by hand, a draw-poker exchange, a fault's card, a folded hand.
func ExampleEvent_Public() {
	kh, down := card.MustParse("Kh"), tablebus.FaceDown
	for _, e := range []tablebus.Event{
		{Type: tablebus.FaultResolved, Code: "misread", Reason: "manual entry", Card: &kh, By: "d-117"},
		{Type: tablebus.CardDealt, Card: &kh, Face: &down, To: &tablebus.Place{Name: "box", Seat: 2}, Pos: 7},
		{Type: tablebus.Decision, Seat: 2, Choice: "exchange", Count: 2, Cards: []card.Card{card.MustParse("Kd"), card.MustParse("3c")}},
		{Type: tablebus.Fault, Code: "foreign-card", Problem: "the shoe's decks hold no more of the card at position 9", Card: &kh, Pos: 9, Hold: true},
		{Type: tablebus.RoundResult, Result: "showdown", Unshown: 2, Detail: []byte(`{"exchanged":{"2":["Kd","3c"]}}`),
			Hands: []tablebus.Hand{{Seat: 2, Cards: []card.Card{kh, card.MustParse("Ks")}, Category: "pair", Down: []int{0}}}},
	} {
		s, _ := e.Marshal()
		p, _ := e.Public().Marshal()
		fmt.Printf("%s secure: %s\n%s public: %s\n\n", e.Type, cut(s), e.Type, cut(p))
	}
	// Output:
	// fault.resolved secure: {"card":"Kh","by":"d-117","code":"misread","reason":"manual entry"}
	// fault.resolved public: {"by":"d-117","code":"misread","reason":"manual entry","hidden":true}
	//
	// card secure: {"card":"Kh","face":"down","to":{"name":"box","seat":2},"pos":7}
	// card public: {"face":"down","to":{"name":"box","seat":2},"pos":7,"hidden":true}
	//
	// decision secure: {"count":2,"seat":2,"decision":"exchange","cards":["Kd","3c"]}
	// decision public: {"count":2,"seat":2,"decision":"exchange","hidden":true}
	//
	// fault secure: {"card":"Kh","pos":9,"problem":"the shoe's decks hold no more of the card at position 9","code":"foreign-card","hold":true}
	// fault public: {"pos":9,"code":"foreign-card","hold":true,"hidden":true}
	//
	// round.result secure: {"result":"showdown","hands":[{"seat":2,"hand":0,"cards":["Kh","Ks"],"total":0,"category":"pair","down":[0]}],"unshown":2,"detail":{"exchanged":{"2":["Kd","3c"]}}}
	// round.result public: {"result":"showdown","hands":[{"seat":2,"hand":0,"cards":["Ks"],"total":0}],"unshown":2,"hidden":true}
}

// cut leaves out the envelope.
func cut(b []byte) string {
	s := string(b)
	const ts = `"ts":"0001-01-01T00:00:00Z",`
	return "{" + s[strings.Index(s, ts)+len(ts):]
}
