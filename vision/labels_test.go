package vision

import (
	"errors"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

func TestReadLabels(t *testing.T) {
	in := "file,card,view\nf1.jpg,Qh,shoe\nf2.jpg,10d,table\nf3.jpg,NONE,none\nsub/f4.jpg,CUT,shoe\n"
	ls, err := ReadLabels(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Label{
		{File: "f1.jpg", Kind: Card, Card: card.MustParse("Qh"), View: Shoe, Group: "shoe"},
		{File: "f2.jpg", Kind: Card, Card: card.MustParse("Td"), View: Table, Group: "table"},
		{File: "f3.jpg", Kind: None, View: Shoe, Group: "none"},
		{File: "sub/f4.jpg", Kind: Cut, View: Shoe, Group: "shoe"},
	}
	if len(ls) != len(want) {
		t.Fatalf("%d labels, want %d", len(ls), len(want))
	}
	for i := range want {
		if ls[i] != want[i] {
			t.Errorf("label %d = %+v, want %+v", i, ls[i], want[i])
		}
	}
}

func TestReadLabelsErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "vision: labels: header: EOF"},
		{"wrong header", "name,card,view\n", `vision: labels: header is "name,card,view", want file,card,view`},
		{"no frames", "file,card,view\n", "vision: labels: no frames listed"},
		{"bad card", "file,card,view\na.jpg,1x,shoe\n", `vision: labels: line 2: vision: "1x" is not a card, CUT, BACK or NONE: card: invalid card "1x"`},
		{"bad view", "file,card,view\na.jpg,As,floor\n", `vision: labels: line 2: vision: unknown view "floor" (want shoe, table or none)`},
		{"escape", "file,card,view\n../x.jpg,As,shoe\n", `vision: labels: line 2: file "../x.jpg" is not a plain relative path`},
		{"absolute", "file,card,view\n/etc/x.jpg,As,shoe\n", `vision: labels: line 2: file "/etc/x.jpg" is not a plain relative path`},
		{"twice", "file,card,view\na.jpg,As,shoe\na.jpg,Ks,shoe\n", `vision: labels: line 3: file "a.jpg" listed twice`},
		{"short line", "file,card,view\na.jpg,As\n", "vision: labels: record on line 2: wrong number of fields"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLabels(strings.NewReader(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrLabels) {
				t.Errorf("%v does not wrap ErrLabels", err)
			}
		})
	}
}

func FuzzReadLabels(f *testing.F) {
	f.Add("file,card,view\nf1.jpg,Qh,shoe\nf2.jpg,NONE,none\n")
	f.Add("file,card,view\n\"a,b\",CUT,table\n")
	f.Add("\ufefffile,card,view\nx,BACK,shoe\n")
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := ReadLabels(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, l := range ls {
			if l.File == "" || strings.HasPrefix(l.File, "/") || strings.Contains(l.File, "\\") {
				t.Fatalf("accepted file %q", l.File)
			}
			if l.Kind == Card && !l.Card.Valid() || l.Kind == Reject {
				t.Fatalf("accepted label %+v", l)
			}
		}
	})
}
