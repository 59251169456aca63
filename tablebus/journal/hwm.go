package journal

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/sabot-tables/sabot/tablebus"
)

// Mark is a high-water mark: how far the table's feed may have reached the outside. Every
// event the daemon publishes carries a sequence number at most Seq, and every session it has
// announced is at most Session. A journal that ends before the mark has lost events that
// consumers may hold, and a daemon started on it would publish other events under their
// numbers.
type Mark struct {
	Table   string
	Session uint64
	Seq     uint64
	Shoe    string // the last shoe journaled by event Seq ("" before the first)
	Round   uint64 // the highest round number journaled by event Seq
	// The hashes of event Seq's payloads on each feed (zero for Seq 0): a journal that holds an
	// event Seq with other payloads is not the journal that published.
	Secure, Public tablebus.Hash
}

// ahead reports whether m is ahead of n anywhere (a later event, or a later session).
func (m Mark) ahead(n Mark) bool { return m.Seq > n.Seq || m.Session > n.Session }

// HighWater is the high-water mark kept in a small file of its own beside the journal (T1.hwm
// beside T1.db), apart from the journal's SQLite files, so that a journal whose write-ahead log
// was lost, cut short or damaged, or an old copy of the journal, is caught at start: SQLite
// itself reads such a journal as a shorter one without a word.
//
// The file is two slots of 512 bytes, one text line each, with a CRC-32C. An advance writes
// the slot that does not hold the current mark, in place, and syncs its data (fdatasync): one
// write and one sync, no rename, no directory sync. A write torn by a power cut fails its CRC,
// and the other slot still holds the mark before it, which covered everything published
// before the advance began. Only the file's creation renames (written to a temporary file,
// synced, renamed, the directory synced).
type HighWater struct {
	mu   sync.Mutex
	f    *os.File
	path string
	gen  uint64
	m    Mark
}

const (
	hwmSlot  = 512
	hwmMagic = "sabot-hwm 1"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// HighWaterPath returns the high-water mark's file for a journal: its name with .hwm for its
// extension (var/T1.db: var/T1.hwm), a name that a copy of T1.db* does not take along.
func HighWaterPath(journal string) string {
	ext := filepath.Ext(journal)
	if ext == ".hwm" {
		return journal + ".hwm"
	}
	return strings.TrimSuffix(journal, ext) + ".hwm"
}

// encodeSlot returns one slot: the mark as a line of text, its CRC-32C, spaces to 511 bytes
// and a newline.
func encodeSlot(m Mark, gen uint64) ([]byte, error) {
	if err := tablebus.ValidTable(m.Table); err != nil {
		return nil, fmt.Errorf("journal: high-water mark: %w", err)
	}
	if !plainField(m.Shoe) {
		return nil, fmt.Errorf("journal: high-water mark: shoe id %q", m.Shoe)
	}
	body := fmt.Sprintf("%s table=%s session=%d seq=%d shoe=%s round=%d secure=%x public=%x gen=%d",
		hwmMagic, m.Table, m.Session, m.Seq, m.Shoe, m.Round, m.Secure[:], m.Public[:], gen)
	line := fmt.Sprintf("%s crc32c=%08x", body, crc32.Checksum([]byte(body), castagnoli))
	if len(line) > hwmSlot-1 {
		return nil, fmt.Errorf("journal: high-water mark of %d bytes", len(line))
	}
	b := bytes.Repeat([]byte{' '}, hwmSlot)
	copy(b, line)
	b[hwmSlot-1] = '\n'
	return b, nil
}

// plainField reports whether s can stand in a slot: at most 64 of A–Z a–z 0–9 . _ -.
func plainField(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// errEmptySlot is a slot never written (spaces only).
var errEmptySlot = errors.New("empty slot")

// decodeSlot reads one slot strictly.
func decodeSlot(b []byte) (Mark, uint64, error) {
	if len(b) != hwmSlot || b[hwmSlot-1] != '\n' {
		return Mark{}, 0, errors.New("not a line of 512 bytes")
	}
	line := strings.TrimRight(string(b[:hwmSlot-1]), " ")
	if line == "" {
		return Mark{}, 0, errEmptySlot
	}
	i := strings.LastIndex(line, " crc32c=")
	if i < 0 || len(line) != i+len(" crc32c=")+8 {
		return Mark{}, 0, errors.New("no checksum")
	}
	body := line[:i]
	want, err := strconv.ParseUint(line[i+len(" crc32c="):], 16, 32)
	if err != nil || uint32(want) != crc32.Checksum([]byte(body), castagnoli) {
		return Mark{}, 0, errors.New("checksum mismatch (a torn or damaged write)")
	}
	rest, ok := strings.CutPrefix(body, hwmMagic+" ")
	if !ok {
		return Mark{}, 0, errors.New("not a sabot high-water mark of version 1")
	}
	fields := strings.Split(rest, " ")
	names := []string{"table", "session", "seq", "shoe", "round", "secure", "public", "gen"}
	if len(fields) != len(names) {
		return Mark{}, 0, fmt.Errorf("%d fields, want %d", len(fields), len(names))
	}
	val := map[string]string{}
	for k, f := range fields {
		v, ok := strings.CutPrefix(f, names[k]+"=")
		if !ok {
			return Mark{}, 0, fmt.Errorf("field %d is %q, want %s=", k+1, f, names[k])
		}
		val[names[k]] = v
	}
	var m Mark
	var gen uint64
	m.Table, m.Shoe = val["table"], val["shoe"]
	if err := tablebus.ValidTable(m.Table); err != nil {
		return Mark{}, 0, err
	}
	if !plainField(m.Shoe) {
		return Mark{}, 0, fmt.Errorf("shoe id %q", m.Shoe)
	}
	for _, n := range []struct {
		name string
		p    *uint64
	}{{"session", &m.Session}, {"seq", &m.Seq}, {"round", &m.Round}, {"gen", &gen}} {
		v, err := strconv.ParseUint(val[n.name], 10, 64)
		if err != nil || strconv.FormatUint(v, 10) != val[n.name] {
			return Mark{}, 0, fmt.Errorf("%s %q", n.name, val[n.name])
		}
		*n.p = v
	}
	for _, h := range []struct {
		name string
		p    *tablebus.Hash
	}{{"secure", &m.Secure}, {"public", &m.Public}} {
		v := val[h.name]
		if len(v) != 64 || strings.ToLower(v) != v {
			return Mark{}, 0, fmt.Errorf("%s hash %q", h.name, v)
		}
		if _, err := hex.Decode(h.p[:], []byte(v)); err != nil {
			return Mark{}, 0, fmt.Errorf("%s hash %q", h.name, v)
		}
	}
	return m, gen, nil
}

// decodeHighWater reads a whole high-water mark file: the valid slot of the latest generation.
func decodeHighWater(b []byte) (Mark, uint64, error) {
	if len(b) != 2*hwmSlot {
		return Mark{}, 0, fmt.Errorf("%d bytes, want %d", len(b), 2*hwmSlot)
	}
	var best Mark
	var bestGen uint64
	found := false
	var probs []string
	for s := range 2 {
		m, gen, err := decodeSlot(b[s*hwmSlot : (s+1)*hwmSlot])
		switch {
		case err == nil && found && m.Table != best.Table:
			return Mark{}, 0, fmt.Errorf("its slots name tables %s and %s", best.Table, m.Table)
		case err == nil && (!found || gen > bestGen):
			best, bestGen, found = m, gen, true
		case err == nil:
		case errors.Is(err, errEmptySlot):
			probs = append(probs, fmt.Sprintf("slot %d empty", s+1))
		default:
			probs = append(probs, fmt.Sprintf("slot %d: %v", s+1, err))
		}
	}
	if !found {
		return Mark{}, 0, errors.New(strings.Join(probs, "; "))
	}
	return best, bestGen, nil
}

// ReadHighWater reads the high-water mark at path without changing it; ok is false when there
// is no such file.
func ReadHighWater(path string) (m Mark, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Mark{}, false, nil
	}
	if err != nil {
		return Mark{}, false, fmt.Errorf("journal: high-water mark: %w", err)
	}
	m, _, err = decodeHighWater(b)
	if err != nil {
		return Mark{}, true, fmt.Errorf("journal: the high-water mark %s is damaged: %v", path, err)
	}
	return m, true, nil
}

// OpenHighWater opens the high-water mark at path to advance it, creating it holding m if
// there is none. An existing mark must be of m's table; it is returned as it is (Advance moves
// it on).
func OpenHighWater(path string, m Mark) (*HighWater, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		if err := createHighWater(path, m); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(path, os.O_RDWR, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: high-water mark: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 2*hwmSlot+1))
	if err == nil {
		var cur Mark
		var gen uint64
		if cur, gen, err = decodeHighWater(b); err == nil {
			if cur.Table != m.Table {
				f.Close()
				return nil, fmt.Errorf("%w: the high-water mark %s is table %s's", ErrOtherTable, path, cur.Table)
			}
			return &HighWater{f: f, path: path, gen: gen, m: cur}, nil
		}
		err = fmt.Errorf("the high-water mark %s is damaged: %v", path, err)
	}
	f.Close()
	return nil, fmt.Errorf("journal: %w", err)
}

