package journal

import (
	"encoding/binary"
	"fmt"
)

// WALScan is what a journal's SQLite write-ahead log (T1.db-wal) holds, read as SQLite reads it
// (sqlite.org/fileformat2.html §4): a 32-byte header, then frames of a 24-byte header and one
// page, each checksummed over everything before it. SQLite reads the frames up to the last
// commit before the first frame whose salts or checksum fail, and silently drops the rest,
// which the next checkpoint then overwrites. A log cut short looks like a log whose last
// transactions were never written, so a truncation is caught only by the high-water mark; a
// flipped byte in the middle leaves intact frames after the broken one, which WALScan finds.
type WALScan struct {
	Size     int64
	PageSize int
	Frames   int   // whole frames in the file
	Partial  int64 // bytes of a last frame cut short
	Read     int   // frames SQLite reads (up to its last readable commit)
	Broken   int   // the first frame (from 1) whose salts or checksum fail among the frames of the log's current generation; 0: none
	// Lost is the number of frames after Broken that are intact and of the log's current
	// generation, past a commit: transactions that were committed (a transaction is written
	// only after the one before it committed) and that SQLite will not read.
	Lost      int
	BadHeader string // why the header cannot be read ("" when it can)
}

// Damaged reports whether the log holds committed transactions that SQLite will not read.
func (w WALScan) Damaged() bool { return w.Lost > 0 || w.BadHeader != "" }

func (w WALScan) String() string {
	switch {
	case w.Size == 0:
		return "empty"
	case w.Size < walHeader:
		return fmt.Sprintf("%d bytes, shorter than its header: SQLite reads none of it", w.Size)
	case w.BadHeader != "":
		return fmt.Sprintf("%d bytes with an unreadable header (%s): SQLite reads none of it", w.Size, w.BadHeader)
	case w.Lost > 0:
		return fmt.Sprintf("%d bytes, %d frames: frame %d fails its checksum, yet %d frames of committed transactions after it are intact; SQLite reads only the first %d", w.Size, w.Frames, w.Broken, w.Lost, w.Read)
	}
	s := fmt.Sprintf("%d bytes, %d frames, of which SQLite reads %d", w.Size, w.Frames, w.Read)
	if w.Partial > 0 {
		s += fmt.Sprintf(", and a frame cut short (%d bytes)", w.Partial)
	}
	return s
}

const (
	walHeader      = 32
	walFrameHeader = 24
)

// walChecksum is SQLite's WAL checksum: two 32-bit sums over pairs of words, in the byte order
// the log's magic number gives.
func walChecksum(big bool, b []byte, s0, s1 uint32) (uint32, uint32) {
	order := binary.ByteOrder(binary.LittleEndian)
	if big {
		order = binary.BigEndian
	}
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}

// ScanWAL reads a write-ahead log's bytes.
func ScanWAL(b []byte) WALScan {
	w := WALScan{Size: int64(len(b))}
	if len(b) == 0 {
		return w
	}
	if len(b) < walHeader {
		w.Partial = int64(len(b)) // a header torn as the log restarted: nothing in it yet
		return w
	}
	be := binary.BigEndian
	magic := be.Uint32(b)
	if magic&^1 != 0x377f0682 {
		w.BadHeader = fmt.Sprintf("magic %#08x", magic)
		return w
	}
	big := magic&1 == 1
	if v := be.Uint32(b[4:]); v != 3007000 {
		w.BadHeader = fmt.Sprintf("version %d", v)
		return w
	}
	ps := be.Uint32(b[8:])
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		w.BadHeader = fmt.Sprintf("page size %d", ps)
		return w
	}
	w.PageSize = int(ps)
	fs := walFrameHeader + w.PageSize
	w.Frames = (len(b) - walHeader) / fs
	w.Partial = int64((len(b) - walHeader) % fs)
	salt := b[16:24]
	s0, s1 := walChecksum(big, b[:24], 0, 0)
	headerOK := s0 == be.Uint32(b[24:]) && s1 == be.Uint32(b[28:])
	if !headerOK {
		w.BadHeader = "checksum mismatch"
	}
	frame := func(i int) []byte { return b[walHeader+i*fs : walHeader+(i+1)*fs] }
	// intact reports whether frame i belongs to the current generation and its checksum
	// follows from the checksum stored before it.
	intact := func(i int) bool {
		f := frame(i)
		if string(f[8:16]) != string(salt) {
			return false
		}
		var p0, p1 uint32
		if i == 0 {
			p0, p1 = be.Uint32(b[24:]), be.Uint32(b[28:])
		} else {
			p := frame(i - 1)
			p0, p1 = be.Uint32(p[16:]), be.Uint32(p[20:])
		}
		c0, c1 := walChecksum(big, f[:8], p0, p1)
		c0, c1 = walChecksum(big, f[walFrameHeader:], c0, c1)
		return c0 == be.Uint32(f[16:]) && c1 == be.Uint32(f[20:])
	}
	commit := func(i int) bool { f := frame(i); return string(f[8:16]) == string(salt) && be.Uint32(f[4:]) != 0 }
	// The prefix SQLite reads: frames whose checksums run on from the header's.
	i := 0
	if headerOK {
		for ; i < w.Frames && intact(i); i++ {
			if commit(i) {
				w.Read = i + 1
			}
		}
		if i == w.Frames {
			return w // every frame reads; any after the last commit belong to a transaction never committed
		}
		w.Broken = i + 1
	}
	// After the break: intact frames of this generation past a commit frame were written after
	// that commit returned.
	committed := false
	for k := i; k < w.Frames; k++ {
		if committed && intact(k) {
			w.Lost++
		}
		if commit(k) {
			committed = true
		}
	}
	if !headerOK && w.Lost == 0 && w.Frames > 0 && intact(0) {
		w.Lost = 1 // one intact frame after an unreadable header: the log held something
	}
	if !headerOK && w.Lost == 0 {
		w.BadHeader = "" // a header torn while the log restarted, before any frame of it
	}
	return w
}
