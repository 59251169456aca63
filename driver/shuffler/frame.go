package shuffler

import (
	"errors"
	"fmt"
)

// Frame delimiters and limits (see the package documentation for the layout).
const (
	STX        = 0x02 // start of frame
	ETX        = 0x03 // end of frame
	MaxPayload = 1024 // bytes; an 8-deck order report (416 cards) plus headers fits
	headerLen  = 5    // STX, LEN (2), SEQ, CMD
	trailerLen = 3    // CRC (2), ETX
	minFrame   = headerLen + trailerLen
	maxFrame   = minFrame + MaxPayload
)

// Frame is one protocol frame: a sequence number, a command or response code and its payload.
type Frame struct {
	Seq     uint8
	Cmd     Cmd
	Payload []byte
}

// String shows a frame for logs: "seq=5 STATUS 0 bytes". Payloads are not shown: a shuffle
// report carries the order of the cards, which is a secret (RULES.md §1 "Shuffle").
func (f Frame) String() string {
	return fmt.Sprintf("seq=%d %s %d bytes", f.Seq, f.Cmd, len(f.Payload))
}

// CRC16 is CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final
// XOR. Its check value (over the ASCII bytes "123456789") is 0x29B1.
func CRC16(b []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, x := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^x]
	}
	return crc
}

// crcTable[i] is the CRC register after shifting the byte i through it, one bit at a time.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// ErrPayloadTooLong is returned when encoding a frame whose payload exceeds MaxPayload.
var ErrPayloadTooLong = errors.New("shuffler: payload longer than 1024 bytes")

// AppendFrame appends the encoded frame to b.
func AppendFrame(b []byte, f Frame) ([]byte, error) {
	if len(f.Payload) > MaxPayload {
		return b, fmt.Errorf("%w (%d)", ErrPayloadTooLong, len(f.Payload))
	}
	n := 2 + len(f.Payload)
	start := len(b)
	b = append(b, STX, byte(n>>8), byte(n), f.Seq, byte(f.Cmd))
	b = append(b, f.Payload...)
	crc := CRC16(b[start+1:])
	return append(b, byte(crc>>8), byte(crc), ETX), nil
}

// Decode errors. Callers branch on them with errors.Is.
var (
	// ErrShort: b holds the beginning of a frame; more bytes are needed.
	ErrShort = errors.New("shuffler: incomplete frame")
	// ErrNoStart: b does not begin with STX; skip a byte and try again.
	ErrNoStart = errors.New("shuffler: no start byte")
	// ErrLength: the length field is outside 2…1026.
	ErrLength = errors.New("shuffler: bad length")
	// ErrCRC: the CRC does not match the frame's bytes.
	ErrCRC = errors.New("shuffler: bad CRC")
	// ErrEnd: the byte where ETX belongs is something else.
	ErrEnd = errors.New("shuffler: no end byte")
	// ErrCut: an incomplete frame was abandoned because a complete, valid frame follows it: its
	// length was damaged, or its tail was lost.
	ErrCut = errors.New("shuffler: frame cut short by the next one")
)

// DecodeError is a frame that failed to decode, with the sequence number as read (for a NAK;
// it may itself be corrupt).
type DecodeError struct {
	Err error
	Seq uint8
}

func (e *DecodeError) Error() string { return fmt.Sprintf("%v (seq %d as read)", e.Err, e.Seq) }
func (e *DecodeError) Unwrap() error { return e.Err }

// Decode reads the frame at the start of b. It returns the frame and the number of bytes it used,
// or an error: ErrShort when b is an incomplete frame (n is 0), or a *DecodeError wrapping
// ErrNoStart, ErrLength, ErrCRC or ErrEnd, after which the caller drops one byte and scans for
// the next STX (the payload is not byte-stuffed, so a frame can start inside a damaged one).
// The payload aliases b.
func Decode(b []byte) (f Frame, n int, err error) {
	if len(b) == 0 {
		return Frame{}, 0, ErrShort
	}
	if b[0] != STX {
		return Frame{}, 0, &DecodeError{Err: ErrNoStart}
	}
	if len(b) < 3 {
		return Frame{}, 0, ErrShort
	}
	ln := int(b[1])<<8 | int(b[2])
	if ln < 2 || ln > 2+MaxPayload {
		return Frame{}, 0, &DecodeError{Err: fmt.Errorf("%w %d", ErrLength, ln)}
	}
	total := 1 + 2 + ln + trailerLen
	if len(b) < total {
		return Frame{}, 0, ErrShort
	}
	seq := b[3]
	crc := uint16(b[total-3])<<8 | uint16(b[total-2])
	if got := CRC16(b[1 : total-3]); got != crc {
		return Frame{}, 0, &DecodeError{Err: fmt.Errorf("%w: %04x, computed %04x", ErrCRC, crc, got), Seq: seq}
	}
	if b[total-1] != ETX {
		return Frame{}, 0, &DecodeError{Err: fmt.Errorf("%w: %#02x", ErrEnd, b[total-1]), Seq: seq}
	}
	return Frame{Seq: seq, Cmd: Cmd(b[4]), Payload: b[headerLen : total-trailerLen]}, total, nil
}

// Scanner splits a byte stream into frames, resynchronising after garbage and damaged frames.
type Scanner struct {
	buf []byte
}

// Item is what a Scanner found: a frame, or bytes it had to throw away.
type Item struct {
	Frame   Frame        // valid when Err is nil and Skipped is 0
	Err     *DecodeError // a damaged frame (its STX is dropped and scanning goes on)
	Skipped int          // bytes of garbage before the next STX
}

// Write appends bytes received from the line.
func (s *Scanner) Write(p []byte) {
	s.buf = append(s.buf, p...)
}

// Next returns the next item, or false when more bytes are needed. A Frame's payload is a copy.
func (s *Scanner) Next() (Item, bool) {
	if len(s.buf) == 0 {
		return Item{}, false
	}
	if s.buf[0] != STX {
		i := 1
		for i < len(s.buf) && s.buf[i] != STX {
			i++
		}
		s.drop(i)
		return Item{Skipped: i}, true
	}
	f, n, err := Decode(s.buf)
	if errors.Is(err, ErrShort) {
		// A damaged length can claim up to 1026 bytes: on a busy line the scanner would swallow
		// every frame until that many arrived. If a complete, valid frame starts later in the
		// buffer, this candidate is not a frame (or lost its tail): give it up.
		for j := 1; j < len(s.buf); j++ {
			if s.buf[j] != STX {
				continue
			}
			if _, _, err := Decode(s.buf[j:]); err == nil {
				var seq uint8
				if len(s.buf) > 3 {
					seq = s.buf[3]
				}
				s.drop(1)
				return Item{Err: &DecodeError{Err: ErrCut, Seq: seq}}, true
			}
		}
		return Item{}, false
	}
	if err != nil {
		var de *DecodeError
		errors.As(err, &de)
		s.drop(1)
		return Item{Err: de}, true
	}
	f.Payload = append([]byte(nil), f.Payload...)
	s.drop(n)
	return Item{Frame: f}, true
}

// Pending reports how many bytes wait for the rest of a frame.
func (s *Scanner) Pending() int { return len(s.buf) }

// Stale is called when the line has been idle with bytes pending: a length field damaged into a
// large value would otherwise make the scanner wait for bytes that never come. It drops the
// pending STX so that scanning resumes at the next one, and reports how many bytes were pending.
func (s *Scanner) Stale() int {
	n := len(s.buf)
	if n > 0 {
		s.drop(1)
	}
	return n
}

func (s *Scanner) drop(n int) {
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
}
