package card

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"As", "As"}, {"AS", "As"}, {"Td", "Td"}, {"10d", "Td"}, {"10H", "Th"},
		{"2c", "2c"}, {"Kh", "Kh"}, {"QD", "Qd"}, {"9s", "9s"}, {"Jc", "Jc"},
	} {
		c, err := Parse(tc.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.in, err)
		}
		if c.String() != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.in, c, tc.want)
		}
	}
	for _, bad := range []string{"", "A", "1s", "11s", "Ax", "as", "10", "100s", "A s", "Zs", "CUT", "BACK", "NONE", "A\x00", "T:"} {
		if c, err := Parse(bad); err == nil || !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, %v; want ErrSyntax", bad, c, err)
		}
	}
}

func TestRoundTripAll(t *testing.T) {
	seen := map[string]bool{}
	for i, c := range Deck() {
		if c.Index() != i || FromIndex(i) != c {
			t.Fatalf("index %d: %v", i, c)
		}
		p, err := Parse(c.String())
		if err != nil || p != c {
			t.Fatalf("round trip %s: %v %v", c, p, err)
		}
		if New(c.Rank(), c.Suit()) != c {
			t.Fatalf("New(%v,%v) != %v", c.Rank(), c.Suit(), c)
		}
		seen[c.String()] = true
	}
	if len(seen) != 52 {
		t.Fatalf("%d distinct cards", len(seen))
	}
	if None.Valid() || None.String() != "??" || FromIndex(52) != None {
		t.Fatal("None misbehaves")
	}
}

func TestValues(t *testing.T) {
	for _, tc := range []struct {
		c        string
		bac, pip int
	}{{"As", 1, 1}, {"9h", 9, 9}, {"Td", 0, 10}, {"Kc", 0, 10}, {"5s", 5, 5}} {
		c := MustParse(tc.c)
		if c.BaccaratValue() != tc.bac || c.PipValue() != tc.pip {
			t.Errorf("%s: baccarat %d pip %d", c, c.BaccaratValue(), c.PipValue())
		}
	}
}

func TestDiff(t *testing.T) {
	want := Decks(8)
	got := want
	got.Remove(MustParse("As"))
	got.Add(MustParse("Kd"))
	got.Remove(MustParse("7h"))
	got.Remove(MustParse("7h"))
	d := Diff(want, got)
	if s := DescribeDiff(d); s != "missing As, 7h×2; extra Kd" {
		t.Fatalf("DescribeDiff = %q", s)
	}
	if got.Total() != 8*52-2 {
		t.Fatalf("total %d", got.Total())
	}
	if DescribeDiff(nil) != "complete" {
		t.Fatal("empty diff")
	}
}

func ExampleParse() {
	c, _ := Parse("10H")
	fmt.Println(c, c.Pretty(), c.Rank(), c.Suit(), c.Suit().Red())
	// Output: Th 10♥ T h true
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"As", "10h", "KD", "", "1", "CUT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			if c != None {
				t.Fatalf("error with card %v", c)
			}
			return
		}
		if !c.Valid() {
			t.Fatalf("Parse(%q) gave invalid card", s)
		}
		back, err := Parse(c.String())
		if err != nil || back != c {
			t.Fatalf("round trip %q -> %s -> %v %v", s, c, back, err)
		}
	})
}

func TestNamed(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string
	}{
		{"manual entry of Kd", "Kd"},
		{`{"card":"Qh","cards":["3c","10s"]}`, "Qh 3c Ts"},
		{"exchange:Kd,3c", "Kd 3c"},
		{"dealer turns K♦ and 10♥, then ♡", "Kd Th"},
		{"the white A♤ and 7♧", "As 7c"},
		{"KD AS", "Kd As"},
		{"Kdx xKd 1Kd K d Kd1 2026-01-01T00:00:08.5Z", ""},
		{"banker stands on 6; player wins 7 to 5; seat 2 busts with 26", ""},
		{"T1-000001 #12 sig _Kd- 4s.", "Kd 4s"}, // base64url can spell a card: scan bodies, not seals
		{"", ""},
	} {
		var got []string
		for _, c := range Named(tc.text) {
			got = append(got, c.String())
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("Named(%q) = %q, want %q", tc.text, g, tc.want)
		}
	}
}
