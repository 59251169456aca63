package readershoe

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Kind says what a Read is.
type Kind uint8

// Read kinds. Only Card carries a card; Unreadable and Malformed are draws whose card is unknown
// (the round is held: RULES.md §1 "Misread"); LinkDown means lines may have been lost.
const (
	Card       Kind = iota + 1 // a card was read: [Game]<Card:4S>, [Manual Burn Cards]<Card:4S>
	Unreadable                 // a card left the shoe unread: [Game]<Game>
	Alarm                      // [Game]<Alarm:E3 Card Not Read>, [GameAlarm]<Alarm:…>
	Warning                    // <W0x01>
	Cut                        // the cut card left the shoe: [Game]<Cut Card> (Sabot extension)
	Malformed                  // a frame that is none of the above: never a card (Raw, Err)
	LinkDown                   // the port went away; lines sent meanwhile are lost (Err)
	LinkUp                     // the port is back
	Noise                      // bytes too few to have been a frame (noise, a line's damaged tail): not a draw (Raw, Err)
)

func (k Kind) String() string {
	switch k {
	case Card:
		return "card"
	case Unreadable:
		return "unreadable"
	case Alarm:
		return "alarm"
	case Warning:
		return "warning"
	case Cut:
		return "cut card"
	case Malformed:
		return "malformed"
	case LinkDown:
		return "link down"
	case LinkUp:
		return "link up"
	case Noise:
		return "noise"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Mode is the bracketed mode a line starts with.
type Mode uint8

// Modes.
const (
	NoMode    Mode = iota // no bracket (warnings)
	Game                  // [Game]: dealing
	Burn                  // [Manual Burn Cards]: the dealer is burning cards (set on the shoe's panel)
	GameAlarm             // [GameAlarm]
)

var modeNames = map[string]Mode{"Game": Game, "Manual Burn Cards": Burn, "GameAlarm": GameAlarm}

func (m Mode) String() string {
	switch m {
	case NoMode:
		return "none"
	case Game:
		return "Game"
	case Burn:
		return "Manual Burn Cards"
	case GameAlarm:
		return "GameAlarm"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Read is one thing the shoe said, or the driver's word on the link.
type Read struct {
	Kind Kind
	Mode Mode
	Card card.Card // Kind Card
	Code string    // Alarm: "E3"; Warning: "0x01"
	Text string    // Alarm: "Card Not Read"
	Raw  []byte    // the frame as received, without the line ending; for a Malformed read, everything kept
	Err  error     // Malformed: why (wraps ErrMalformed); LinkDown: the port's error
	Seq  uint64    // 1, 2, 3… in arrival order (the shoe numbers nothing; the driver does)
	At   time.Time // when the driver received it (the shoe sends no time)
}

// String shows a read for logs: "card 4s (Game)", "malformed \"[Game]<Card:4\\x00>\": …".
func (r Read) String() string {
	switch r.Kind {
	case Card:
		return fmt.Sprintf("card %s (%s)", r.Card, r.Mode)
	case Unreadable, Cut:
		return fmt.Sprintf("%s (%s)", r.Kind, r.Mode)
	case Alarm:
		return fmt.Sprintf("alarm %s %s", r.Code, r.Text)
	case Warning:
		return "warning " + r.Code
	case Malformed, LinkDown, Noise:
		return fmt.Sprintf("%s %q: %v", r.Kind, r.Raw, r.Err)
	}
	return r.Kind.String()
}

// Draw reports whether the read stands for one card that left the shoe: a card, an unreadable
// card, the cut card, or a Malformed frame (a damaged card line, as far as the bytes can tell: a
// damaged warning line is Malformed too, which holds the round for nothing, the safe side).
func (r Read) Draw() bool {
	return r.Kind == Card || r.Kind == Unreadable || r.Kind == Cut || r.Kind == Malformed
}

// ErrMalformed is wrapped by the Err of every Malformed read.
var ErrMalformed = errors.New("readershoe: malformed line")

// MaxLine is the longest line the driver keeps; longer ones are Malformed.
const MaxLine = 128

// ParseLine parses one line (without its CR LF) into reads, one per frame: normally one.
//
// Noise shows as bytes outside printable ASCII (Linux delivers a byte with a framing error as NUL)
// and as lost bytes. So the line is cut at every such byte, and each piece again after a '>' that
// another frame follows (noise ate the line ending between two frames). Each piece is parsed on
// its own, strictly: a piece that is exactly a known frame is that frame, all its bytes having come
// through. Neighbouring pieces that are not frames are one damaged stretch, which comes back as
// one Malformed read with the raw bytes (noise included), or one per '[' in it when it holds the
// starts of several frames: one damaged card is one Malformed read, never two, and never a card.
// A stretch with fewer than MinFrame visible characters cannot have been a card's line (the tail of
// a line whose line ending was damaged, a stray byte): it is a Noise read, not a draw; so is a line
// of nothing but noise bytes. A blank line gives nothing.
func ParseLine(line []byte) []Read {
	var out []Read
	damaged, dend := -1, -1 // the damaged stretch being gathered: line[damaged:dend]
	flush := func() {
		if damaged < 0 {
			return
		}
		for _, part := range splitStarts(line[damaged:dend]) {
			var r Read
			if visible(part) < MinFrame {
				// Too little left to have been a card's line: a card line has 15 or more
				// visible characters, and noise that destroys most of them is beyond belief.
				// The tail of a line whose line ending was damaged, or a stray byte.
				r = Read{Kind: Noise, Raw: append([]byte(nil), part...), Err: fmt.Errorf("%w: %d visible characters, too few for a frame", ErrMalformed, visible(part))}
			} else if r = ParseFrame(part); r.Kind != Malformed { // cannot happen: every piece of it failed
				r = Read{Kind: Malformed, Raw: r.Raw, Err: fmt.Errorf("%w: damaged stretch", ErrMalformed)}
			}
			if len(part) != len(line) {
				r.Err = fmt.Errorf("%w (line %q)", r.Err, line)
			}
			out = append(out, r)
		}
		damaged = -1
	}
	start := 0
	for i := 0; i <= len(line); i++ {
		if i < len(line) && printable(line[i]) {
			continue
		}
		for _, f := range splitFrames(line[start:i]) {
			off := start + f.off
			if len(bytes.Trim(f.b, " ")) == 0 {
				continue
			}
			r := ParseFrame(f.b)
			if r.Kind == Malformed {
				if damaged < 0 {
					damaged = off
				}
				dend = off + len(f.b)
				continue
			}
			flush()
			out = append(out, r)
		}
		start = i + 1
	}
	flush()
	if len(out) == 0 && len(bytes.Trim(line, " ")) != 0 {
		out = append(out, Read{Kind: Noise, Raw: append([]byte(nil), line...), Err: fmt.Errorf("%w: noise only", ErrMalformed)})
	}
	return out
}

func printable(c byte) bool { return c >= 0x20 && c <= 0x7E }

type frameAt struct {
	b   []byte
	off int
}

// splitFrames cuts a piece after each '>' that spaces and then '[' or '<' follow.
func splitFrames(piece []byte) []frameAt {
	var out []frameAt
	start := 0
	for i := 0; i < len(piece); i++ {
		if piece[i] != '>' {
			continue
		}
		j := i + 1
		for j < len(piece) && piece[j] == ' ' {
			j++
		}
		if j < len(piece) && (piece[j] == '[' || piece[j] == '<') {
			out = append(out, frameAt{piece[start : i+1], start})
			start = j
			i = j - 1
		}
	}
	return append(out, frameAt{piece[start:], start})
}

// MinFrame is the fewest visible (printable, not space) characters of any frame ("<W0x01>" has 7;
// a card line has 15). A damaged stretch with fewer is Noise, not a draw.
const MinFrame = 7

// visible counts b's printable characters other than space.
func visible(b []byte) int {
	n := 0
	for _, c := range b {
		if c > 0x20 && c <= 0x7E {
			n++
		}
	}
	return n
}

// splitStarts cuts a damaged stretch before its second, third … "[G" or "[M": each frame starts
// with its mode in brackets ([Game], [GameAlarm], [Manual Burn Cards]), so each is a frame that
// was on the line; bytes before the first go with it. A part too short to be a frame stays with
// its neighbour.
func splitStarts(b []byte) [][]byte {
	var cuts []int
	for i, c := range b {
		if c == '[' && i > 0 && i+1 < len(b) && (b[i+1] == 'G' || b[i+1] == 'M') && visible(b[:i]) > 0 {
			cuts = append(cuts, i)
		}
	}
	var out [][]byte
	start := 0
	for k, i := range cuts {
		next := len(b)
		if k+1 < len(cuts) {
			next = cuts[k+1]
		}
		if visible(b[start:i]) < MinFrame || visible(b[i:next]) < MinFrame {
			continue // keep the short part with its neighbour
		}
		out = append(out, b[start:i])
		start = i
	}
	return append(out, b[start:])
}

// ParseFrame parses one frame: [Mode]<Body> with optional spaces around it (research/regulatory.md
// §2.6). Every byte must be printable ASCII and every part exactly as listed in the package
// documentation; anything else is Malformed.
func ParseFrame(f []byte) Read {
	raw := append([]byte(nil), f...)
	bad := func(format string, a ...any) Read {
		return Read{Kind: Malformed, Raw: raw, Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, a...)...)}
	}
	for i, c := range f {
		if c < 0x20 || c > 0x7E {
			return bad("byte %#02x at %d", c, i)
		}
	}
	s := string(bytes.Trim(f, " "))
	mode := NoMode
	if len(s) > 0 && s[0] == '[' {
		end := indexByte(s, ']')
		if end < 0 {
			return bad("no ']'")
		}
		m, ok := modeNames[s[1:end]]
		if !ok {
			return bad("unknown mode %q", s[1:end])
		}
		mode, s = m, s[end+1:]
	}
	if len(s) < 2 || s[0] != '<' || s[len(s)-1] != '>' {
		return bad("no <…>")
	}
	body := s[1 : len(s)-1]
	if indexAny(body, "<>[]") >= 0 {
		return bad("bracket inside <…>")
	}
	r := Read{Mode: mode, Raw: raw}
	switch {
	case len(body) > 5 && body[:5] == "Card:":
		if mode != Game && mode != Burn {
			return bad("card in mode %s", mode)
		}
		c, ok := parseCard(body[5:])
		if !ok {
			return bad("card %q", body[5:])
		}
		r.Kind, r.Card = Card, c
	case body == "Game":
		if mode != Game && mode != Burn {
			return bad("unread card in mode %s", mode)
		}
		r.Kind = Unreadable
	case body == "Cut Card":
		if mode != Game && mode != Burn {
			return bad("cut card in mode %s", mode)
		}
		r.Kind = Cut
	case len(body) > 6 && body[:6] == "Alarm:":
		code, text, _ := cut(body[6:], ' ')
		if !alnum(code) || len(code) > 8 {
			return bad("alarm code %q", code)
		}
		r.Kind, r.Code, r.Text = Alarm, code, text
	case len(body) == 5 && body[:3] == "W0x" && hex(body[3]) && hex(body[4]):
		r.Kind, r.Code = Warning, body[1:]
	default:
		return bad("unknown frame <%s>", body)
	}
	return r
}

// parseCard reads rank then suit: 2-9, T or 10, J, Q, K, A; then C, D, H or S (upper case only:
// the shoe sends upper case, and accepting more only widens what noise can turn into a card).
func parseCard(s string) (card.Card, bool) {
	var rs, ss string
	switch len(s) {
	case 2:
		rs, ss = s[:1], s[1:]
	case 3:
		if s[:2] != "10" {
			return card.None, false
		}
		rs, ss = "T", s[2:]
	default:
		return card.None, false
	}
	r := indexByte("A23456789TJQK", rs[0]) + 1
	var suit card.Suit
	switch ss[0] {
	case 'S':
		suit = card.Spades
	case 'H':
		suit = card.Hearts
	case 'D':
		suit = card.Diamonds
	case 'C':
		suit = card.Clubs
	default:
		return card.None, false
	}
	if r == 0 {
		return card.None, false
	}
	return card.New(card.Rank(r), suit), true
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func indexAny(s, chars string) int {
	for i := 0; i < len(s); i++ {
		if indexByte(chars, s[i]) >= 0 {
			return i
		}
	}
	return -1
}

func cut(s string, sep byte) (before, after string, found bool) {
	if i := indexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

func alnum(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func hex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f' }

// FormatCard writes the line the shoe sends for c in mode m, without the line ending:
// " [Game]<Card:4S> ". The ten is written T, or 10 when ten10 is set.
func FormatCard(m Mode, c card.Card, ten10 bool) string {
	r := c.Rank().String()
	if ten10 && c.Rank() == card.Ten {
		r = "10"
	}
	return fmt.Sprintf(" [%s]<Card:%s%c> ", m, r, "SHDC"[c.Suit()])
}
