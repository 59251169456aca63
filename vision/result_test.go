package vision

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

func TestResultToken(t *testing.T) {
	tests := []struct {
		name   string
		r      Result
		token  string
		String string
	}{
		{"card", Result{Kind: Card, Card: card.MustParse("Qh"), Confidence: 0.984}, "Qh", "Qh (0.98)"},
		{"cut", Result{Kind: Cut, Confidence: 0.9}, "CUT", "CUT (0.90)"},
		{"back", Result{Kind: Back, Confidence: 1}, "BACK", "BACK (1.00)"},
		{"none", Result{Kind: None, Confidence: 0.5}, "NONE", "NONE (0.50)"},
		{"reject", Rejected("index does not match any card", 0.4), "", "reject: index does not match any card"},
		{"card kind without a card is no card", Result{Kind: Card}, "", "reject: "},
		{"zero value is a rejection", Result{}, "", "reject: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Token(); got != tc.token {
				t.Errorf("Token() = %q, want %q", got, tc.token)
			}
			if got := tc.r.String(); got != tc.String {
				t.Errorf("String() = %q, want %q", got, tc.String)
			}
		})
	}
}

func TestResultJSON(t *testing.T) {
	tests := []struct {
		name string
		r    Result
		want string
	}{
		{"card", Result{Kind: Card, Card: card.MustParse("Td"), Confidence: 0.98765}, `{"card":"Td","confidence":0.988}`},
		{"cut", Result{Kind: Cut, Confidence: 0.5}, `{"card":"CUT","confidence":0.5}`},
		{"none", Result{Kind: None, Confidence: 1}, `{"card":"NONE","confidence":1}`},
		{"reject", Rejected("rank 7, suit unclear", 0.61), `{"card":null,"confidence":0.61,"reject":"rank 7, suit unclear"}`},
		{"reject without a reason", Result{}, `{"card":null,"confidence":0,"reject":"unreadable"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("Marshal = %s, want %s", b, tc.want)
			}
			var back Result
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("Unmarshal(%s): %v", b, err)
			}
			if back.Token() != tc.r.Token() || back.Kind != tc.r.Kind {
				t.Errorf("round trip %s: got %+v", b, back)
			}
		})
	}
}

func TestResultJSONErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"card":"Zz","confidence":1}`, `vision: "Zz" is not a card, CUT, BACK or NONE: card: invalid card "Zz"`},
		{`{"card":null,"confidence":0}`, `vision: result: neither a card nor a reject reason`},
		{`{"card":"As","confidence":1,"reject":"x"}`, `vision: result: both a card and a reject reason`},
		{`{"card":"As","confidence":1.5}`, `vision: result: confidence 1.5 outside [0, 1]`},
		{`[1]`, `vision: result: json: cannot unmarshal array into Go value of type vision.resultJSON`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var r Result
			err := json.Unmarshal([]byte(tc.in), &r)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Unmarshal(%s) error = %v, want %q", tc.in, err, tc.want)
			}
		})
	}
}

func TestParseToken(t *testing.T) {
	for _, tok := range []string{"As", "10h", "Kc", "CUT", "BACK", "NONE"} {
		k, c, err := ParseToken(tok)
		if err != nil {
			t.Fatalf("ParseToken(%q): %v", tok, err)
		}
		want := tok
		if tok == "10h" {
			want = "Th"
		}
		if got := (Result{Kind: k, Card: c}).Token(); got != want {
			t.Errorf("ParseToken(%q) = %q", tok, got)
		}
	}
	if _, _, err := ParseToken("cut"); err == nil {
		t.Error(`ParseToken("cut") accepted a lower-case special token`)
	} else if !errors.Is(err, card.ErrSyntax) {
		t.Errorf("error %v does not wrap card.ErrSyntax", err)
	}
}

func FuzzResultJSON(f *testing.F) {
	for _, s := range []string{`{"card":"Td","confidence":0.9}`, `{"card":null,"reject":"x","confidence":0}`, `{"card":"CUT","confidence":1}`, `{}`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			return
		}
		if r.Confidence < 0 || r.Confidence > 1 {
			t.Fatalf("accepted confidence %v", r.Confidence)
		}
		if r.Kind == Card && !r.Card.Valid() {
			t.Fatalf("accepted a card result without a card: %s", b)
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("Marshal after Unmarshal(%s): %v", b, err)
		}
		var again Result
		if err := json.Unmarshal(out, &again); err != nil || again.Token() != r.Token() || again.Reason != r.Reason {
			t.Fatalf("round trip of %s: %s gives %+v, %v", b, out, again, err)
		}
	})
}

func ExampleResult_MarshalJSON() {
	b, _ := json.Marshal(Result{Kind: Card, Card: card.MustParse("Qh"), Confidence: 0.98})
	fmt.Println(string(b))
	b, _ = json.Marshal(Rejected("rank 7, suit unclear", 0.4))
	fmt.Println(string(b))
	// Output:
	// {"card":"Qh","confidence":0.98}
	// {"card":null,"confidence":0.4,"reject":"rank 7, suit unclear"}
}
