package games_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// TestCatalogs: every language's catalog holds exactly the codes of the English one, each with
// the same arguments, and no template names a card (RULES.md §1 "Hidden cards").
func TestCatalogs(t *testing.T) {
	en, err := games.Catalog(games.English)
	if err != nil {
		t.Fatal(err)
	}
	if len(en) < 100 {
		t.Fatalf("the English catalog has %d codes", len(en))
	}
	for _, lang := range games.Languages() {
		c, err := games.Catalog(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range slices.Sorted(maps.Keys(en)) {
			tmpl, ok := c[code]
			if !ok {
				t.Errorf("%s: %s is missing", lang, code)
				continue
			}
			want, _ := games.Placeholders(en[code])
			got, _ := games.Placeholders(tmpl)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s takes %v, English %v", lang, code, got, want)
			}
			if cs := card.Named(tmpl); len(cs) > 0 {
				t.Errorf("%s: %s names %v: %q", lang, code, cs, tmpl)
			}
		}
		for code := range c {
			if _, ok := en[code]; !ok {
				t.Errorf("%s: %s is not in the English catalog", lang, code)
			}
		}
	}
	if _, err := games.Catalog("fr"); err == nil || !strings.Contains(err.Error(), `no message catalog for language "fr"`) {
		t.Errorf("a language without a catalog: %v", err)
	}
}

func TestText(t *testing.T) {
	m := games.M("bj.stands", games.T("who", games.M("bj.seat-hand", games.N("seat", 2), games.N("hand", 1))),
		games.T("total", games.M("bj.soft", games.N("total", 18))))
	for _, c := range []struct {
		lang string
		m    games.Msg
		want string
	}{
		{games.English, m, "seat 2 hand 1 stands on soft 18"},
		{games.Spanish, m, "puesto 2 mano 1 se planta con 18 blando"},
		{games.English, games.NeedMsg(games.Need{Kind: games.NeedCard, To: games.Place{Name: "dealer"}, Face: games.FaceDown}), "card to dealer face down"},
		{games.Spanish, games.NeedMsg(games.Need{Kind: games.NeedCard, To: games.Place{Name: "box", Seat: 3, Hand: 1}}), "carta a box 3 mano 2"},
		{games.Spanish, games.M("hold.misread-detail", games.S("detail", "suit unclear")),
			"mesa detenida: la carta no se pudo leer con certeza (suit unclear); ingrésela a mano o anule la ronda"},
		{games.English, games.DecisionMsg("raise:200-10000"), "raise"},
		{games.Spanish, games.DecisionMsg("H"), "pedir"},
		// What no catalog holds is said as its code, an argument missing as its placeholder.
		{games.Spanish, games.M("no.such-code"), "no.such-code"},
		{games.English, games.M("bj.seat"), "seat {seat}"},
		{"fr", games.M("shoe.verified"), "shuffle"},
	} {
		if got := games.Text(c.lang, c.m); got != c.want {
			t.Errorf("Text(%s, %#v) = %q, want %q", c.lang, c.m, got, c.want)
		}
	}
}

func TestParseCatalog(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a = b\na = c\n", "line 2: a given twice"},
		{"# comment\nno template\n", "line 2: want code = template"},
		{"a = {open\n", "line 1: a: a { without its }"},
		{"a = close}\n", "line 1: a: a } without its {"},
		{"a = {}\n", "line 1: a: bad placeholder {}"},
	} {
		if _, err := games.ParseCatalog([]byte(c.in)); err == nil || err.Error() != c.want {
			t.Errorf("ParseCatalog(%q): %v, want %q", c.in, err, c.want)
		}
	}
}
