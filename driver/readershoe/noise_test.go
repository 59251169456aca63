package readershoe

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Line-noise models applied to one line's bytes, as the simulator's line does (ptyline).
type noise struct {
	corrupt, drop float64
	random        bool // corrupted bytes become random different bytes; else NUL (framing error)
}

func (n noise) apply(r *rand.Rand, b []byte) []byte {
	var out []byte
	for _, c := range b {
		if r.Float64() < n.drop {
			continue
		}
		if r.Float64() < n.corrupt {
			if n.random {
				c ^= byte(1 + r.IntN(255))
			} else {
				c = 0
			}
		}
		out = append(out, c)
	}
	return out
}

type tally struct {
	lines, wrong, lost, extra, malformed int
}

// shoeUnderNoise sends every card of a shuffled 8-deck shoe as its own line through the noise,
// 300 ms apart (a dealer draws about one card a second; the line idle limit is 250 ms), into the driver's assembler (which cuts lines at CR and LF, parses them and joins
// a line cut by a stray line ending), and tallies per card: a card read that is another card
// (wrong), no draw read (lost), more than one (extra), a Malformed read (malformed).
func shoeUnderNoise(r *rand.Rand, n noise) tally {
	var t tally
	cards := card.Deck()
	for range 7 {
		cards = append(cards, card.Deck()...)
	}
	r.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	a := assembler{lineIdle: 250 * time.Millisecond, window: 30 * time.Millisecond}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range cards {
		t.lines++
		line := n.apply(r, []byte(FormatCard(Game, c, false)+"\r\n"))
		draws := 0
		emit := func(rd Read) bool {
			if rd.Draw() {
				draws++
			}
			switch rd.Kind {
			case Card:
				if rd.Card != c {
					t.wrong++
				}
			case Malformed:
				t.malformed++
			case Cut, Unreadable:
				t.wrong++
			}
			return true
		}
		a.feed(line, now, emit)
		now = now.Add(300 * time.Millisecond) // the next card; the quiet line ends everything
		a.tick(now, emit)
		switch {
		case draws == 0:
			t.lost++
		case draws > 1:
			t.extra++
		}
	}
	return t
}

// TestNoiseManyShoes: 200 shoes of 416 lines at 1% of bytes damaged the way RS-232 noise shows
// (framing errors delivered as NUL, lost bytes): not one wrong card, lost card or doubled card.
func TestNoiseManyShoes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var sum tally
	for range 200 {
		s := shoeUnderNoise(r, noise{corrupt: 0.007, drop: 0.003})
		sum.lines += s.lines
		sum.wrong += s.wrong
		sum.lost += s.lost
		sum.extra += s.extra
		sum.malformed += s.malformed
	}
	if sum.wrong != 0 || sum.lost != 0 || sum.extra != 0 {
		t.Fatalf("%+v", sum)
	}
	if sum.malformed == 0 {
		t.Fatal("no line was damaged: the test proves nothing")
	}
	t.Logf("%d lines: %d came back malformed (%.1f%%), none wrong, lost or doubled", sum.lines, sum.malformed, 100*float64(sum.malformed)/float64(sum.lines))
}

// BenchmarkShoeUnderNoise reports, per 8-deck shoe at 1% of bytes damaged, the malformed lines
// the dealer must enter by hand, and the wrong cards. Framing errors and lost bytes give no wrong
// card. Random substitution of data bits (noise that leaves the framing intact) can turn one
// valid character into another, which no parser of a checksumless protocol can see: its wrong-card
// figure is the residual risk that the cross-checks above the driver must catch.
func BenchmarkShoeUnderNoise(b *testing.B) {
	for _, bc := range []struct {
		name string
		n    noise
	}{
		{"framing-errors", noise{corrupt: 0.007, drop: 0.003}},
		{"random-bytes", noise{corrupt: 0.01, random: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(11, 11))
			var sum tally
			for b.Loop() {
				s := shoeUnderNoise(r, bc.n)
				sum.wrong += s.wrong
				sum.lost += s.lost
				sum.extra += s.extra
				sum.malformed += s.malformed
			}
			n := float64(b.N)
			b.ReportMetric(float64(sum.malformed)/n, "malformed/shoe")
			b.ReportMetric(float64(sum.wrong)/n, "wrong/shoe")
			b.ReportMetric(float64(sum.lost)/n, "lost/shoe")
			b.ReportMetric(float64(sum.extra)/n, "extra/shoe")
		})
	}
}

// BenchmarkParseLine is the parser's speed on a card line.
func BenchmarkParseLine(b *testing.B) {
	line := []byte(" [Manual Burn Cards]<Card:10H> ")
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if rs := ParseLine(line); len(rs) != 1 || rs[0].Kind != Card {
			b.Fatal(rs)
		}
	}
}

// FuzzAssembler: any bytes, cut anywhere and arriving at any pace, never panic the driver's line
// assembly, and every card that comes out is a canonical frame that was in the input.
func FuzzAssembler(f *testing.F) {
	f.Add([]byte(" [Game]<Card:4S> \r\n [Game]<Ca\nrd:5H> \r\n"), uint8(7), uint8(3))
	f.Add([]byte("\x00[Game]<Card:10H>[Manual Burn Cards]<Card:AC>\r"), uint8(1), uint8(40))
	f.Fuzz(func(t *testing.T, in []byte, cut, gapMs uint8) {
		a := assembler{lineIdle: 250 * time.Millisecond, window: 30 * time.Millisecond}
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		orig := append([]byte(nil), in...)
		check := func(r Read) bool {
			if r.Kind == Card {
				w1 := []byte(FormatCard(r.Mode, r.Card, false))
				w2 := []byte(FormatCard(r.Mode, r.Card, true))
				tr := string(trim(r.Raw))
				if tr != string(trim(w1)) && tr != string(trim(w2)) {
					t.Fatalf("card %v from %q", r.Card, r.Raw)
				}
				if !bytesContains(orig, trim(r.Raw)) {
					t.Fatalf("card frame %q not in the input", r.Raw)
				}
			}
			return true
		}
		k := int(cut)%(len(in)+1) + 1
		for len(in) > 0 {
			n := min(k, len(in))
			a.feed(in[:n], now, check)
			in = in[n:]
			now = now.Add(time.Duration(gapMs) * time.Millisecond)
			a.tick(now, check)
		}
		now = now.Add(time.Second)
		a.tick(now, check)
		a.tick(now.Add(time.Second), check)
		a.cut(check)
	})
}

func bytesContains(b, sub []byte) bool {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return true
		}
	}
	return false
}
