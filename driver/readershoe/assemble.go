package readershoe

import (
	"bytes"
	"fmt"
	"time"
)

// assembler turns the bytes received into reads, in order: it cuts lines at CR and LF, parses
// them, ends a line that lost its CR LF after lineIdle of silence, and joins a damaged line with
// its continuation. Noise can put a stray CR or LF inside a frame and cut one card's line in two;
// two Malformed reads would then stand for one card. A shoe cannot send two cards' lines within
// a few milliseconds (the dealer draws them by hand), so a Malformed line followed within window
// by a damaged piece that does not start a frame is one damaged line: one Malformed read.
type assembler struct {
	lineIdle, window time.Duration

	line     []byte
	overflow bool
	lastByte time.Time
	held     *Read     // the last read of a line, Malformed, waiting for a continuation
	heldAt   time.Time // when the last byte of its line (or of its last continuation) came
	sep      []byte    // the line endings seen since held's bytes
}

// feed takes bytes received at now. It stops and returns false when emit does.
func (a *assembler) feed(b []byte, now time.Time, emit func(Read) bool) bool {
	a.lastByte = now
	for _, c := range b {
		if c == '\r' || c == '\n' {
			if !a.endLine(now, c, emit) {
				return false
			}
			continue
		}
		if len(a.line) < MaxLine {
			a.line = append(a.line, c)
		} else {
			a.overflow = true
		}
	}
	return true
}

// tick is called when the line is quiet: it hands over a held read once its window is over, and
// ends a line that has waited lineIdle for its CR LF.
func (a *assembler) tick(now time.Time, emit func(Read) bool) bool {
	if (len(a.line) > 0 || a.overflow) && now.Sub(a.lastByte) >= a.lineIdle {
		if !a.endLine(now, 0, emit) {
			return false
		}
	}
	if a.held != nil && now.Sub(a.heldAt) > a.window {
		return a.flushHeld(emit)
	}
	return true
}

// cut is called when the link drops: the held read, then what arrived of a line (a card in
// flight), which is raised as Malformed wrapping ErrCutByLink.
func (a *assembler) cut(emit func(Read) bool) bool {
	if !a.flushHeld(emit) {
		return false
	}
	if len(a.line) == 0 && !a.overflow {
		return true
	}
	r := Read{Kind: Malformed, Raw: append([]byte(nil), a.line...), Err: fmt.Errorf("%w: %w", ErrMalformed, ErrCutByLink)}
	a.line, a.overflow = a.line[:0], false
	return emit(r)
}

func (a *assembler) flushHeld(emit func(Read) bool) bool {
	if a.held == nil {
		return true
	}
	r := *a.held
	a.held, a.sep = nil, nil
	return emit(r)
}

// endLine parses the line ended by term (0: ended by silence).
func (a *assembler) endLine(now time.Time, term byte, emit func(Read) bool) bool {
	var rs []Read
	if a.overflow {
		rs = []Read{{Kind: Malformed, Raw: append([]byte(nil), a.line...), Err: fmt.Errorf("%w: longer than %d bytes", ErrMalformed, MaxLine)}}
		a.overflow = false
	} else {
		rs = ParseLine(a.line)
	}
	a.line = a.line[:0]
	if len(rs) == 0 {
		if a.held != nil && term != 0 {
			a.sep = append(a.sep, term) // the LF of a CR LF, or a blank line
		}
		return true
	}
	if a.held != nil && now.Sub(a.heldAt) <= a.window && (rs[0].Kind == Malformed || rs[0].Kind == Noise) && !startsFrame(rs[0].Raw, a.held.Raw) {
		h := a.held
		h.Raw = append(append(h.Raw, a.sep...), rs[0].Raw...)
		h.Err = fmt.Errorf("%w; continued after a stray line ending by %q", h.Err, rs[0].Raw)
		rs = rs[1:]
		a.sep, a.heldAt = nil, a.lastByte
		if len(rs) == 0 {
			if term != 0 {
				a.sep = []byte{term}
			}
			return true
		}
	}
	if !a.flushHeld(emit) {
		return false
	}
	for _, r := range rs[:len(rs)-1] {
		if !emit(r) {
			return false
		}
	}
	last := rs[len(rs)-1]
	if last.Kind != Malformed {
		return emit(last)
	}
	// The window runs from the line's last byte: after an ending by silence (term 0) it is over.
	a.held, a.heldAt, a.sep = &last, a.lastByte, nil
	if term != 0 {
		a.sep = []byte{term}
	}
	return true
}

// startsFrame reports whether the damaged piece cont, which came right after the damaged prev,
// begins a frame of its own: it starts with '[', or with '<' after a piece that ended with '>'.
func startsFrame(cont, prev []byte) bool {
	c := bytes.TrimLeft(cont, " ")
	p := bytes.TrimRight(prev, " ")
	if len(c) == 0 {
		return false
	}
	return c[0] == '[' || c[0] == '<' && len(p) > 0 && p[len(p)-1] == '>'
}
