package shuffler

import (
	"bytes"
	"errors"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

func TestCRC16CheckValue(t *testing.T) {
	// The catalogue check value of CRC-16/CCITT-FALSE.
	if got := CRC16([]byte("123456789")); got != 0x29B1 {
		t.Fatalf("CRC16(123456789) = %#04x, want 0x29b1", got)
	}
}

// vectors are frames with every byte commented (the package documentation shows the same ones).
var vectors = []struct {
	name  string
	frame Frame
	wire  []byte
}{
	{"sync", Frame{Seq: 0, Cmd: CmdSync}, []byte{
		0x02,       // STX
		0x00, 0x02, // LEN = 2 (SEQ, CMD)
		0x00,       // SEQ 0
		0x00,       // CMD SYNC
		0xea, 0xa0, // CRC over 00 02 00 00
		0x03, // ETX
	}},
	{"status", Frame{Seq: 1, Cmd: CmdStatus}, []byte{
		0x02,       // STX
		0x00, 0x02, // LEN = 2
		0x01,       // SEQ 1
		0x01,       // CMD STATUS
		0xc9, 0xb0, // CRC over 00 02 01 01
		0x03, // ETX
	}},
	{"ack", Frame{Seq: 1, Cmd: CmdAck}, []byte{
		0x02,       // STX
		0x00, 0x02, // LEN = 2
		0x01,       // SEQ 1: the frame acknowledged
		0xf0,       // CMD ACK
		0x36, 0x8e, // CRC over 00 02 01 f0
		0x03, // ETX
	}},
	{"nak", Frame{Seq: 3, Cmd: CmdNak, Payload: []byte{1}}, []byte{
		0x02,       // STX
		0x00, 0x03, // LEN = 3
		0x03,       // SEQ 3: the frame refused
		0xf1,       // CMD NAK
		0x01,       // reason 1: bad CRC
		0xe3, 0x51, // CRC
		0x03, // ETX
	}},
	{"shuffle 8 decks", Frame{Seq: 5, Cmd: CmdShuffle, Payload: []byte{8, 0, 0, 0, 0}}, []byte{
		0x02,       // STX
		0x00, 0x07, // LEN = 7
		0x05,       // SEQ 5
		0x04,       // CMD SHUFFLE
		0x08,       // 8 decks
		0x00,       // batch
		0x00,       // hands
		0x00,       // cards per hand
		0x00,       // flags: no order report
		0xa2, 0x41, // CRC
		0x03, // ETX
	}},
	{"shuffle reply", Frame{Seq: 9, Cmd: CmdShuffle | ReplyBit, Payload: []byte{5, 0x01, 0xa0}}, []byte{
		0x02,       // STX
		0x00, 0x05, // LEN = 5
		0x09,       // SEQ 9 (the device's)
		0x84,       // CMD SHUFFLE reply
		0x05,       // answers host SEQ 5
		0x01, 0xa0, // 416 cards
		0x60, 0x51, // CRC
		0x03, // ETX
	}},
	{"jam event", Frame{Seq: 7, Cmd: EvJam, Payload: []byte{0x00, 0x11}}, []byte{
		0x02,       // STX
		0x00, 0x04, // LEN = 4
		0x07,       // SEQ 7
		0x41,       // EV_JAM
		0x00, 0x11, // after 17 cards
		0xfe, 0xb6, // CRC
		0x03, // ETX
	}},
}

func TestFrameVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			got, err := AppendFrame(nil, v.frame)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, v.wire) {
				t.Fatalf("encode = % x\nwant     % x", got, v.wire)
			}
			f, n, err := Decode(v.wire)
			if err != nil || n != len(v.wire) {
				t.Fatalf("decode: n=%d err=%v", n, err)
			}
			if f.Seq != v.frame.Seq || f.Cmd != v.frame.Cmd || !bytes.Equal(f.Payload, v.frame.Payload) {
				t.Fatalf("decode = %+v, want %+v", f, v.frame)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	good := vectors[1].wire // status, seq 1
	flip := func(i int) []byte { b := append([]byte(nil), good...); b[i] ^= 0x01; return b }
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"no start", []byte{0x55, 0x02}, ErrNoStart},
		{"only STX", []byte{0x02}, ErrShort},
		{"short header", []byte{0x02, 0x00}, ErrShort},
		{"length 1", []byte{0x02, 0x00, 0x01, 0x01, 0x01}, ErrLength},
		{"length 1027", []byte{0x02, 0x04, 0x03, 0x01}, ErrLength},
		{"incomplete", good[:len(good)-1], ErrShort},
		{"seq flipped", flip(3), ErrCRC},
		{"cmd flipped", flip(4), ErrCRC},
		{"crc flipped", flip(5), ErrCRC},
		{"etx wrong", flip(7), ErrEnd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, n, err := Decode(tt.in)
			if !errors.Is(err, tt.want) || n != 0 {
				t.Fatalf("Decode(% x) = n %d, %v; want %v", tt.in, n, err, tt.want)
			}
		})
	}
}