// createHighWater writes a new mark file durably: a temporary file, synced, renamed, and the
// directory synced, so that the file exists whole or not at all.
func createHighWater(path string, m Mark) error {
	slot, err := encodeSlot(m, 1)
	if err != nil {
		return err
	}
	b := append(slot, bytes.Repeat([]byte{' '}, hwmSlot)...)
	b[2*hwmSlot-1] = '\n'
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return fmt.Errorf("journal: high-water mark: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: creating the high-water mark: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Path returns the mark's file.
func (h *HighWater) Path() string { return h.path }

// Mark returns the mark as it is on disk.
func (h *HighWater) Mark() Mark {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m
}

// Advance moves the mark on to m, durably: when it returns, m is on disk. The mark never goes
// back: a seq or session below the current one is an error, and the same mark is not written
// again.
func (h *HighWater) Advance(m Mark) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == nil {
		return fmt.Errorf("journal: high-water mark %s is closed", h.path)
	}
	if m.Table != h.m.Table {
		return fmt.Errorf("%w: advancing table %s's high-water mark with table %s's", ErrOtherTable, h.m.Table, m.Table)
	}
	if h.m.ahead(m) {
		return fmt.Errorf("journal: the high-water mark %s cannot go back from event #%d (session %d) to #%d (session %d)", h.path, h.m.Seq, h.m.Session, m.Seq, m.Session)
	}
	if m == h.m {
		return nil
	}
	gen := h.gen + 1
	b, err := encodeSlot(m, gen)
	if err != nil {
		return err
	}
	if _, err := h.f.WriteAt(b, int64(gen%2)*hwmSlot); err != nil {
		return fmt.Errorf("journal: advancing the high-water mark: %w", err)
	}
	if err := datasync(h.f); err != nil {
		return fmt.Errorf("journal: syncing the high-water mark: %w", err)
	}
	h.gen, h.m = gen, m
	return nil
}

// Close closes the mark's file.
func (h *HighWater) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == nil {
		return nil
	}
	err := h.f.Close()
	h.f = nil
	return err
}
