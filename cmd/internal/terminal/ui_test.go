package terminal

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// TestUICatalogs: every language holds the terminal's English codes with the same arguments,
// no template names a card, and every code the page and the terminal say is in the catalog.
func TestUICatalogs(t *testing.T) {
	en, err := UI(English)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range games.Languages() {
		c, err := UI(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(c) != len(en) {
			t.Errorf("%s: %d codes, English %d", lang, len(c), len(en))
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
				t.Errorf("%s: %s names %v", lang, code, cs)
			}
		}
	}
	used := map[string]bool{}
	for _, f := range []string{"static/app.js", "static/index.html", "terminal.go", "view.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`["'](ui|err|settle)\.([a-z-]+(\.[a-z-]+)?)["']`).FindAllStringSubmatch(string(b), -1) {
			used[m[1]+"."+m[2]] = true
		}
	}
	for _, what := range []string{"void", "new-shoe", "open", "close", "limits", "manual", "unlock"} {
		used["ui.what."+what] = true // said as 'ui.what.' + the action
	}
	for _, a := range []string{"withdraw", "raise", "accept", "decline", "bid", "close"} {
		used["ui.bank."+a] = true // said as "ui.bank." + the bank's action (bank.go)
	}
	for code := range used {
		if _, ok := en[code]; !ok {
			t.Errorf("%s is said but not in the catalog", code)
		}
	}
	if len(used) < 60 {
		t.Errorf("only %d codes found said: the scan is broken", len(used))
	}
}

func TestSay(t *testing.T) {
	if got := Say("es", "err.bet-limit", map[string]string{"seat": "2", "spot": "banca", "amount": "600.00", "min": "1.00", "max": "500.00"}); got != "Box 2, banca: 600.00 está fuera del límite de la mesa, de 1.00 a 500.00." {
		t.Errorf("Spanish: %q", got)
	}
	if got := Say("fr", "err.stale", nil); got != "The table moved on since this screen showed it: look again, then tap." {
		t.Errorf("a language without a catalog: %q", got)
	}
	if got := Say("en", "no.such", nil); got != "no.such" {
		t.Errorf("an unknown code: %q", got)
	}
}