func TestPayloadTooLong(t *testing.T) {
	if _, err := AppendFrame(nil, Frame{Payload: make([]byte, MaxPayload+1)}); !errors.Is(err, ErrPayloadTooLong) {
		t.Fatalf("err = %v", err)
	}
	b, err := AppendFrame(nil, Frame{Payload: make([]byte, MaxPayload)})
	if err != nil || len(b) != maxFrame {
		t.Fatalf("len %d err %v", len(b), err)
	}
}

// TestScannerResync: garbage, a damaged frame and a stray STX are sorted out, and every good frame
// comes through once. Bytes arrive one at a time; between bursts the line is quiet, and the reader
// calls Stale on whatever is pending, as readLoop does.
func TestScannerResync(t *testing.T) {
	status, ack := vectors[1].wire, vectors[2].wire
	damaged := append([]byte(nil), status...)
	damaged[5] ^= 0xff // its tail 00 02 01 01 … holds an STX claiming 257 bytes
	bursts := [][]byte{
		append(append([]byte{0x55, 0xaa}, status...), damaged...), // garbage, good, bad CRC
		{0x02, 0x7f}, // a stray STX whose length is completed by the next burst's STX: 0x7f02, too long
		ack,
		vectors[4].wire,
	}
	var sc Scanner
	var frames []Cmd
	var skipped, damagedN, stale int
	drain := func() {
		for {
			it, ok := sc.Next()
			if !ok {
				return
			}
			switch {
			case it.Skipped > 0:
				skipped += it.Skipped
			case it.Err != nil:
				damagedN++
			default:
				frames = append(frames, it.Frame.Cmd)
			}
		}
	}
	for bi, b := range bursts {
		for i := range b {
			sc.Write(b[i : i+1])
			drain()
		}
		if bi == 1 {
			continue // the stray STX and the ACK arrive back to back
		}
		for sc.Pending() > 0 {
			stale++
			sc.Stale()
			drain()
		}
	}
	want := []Cmd{CmdStatus, CmdAck, CmdShuffle}
	if len(frames) != len(want) {
		t.Fatalf("frames %v, want %v (skipped %d, damaged %d)", frames, want, skipped, damagedN)
	}
	for i := range want {
		if frames[i] != want[i] {
			t.Fatalf("frames %v, want %v", frames, want)
		}
	}
	// The bad CRC and the bad length of the stray STX; the 257-byte claim is given up as stale.
	if damagedN != 2 || stale != 1 {
		t.Errorf("damaged = %d, stale = %d; want 2 and 1", damagedN, stale)
	}
}

func TestScannerStale(t *testing.T) {
	var sc Scanner
	sc.Write([]byte{0x02, 0x03, 0xff}) // claims 1023 bytes that will never come
	if _, ok := sc.Next(); ok {
		t.Fatal("an incomplete frame came out")
	}
	if n := sc.Stale(); n != 3 {
		t.Fatalf("Stale = %d, want 3", n)
	}
	sc.Write(vectors[1].wire)
	var got []Cmd
	for {
		it, ok := sc.Next()
		if !ok {
			break
		}
		if it.Skipped == 0 && it.Err == nil {
			got = append(got, it.Frame.Cmd)
		}
	}
	if len(got) != 1 || got[0] != CmdStatus {
		t.Fatalf("after Stale: %v", got)
	}
}

