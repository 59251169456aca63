package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMathBaccarat(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := "A 32\n2 32\n3 32\n4 32\n5 32\n6 32\n7 32\n8 32\n9 32\nT 32\nJ 32\nQ 32\nK 32\n"
	for _, tc := range []struct {
		name    string
		args    []string
		want    []string // lines the output must contain
		wantErr string
	}{
		{name: "8 decks", args: []string{"math", "baccarat"}, want: []string{
			"baccarat, exact enumeration of 8 decks: 416 cards, 4998398275503360 ordered six-card sequences",
			"banker  2292252566437888  0.458597423",
			"player  2230518282592256  0.446246609",
			"tie   475627426473216  0.095155968",
			"pay table standard: banker 0.95:1 (5% commission), player 1:1",
			"banker  0.95:1  0.458597423   1.057905784%    default",
			"tie     8:1  0.095155968  14.359628779%    default",
			"player-pair    11:1  0.074698795  10.361445783%    default",
			"perfect-pair    25:1  0.033450234  13.029390961%  side-bets",
			"player-dragon  win by 9                         30:1  0.003683066  18409431764992/4998398275503360",
		}},
		// The published 8-deck figures of issue 20: EZ's banker 1.0183%, Dragon 7 (P =
		// 0.022534) 7.6113%, Panda 8 (P = 0.034543) 10.1876%; Super 6's banker 1.4581%.
		{name: "ez", args: []string{"math", "baccarat", "--table", "ez"}, want: []string{
			"banker     1:1  0.436063602   1.018300757%    default",
			"dragon-7    40:1  0.022533821   7.611334472%    default",
			"panda-8    25:1  0.034543218  10.187632169%    default",
			"tie push 0.095155968 475627426473216/4998398275503360", "banker wins with a three-card 7  push  0.022533821  112633011329024/4998398275503360",
		}},
		{name: "super6", args: []string{"math", "baccarat", "--table", "super6"}, want: []string{
			"banker   1:1  0.458597423   1.458104464%    default",
			"lucky-6  20:1  0.053863716  16.683572041%    default",
			"banker wins with 6               1:2   0.053863716  269232304455680/4998398275503360",
		}},
		{name: "bad table", args: []string{"math", "baccarat", "--table", "ez2"}, wantErr: `math: --table: baccarat: unknown pay table "ez2" (standard, ez, super6)`},
		{name: "remaining equals a full shoe", args: []string{"math", "baccarat", "--remaining", write("full", full)}, want: []string{
			"banker  2292252566437888  0.458597423",
			"the composition is by rank: the perfect pair, which needs the suits, is not priced.",
		}},
		{name: "json", args: []string{"math", "punto-banco", "--decks", "6", "--json"}, want: []string{
			`"p_banker":"0.458652719"`, `{"bet":"tie","pays":"8:1","percent":"14.438159798"}`, `"table":"standard"`,
			`{"bet":"dragon-7","lines":[{"event":"banker wins with a three-card 7","pays":"40:1",`,
		}},
		{name: "trente et quarante", args: []string{"math", "trente-et-quarante"}, want: []string{
			"trente et quarante, exact enumeration of 6 decks (312 cards), first coup of the shoe",
			"refait 31-31  0.021891370",
			"noir   1:1   1.094569%",
			"couleur   1:1   1.094569%",
		}},
		{name: "trente bad decks", args: []string{"math", "trente-et-quarante", "--decks", "3"}, wantErr: "math: --decks 3: a shoe holds 1, 2, 4, 6 or 8 decks (RULES.md §0)"},
		{name: "bad decks", args: []string{"math", "baccarat", "--decks", "7"}, wantErr: "math: --decks 7: a shoe holds 1, 2, 4, 6 or 8 decks (RULES.md §0)"},
		{name: "negative count", args: []string{"math", "baccarat", "--remaining", write("neg", strings.Replace(full, "T 32", "T -2", 1))},
			wantErr: "math: --remaining " + filepath.Join(dir, "neg") + ": baccarat: composition line 10: T -2: a count cannot be negative"},
		{name: "impossible count", args: []string{"math", "baccarat", "--decks", "1", "--remaining", write("imp", full)},
			wantErr: "math: --remaining " + filepath.Join(dir, "imp") + ": baccarat: composition: 32 of rank A: impossible, a 1-deck shoe holds 4"},
		{name: "missing file", args: []string{"math", "baccarat", "--remaining", filepath.Join(dir, "nope")},
			wantErr: "math: --remaining: open " + filepath.Join(dir, "nope") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v\nwant %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Column widths depend on the figures: compare with runs of spaces as one.
			squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
			var lines []string
			for _, l := range strings.Split(out.String(), "\n") {
				lines = append(lines, squash(l))
			}
			got := strings.Join(lines, "\n")
			for _, w := range tc.want {
				if !strings.Contains(got, squash(w)) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
