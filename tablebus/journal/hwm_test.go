package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
)

func TestHighWaterPath(t *testing.T) {
	for in, want := range map[string]string{"var/T1.db": "var/T1.hwm", "/x/T1": "/x/T1.hwm", "a/b.hwm": "a/b.hwm.hwm", "j.sqlite": "j.hwm"} {
		if got := HighWaterPath(in); got != want {
			t.Errorf("HighWaterPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHighWaterSlot pins the slot's bytes: a line of text an operator can read with cat, its
// CRC-32C, spaces to 511 bytes and a newline.
func TestHighWaterSlot(t *testing.T) {
	m := Mark{Table: "T1", Session: 5, Seq: 403, Shoe: "T1-000003", Round: 57,
		Secure: tablebus.HashOf([]byte("secure")), Public: tablebus.HashOf([]byte("public"))}
	b, err := encodeSlot(m, 812)
	if err != nil {
		t.Fatal(err)
	}
	want := "sabot-hwm 1 table=T1 session=5 seq=403 shoe=T1-000003 round=57" +
		" secure=" + m.Secure.String() + " public=" + m.Public.String() + " gen=812 crc32c="
	if len(b) != 512 || b[511] != '\n' || !strings.HasPrefix(string(b), want) {
		t.Fatalf("slot %q", b)
	}
	line := strings.TrimRight(string(b[:511]), " ")
	if len(line) != len(want)+8 {
		t.Fatalf("slot line %q", line)
	}
	got, gen, err := decodeSlot(b)
	if err != nil || got != m || gen != 812 {
		t.Fatalf("decoded %+v gen %d err %v", got, gen, err)
	}
	// Every single flipped bit of the line is caught.
	for i := range len(line) {
		c := bytes.Clone(b)
		c[i] ^= 0x04
		if _, _, err := decodeSlot(c); err == nil {
			t.Fatalf("byte %d flipped: decoded", i)
		}
	}
	for _, bad := range []Mark{{Table: "T 1"}, {Table: "T1", Shoe: "a b"}, {Table: "T1", Shoe: "x=y"}} {
		if _, err := encodeSlot(bad, 1); err == nil {
			t.Errorf("encoded %+v", bad)
		}
	}
}

func TestHighWaterAdvance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "T1.hwm")
	m := Mark{Table: "T1", Session: 1}
	h, err := OpenHighWater(path, m)
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 5; seq++ {
		m.Seq, m.Round, m.Shoe = seq, seq/2, "T1-000001"
		m.Secure = tablebus.HashOf([]byte{byte(seq)})
		if err := h.Advance(m); err != nil {
			t.Fatal(err)
		}
		got, ok, err := ReadHighWater(path)
		if err != nil || !ok || got != m {
			t.Fatalf("after advancing to %d: %+v %v %v", seq, got, ok, err)
		}
	}
	back := m
	back.Seq = 4
	if err := h.Advance(back); err == nil {
		t.Fatal("the mark went back a seq")
	}
	back = m
	back.Session = 0
	if err := h.Advance(back); err == nil {
		t.Fatal("the mark went back a session")
	}
	other := m
	other.Table = "T2"
	if err := h.Advance(other); !errors.Is(err, ErrOtherTable) {
		t.Fatalf("another table's mark: %v", err)
	}
	h.Close()
	if fi, err := os.Stat(path); err != nil || fi.Size() != 1024 {
		t.Fatalf("mark file: %v %v", fi, err)
	}
	if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary file left: %v", err)
	}

	// Reopened, it goes on from where it was, and refuses another table.
	h, err = OpenHighWater(path, Mark{Table: "T1"})
	if err != nil || h.Mark() != m {
		t.Fatalf("reopened: %+v %v", h.Mark(), err)
	}
	m.Seq++
	if err := h.Advance(m); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if _, err := OpenHighWater(path, Mark{Table: "T2"}); !errors.Is(err, ErrOtherTable) {
		t.Fatalf("T1's mark opened for T2: %v", err)
	}
}

// TestHighWaterTorn: a write torn by a power cut spoils only the slot being written; the other
// holds the mark before, which covered everything published before that advance.
func TestHighWaterTorn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "T1.hwm")
	h, err := OpenHighWater(path, Mark{Table: "T1"})
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 7; seq++ {
		if err := h.Advance(Mark{Table: "T1", Session: 1, Seq: seq}); err != nil {
			t.Fatal(err)
		}
	}
	h.Close()
	good, _ := os.ReadFile(path)
	// Generation 8 (seq 7) is in slot 1 (8 % 2 = 0), generation 7 (seq 6) in slot 2.
	for _, tc := range []struct {
		name    string
		spoil   func(b []byte)
		wantSeq uint64
		bad     bool
	}{
		{"intact", func([]byte) {}, 7, false},
		{"newer slot torn", func(b []byte) { copy(b[100:], bytes.Repeat([]byte{0}, 200)) }, 6, false},
		{"older slot torn", func(b []byte) { b[512+40] ^= 1 }, 7, false},
		{"both torn", func(b []byte) { b[40] ^= 1; b[512+40] ^= 1 }, 0, true},
		{"cut short", func(b []byte) {}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(good)
			tc.spoil(b)
			if tc.name == "cut short" {
				b = b[:600]
			}
			os.WriteFile(path, b, 0o600)
			m, ok, err := ReadHighWater(path)
			if tc.bad {
				if err == nil || !ok || !strings.Contains(err.Error(), "damaged") {
					t.Fatalf("read %+v %v %v", m, ok, err)
				}
				return
			}
			if err != nil || m.Seq != tc.wantSeq {
				t.Fatalf("read %+v %v, want seq %d", m, err, tc.wantSeq)
			}
		})
	}
}