func TestProgram(t *testing.T) {
	tests := []struct {
		p    Program
		wire []byte
		ok   bool
	}{
		{Program{Decks: 8}, []byte{8, 0, 0, 0, 0}, true},
		{Program{Decks: 1, Mode: DeckPerRound, ReportOrder: true}, []byte{1, 1, 0, 0, 1}, true},
		{Program{Decks: 1, Mode: HandForming, Hands: 7, CardsPerHand: 7}, []byte{1, 2, 7, 7, 0}, true},
		{Program{Decks: 0}, nil, false},
		{Program{Decks: 9}, nil, false},
		{Program{Decks: 2, Mode: DeckPerRound}, nil, false},
		{Program{Decks: 1, Mode: HandForming, Hands: 11, CardsPerHand: 5}, nil, false}, // 55 > 52
		{Program{Decks: 6, Hands: 2}, nil, false},
		{Program{Decks: 1, Mode: 3}, nil, false},
	}
	for _, tt := range tests {
		b, err := tt.p.MarshalBinary()
		if (err == nil) != tt.ok {
			t.Errorf("%+v: err %v", tt.p, err)
			continue
		}
		if !tt.ok {
			if !errors.Is(err, ErrProgram) {
				t.Errorf("%+v: %v does not wrap ErrProgram", tt.p, err)
			}
			continue
		}
		if !bytes.Equal(b, tt.wire) {
			t.Errorf("%+v: % x, want % x", tt.p, b, tt.wire)
		}
		var q Program
		if err := q.UnmarshalBinary(b); err != nil || q != tt.p {
			t.Errorf("round trip %+v → %+v, %v", tt.p, q, err)
		}
	}
	var q Program
	if err := q.UnmarshalBinary([]byte{8, 0, 0, 0, 2}); !errors.Is(err, ErrProgram) {
		t.Errorf("unknown flag accepted: %v", err)
	}
}

func TestReport(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want Report
		err  bool
	}{
		{"count only", []byte{0x01, 0xa0}, Report{Cards: 416}, false},
		{"order", []byte{0x00, 0x02, 0x01, 0x34}, Report{Cards: 2, Order: []card.Card{card.MustParse("As"), card.MustParse("Kc")}}, false},
		{"short order", []byte{0x00, 0x03, 0x01, 0x34}, Report{}, true},
		{"unreadable in order", []byte{0x00, 0x02, 0x01, 0x00}, Report{}, true},
		{"card byte 53", []byte{0x00, 0x01, 0x35}, Report{}, true},
		{"too short", []byte{0x00}, Report{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReport(tt.in)
			if (err != nil) != tt.err {
				t.Fatalf("err %v", err)
			}
			if got.Cards != tt.want.Cards || len(got.Order) != len(tt.want.Order) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got.Order {
				if got.Order[i] != tt.want.Order[i] {
					t.Fatalf("order[%d] = %v, want %v", i, got.Order[i], tt.want.Order[i])
				}
			}
		})
	}
}

