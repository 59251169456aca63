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
			"banker  0.95:1   1.057905784%",
			"tie     8:1  14.359628779%",
			"player-pair    11:1  10.361445783%",
		}},
		{name: "remaining equals a full shoe", args: []string{"math", "baccarat", "--remaining", write("full", full)}, want: []string{
			"banker  2292252566437888  0.458597423",
		}},
		{name: "json", args: []string{"math", "punto-banco", "--decks", "6", "--json"}, want: []string{
			`"p_banker":"0.458652719"`, `{"bet":"tie","pays":"8:1","percent":"14.438159798"}`,
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
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
