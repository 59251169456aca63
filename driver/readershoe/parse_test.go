package readershoe

import (
	"errors"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

func TestParseFrame(t *testing.T) {
	c := card.MustParse
	tests := []struct {
		in   string
		want Read
	}{
		{" [Game]<Card:4S> ", Read{Kind: Card, Mode: Game, Card: c("4s")}},
		{"[Game]<Card:4S>", Read{Kind: Card, Mode: Game, Card: c("4s")}},
		{" [Game]<Card:TD> ", Read{Kind: Card, Mode: Game, Card: c("Td")}},
		{" [Game]<Card:10H> ", Read{Kind: Card, Mode: Game, Card: c("Th")}},
		{" [Game]<Card:AC> ", Read{Kind: Card, Mode: Game, Card: c("Ac")}},
		{" [Game]<Card:KH> ", Read{Kind: Card, Mode: Game, Card: c("Kh")}},
		{" [Manual Burn Cards]<Card:QS> ", Read{Kind: Card, Mode: Burn, Card: c("Qs")}},
		{" [Game]<Game> ", Read{Kind: Unreadable, Mode: Game}},
		{" [Manual Burn Cards]<Game> ", Read{Kind: Unreadable, Mode: Burn}},
		{" [Game]<Cut Card> ", Read{Kind: Cut, Mode: Game}},
		{" [Game]<Alarm:E3 Card Not Read> ", Read{Kind: Alarm, Mode: Game, Code: "E3", Text: "Card Not Read"}},
		{" [GameAlarm]<Alarm:E7 Shoe Empty> ", Read{Kind: Alarm, Mode: GameAlarm, Code: "E7", Text: "Shoe Empty"}},
		{"<Alarm:E1>", Read{Kind: Alarm, Code: "E1"}},
		{" <W0x01> ", Read{Kind: Warning, Code: "0x01"}},
		{"[Game]<W0x1f>", Read{Kind: Warning, Mode: Game, Code: "0x1f"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := ParseFrame([]byte(tt.in))
			if got.Err != nil {
				t.Fatalf("err %v", got.Err)
			}
			if got.Kind != tt.want.Kind || got.Mode != tt.want.Mode || got.Card != tt.want.Card || got.Code != tt.want.Code || got.Text != tt.want.Text {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			if string(got.Raw) != tt.in {
				t.Fatalf("raw %q", got.Raw)
			}
		})
	}
}

// TestParseFrameMalformed: each of these is one or two characters away from a real frame, and
// none may become a card.
func TestParseFrameMalformed(t *testing.T) {
	for _, in := range []string{
		"",
		"[Game]<Card:4s>",       // lower-case suit
		"[Game]<Card:4X>",       // no such suit
		"[Game]<Card:1S>",       // no such rank
		"[Game]<Card:11S>",      // no such rank
		"[Game]<Card:S4>",       // suit first (unconfirmed form)
		"[Game]<Card:4SS>",      // too long
		"[Game]<Card:>",         // empty
		"[Game]<Card:4S",        // no '>'
		"[Game<Card:4S>",        // no ']'
		"Game]<Card:4S>",        // no '['
		"[Gane]<Card:4S>",       // unknown mode
		"[game]<Card:4S>",       // mode in lower case
		"<Card:4S>",             // a card without a mode
		"[GameAlarm]<Card:4S>",  // a card in alarm mode
		"[Game]<Card:4S>x",      // trailing garbage
		"x[Game]<Card:4S>",      // leading garbage
		"[Game]<Card:4\x00S>",   // a NUL
		"[Game]<Card:4\xb3S>",   // a byte over 0x7e
		"[Game]<Crd:4S>",        // unknown body
		"[Game]<Card 4S>",       // no colon
		"[Game]<Card:<4S>",      // a bracket inside
		"[Game]<Cut card>",      // case
		"[Game]<Alarm:e3 x>",    // alarm code in lower case
		"[Game]<Alarm:>",        // no alarm code
		"<W0x1>",                // one hex digit
		"<W0x1G>",               // not hex
		"[Game]<Game>[Game]",    // two modes
		"[Game] <Card:4S>",      // a space between mode and body
		"[Manual Burn Cards]<>", // empty body
		"[Manual  Burn Cards]<Game>",
	} {
		r := ParseFrame([]byte(in))
		if r.Kind != Malformed || !errors.Is(r.Err, ErrMalformed) || r.Card != card.None {
			t.Errorf("%q: %+v", in, r)
		}
		if string(r.Raw) != in {
			t.Errorf("%q: raw %q", in, r.Raw)
		}
	}
}

func TestParseLine(t *testing.T) {
	type k struct {
		kind Kind
		card string
	}
	tests := []struct {
		name string
		in   string
		want []k
	}{
		{"one card", " [Game]<Card:4S> ", []k{{Card, "4s"}}},
		{"blank", "   ", nil},
		{"empty", "", nil},
		{"two frames, line ending lost", " [Game]<Card:4S>  [Game]<Card:5H> ", []k{{Card, "4s"}, {Card, "5h"}}},
		{"frame and warning", " [Game]<Card:4S>  <W0x02> ", []k{{Card, "4s"}, {Warning, ""}}},
		{"NUL in place of the trailing space", " [Game]<Card:4S>\x00", []k{{Card, "4s"}}},
		{"NUL inside the card", " [Game]<Card:4\x00> ", []k{{Malformed, ""}}},
		{"two NULs inside the card", " [Ga\x00e]<Card:4\x00> ", []k{{Malformed, ""}}},
		{"NUL between two frames", " [Game]<Card:4S\x00 [Game]<Card:5H> ", []k{{Malformed, ""}, {Card, "5h"}}},
		{"two damaged frames run together", " [Game]<Card:4\x00  [Game]<Ca\x00d:5H> ", []k{{Malformed, ""}, {Malformed, ""}}},
		{"damaged, good, damaged", " [Game]<Card:4\x00[Game]<Card:5H>\x00[Game]<Cxrd:6H> ", []k{{Malformed, ""}, {Card, "5h"}, {Malformed, ""}}},
		{"noise only", "\x00\x00", []k{{Noise, ""}}},
		{"noise and spaces", " \x00 ", []k{{Noise, ""}}},
		{"garbage then frame", "xx [Game]<Card:4S> ", []k{{Malformed, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseLine([]byte(tt.in))
			if len(got) != len(tt.want) {
				t.Fatalf("%d reads %v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				if got[i].Kind != w.kind {
					t.Fatalf("read %d: %v, want %v", i, got[i], w.kind)
				}
				if w.card != "" && got[i].Card != card.MustParse(w.card) {
					t.Fatalf("read %d: %v, want %s", i, got[i], w.card)
				}
			}
		})
	}
}

func TestFormatCard(t *testing.T) {
	tests := []struct {
		m     Mode
		c     string
		ten10 bool
		want  string
	}{
		{Game, "4s", false, " [Game]<Card:4S> "},
		{Game, "Td", false, " [Game]<Card:TD> "},
		{Game, "Td", true, " [Game]<Card:10D> "},
		{Burn, "Ac", false, " [Manual Burn Cards]<Card:AC> "},
		{Game, "Kh", false, " [Game]<Card:KH> "},
	}
	for _, tt := range tests {
		got := FormatCard(tt.m, card.MustParse(tt.c), tt.ten10)
		if got != tt.want {
			t.Errorf("FormatCard(%v, %s) = %q, want %q", tt.m, tt.c, got, tt.want)
		}
		r := ParseFrame([]byte(got))
		if r.Kind != Card || r.Card != card.MustParse(tt.c) || r.Mode != tt.m {
			t.Errorf("%q parses to %v", got, r)
		}
	}
}

// FuzzParseLine: no panic; every card read is an exact, canonical frame of the line.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{" [Game]<Card:4S> ", " [Manual Burn Cards]<Card:10H> ", " [Game]<Game> ",
		" [Game]<Alarm:E3 Card Not Read> ", " <W0x01> ", " [Game]<Cut Card> ", "[Game]<Card:4S>[Game]<Card:5H>",
		"\x00[Game]<Card:4S>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, r := range ParseLine(line) {
			switch r.Kind {
			case Card:
				if !r.Card.Valid() || (r.Mode != Game && r.Mode != Burn) {
					t.Fatalf("card read %+v", r)
				}
				// The frame, trimmed, must be exactly what FormatCard writes (T or 10).
				tr := string(trim(r.Raw))
				if tr != string(trim([]byte(FormatCard(r.Mode, r.Card, false)))) && tr != string(trim([]byte(FormatCard(r.Mode, r.Card, true)))) {
					t.Fatalf("card %v from %q", r.Card, r.Raw)
				}
			case Malformed:
				if r.Err == nil || r.Card != card.None {
					t.Fatalf("malformed read %+v", r)
				}
			case Noise:
				if r.Err == nil {
					t.Fatalf("noise read %+v", r)
				}
			case Unreadable, Cut, Alarm, Warning:
			default:
				t.Fatalf("kind %v from a line", r.Kind)
			}
		}
	})
}

func trim(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}