func TestStatusRoundTrip(t *testing.T) {
	s := Status{State: Fault, DoorOpen: true, Jammed: true, InputCards: 416, OutputCards: 3, Fault: CodeJam,
		Shuffles: 70000, Serial: "SIM-0001", Firmware: "sabot-sim 1"}
	b := AppendStatus(nil, s)
	want := []byte{
		2,          // state fault
		3,          // flags: door open, jammed
		0x01, 0xa0, // 416 in the input tray
		0x00, 0x03, // 3 in the output tray
		3,                      // fault: jam
		0x00, 0x01, 0x11, 0x70, // 70000 shuffles
		8, 'S', 'I', 'M', '-', '0', '0', '0', '1',
		11, 's', 'a', 'b', 'o', 't', '-', 's', 'i', 'm', ' ', '1',
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("% x\nwant % x", b, want)
	}
	got, err := ParseStatus(b)
	if err != nil || got != s {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := ParseStatus(b[:len(b)-1]); !errors.Is(err, ErrPayload) {
		t.Fatalf("short status: %v", err)
	}
	if _, err := ParseStatus(append(b, 0)); !errors.Is(err, ErrPayload) {
		t.Fatalf("long status: %v", err)
	}
}

func TestCountsRoundTrip(t *testing.T) {
	c := card.Decks(8)
	c.Remove(card.MustParse("As"))
	b := AppendCounts(nil, c, 2)
	if len(b) != 106 || b[0] != 0 || b[1] != 7 || b[104] != 0 || b[105] != 2 {
		t.Fatalf("encoding % x", b[:4])
	}
	got, bad, err := ParseCounts(b)
	if err != nil || got != c || bad != 2 {
		t.Fatalf("got %v %d %v", card.DescribeDiff(card.Diff(c, got)), bad, err)
	}
	if _, _, err := ParseCounts(b[:105]); !errors.Is(err, ErrPayload) {
		t.Fatalf("short: %v", err)
	}
}

func TestDeviceErrorIs(t *testing.T) {
	e, err := ParseError([]byte{byte(CmdShuffle), byte(CodeJam), 'a', 0x07})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(e, ErrJam) || errors.Is(e, ErrDoorOpen) {
		t.Fatalf("Is: %v", e)
	}
	if e.Error() != "shuffler: SHUFFLE failed: jam: a?" {
		t.Fatalf("Error() = %q", e.Error())
	}
}

// FuzzDecode: Decode never panics, never reads past its input, and what it accepts re-encodes to
// the same bytes.
func FuzzDecode(f *testing.F) {
	for _, v := range vectors {
		f.Add(v.wire)
	}
	f.Add([]byte{0x02, 0x04, 0x02})
	f.Add([]byte{0x02, 0x00, 0x02, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, n, err := Decode(b)
		if err != nil {
			if n != 0 {
				t.Fatalf("error with n = %d", n)
			}
			return
		}
		if n < minFrame || n > len(b) || n > maxFrame {
			t.Fatalf("n = %d of %d", n, len(b))
		}
		re, err := AppendFrame(nil, fr)
		if err != nil || !bytes.Equal(re, b[:n]) {
			t.Fatalf("re-encode % x, want % x (%v)", re, b[:n], err)
		}
		// The payload decoders must not panic on anything either.
		ParseStatus(fr.Payload)
		ParseCounts(fr.Payload)
		ParseReport(fr.Payload)
		ParseError(fr.Payload)
		ParseEvent(fr)
		var p Program
		p.UnmarshalBinary(fr.Payload)
	})
}

// FuzzScanner: on any byte stream, cut anywhere, the scanner never panics, every frame it yields
// is a valid frame that was in the input, and every byte is accounted for (a frame, skipped, or the
// one STX dropped with a damaged frame).
func FuzzScanner(f *testing.F) {
	f.Add(append(append([]byte{0x55}, vectors[1].wire...), vectors[4].wire...), uint8(3))
	f.Add(append([]byte{0x02, 0x01, 0x01}, vectors[1].wire...), uint8(5))
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		var sc Scanner
		k := int(cut) % (len(b) + 1)
		used := 0
		collect := func() {
			for {
				it, ok := sc.Next()
				if !ok {
					return
				}
				switch {
				case it.Skipped > 0:
					used += it.Skipped
				case it.Err != nil:
					used++
				default:
					w, err := AppendFrame(nil, it.Frame)
					if err != nil || !bytes.Contains(b, w) {
						t.Fatalf("frame % x was not in the input", w)
					}
					used += len(w)
				}
			}
		}
		sc.Write(b[:k])
		collect()
		sc.Write(b[k:])
		collect()
		for sc.Pending() > 0 {
			sc.Stale()
			used++
			collect()
		}
		if used != len(b) {
			t.Fatalf("accounted for %d bytes of %d", used, len(b))
		}
	})
}