// TestJournalKeepsHighWater: the journal's mark follows its sessions and what Cover is asked
// for, advancing to the last event journaled.
func TestJournalKeepsHighWater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "T1.db")
	j, err := Open(path, "T1")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.KeepHighWater(); err != nil {
		t.Fatal(err)
	}
	s, _ := j.NewSession()
	mark := func() Mark { m, _, err := ReadHighWater(HighWaterPath(path)); check(t, err); return m }
	if m := mark(); m.Session != s || m.Seq != 0 {
		t.Fatalf("after the session: %+v", m)
	}
	var last Record
	for i := uint64(1); i <= 4; i++ {
		e := ev(i, tablebus.Burn)
		e.Round = 10 + i
		if last, err = j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if m := mark(); m.Seq != 0 {
		t.Fatalf("the mark moved without Cover: %+v", m)
	}
	check(t, j.Cover(2))
	want := Mark{Table: "T1", Session: s, Seq: 4, Shoe: "T1-1", Round: 14, Secure: tablebus.HashOf(last.SecureWire), Public: tablebus.HashOf(last.PublicWire)}
	if m := mark(); m != want {
		t.Fatalf("after Cover(2): %+v, want %+v", m, want)
	}
	if j.Covered() != 4 {
		t.Fatalf("covered %d", j.Covered())
	}
	j.Close()

	// The next open keeps the same mark, and a new session advances it.
	j, err = Open(path, "T1")
	check(t, err)
	defer j.Close()
	check(t, j.KeepHighWater())
	s2, _ := j.NewSession()
	want.Session = s2
	if m := mark(); m != want {
		t.Fatalf("after the next session: %+v, want %+v", m, want)
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzHighWater: any file decodes to a mark or an error, never a panic, and a mark decoded
// from a slot encodes to that slot again.
func FuzzHighWater(f *testing.F) {
	s1, _ := encodeSlot(Mark{Table: "T1", Session: 2, Seq: 9, Shoe: "T1-000001", Round: 3}, 4)
	s2, _ := encodeSlot(Mark{Table: "T1", Session: 2, Seq: 10, Shoe: "T1-000001", Round: 3}, 5)
	f.Add(append(bytes.Clone(s1), s2...))
	f.Add(append(bytes.Clone(s1), bytes.Repeat([]byte{' '}, 512)...))
	f.Add([]byte("sabot-hwm 1 table=T1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeHighWater(b)
		if len(b) < hwmSlot {
			return
		}
		m, gen, err := decodeSlot(b[:hwmSlot])
		if err != nil {
			return
		}
		again, err := encodeSlot(m, gen)
		if err != nil || !bytes.Equal(again, b[:hwmSlot]) {
			t.Fatalf("decoded %+v from %q, encodes to %q (%v)", m, b[:hwmSlot], again, err)
		}
	})
}
