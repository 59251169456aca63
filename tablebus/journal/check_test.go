package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
)

// journalFiles are the files of a journal at path: the database, its write-ahead log and
// index, and the high-water mark.
func journalFiles(path string) []string {
	return []string{path, path + "-wal", path + "-shm", HighWaterPath(path)}
}

// snapshot copies the journal's files as they are on disk now (a crash image while the
// journal is open: every append is synced) into dir, and returns the copy's path.
func snapshot(t *testing.T, path, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, filepath.Base(path))
	for i, f := range journalFiles(path) {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		check(t, err)
		check(t, os.WriteFile(journalFiles(dst)[i], b, 0o600))
	}
	return dst
}

// dirBytes returns every file of dir and its bytes.
func dirBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	es, err := os.ReadDir(dir)
	check(t, err)
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		check(t, err)
		out[e.Name()] = string(b)
	}
	return out
}

// published runs a journal that keeps its mark through n events, the mark covering each as a
// publisher would, and returns its path, still open.
func published(t *testing.T, dir string, n uint64) (*Journal, string) {
	t.Helper()
	path := filepath.Join(dir, "T1.db")
	j, err := Open(path, "T1")
	check(t, err)
	t.Cleanup(func() { j.Close() })
	check(t, j.KeepHighWater())
	_, err = j.NewSession()
	check(t, err)
	appendN(t, j, n)
	return j, path
}

func appendN(t *testing.T, j *Journal, n uint64) {
	t.Helper()
	for range n {
		e := ev(j.NextSeq(), tablebus.Burn)
		e.Session = j.Session()
		if _, err := j.Append(e); err != nil {
			t.Fatal(err)
		}
		check(t, j.Cover(e.Seq))
	}
}

// TestCheckStart: a journal whose write-ahead log was cut short, has a byte flipped or was
// deleted, and an old copy of the whole journal, each refuse to start without a byte of any
// file changed; the intact crash image and the cleanly closed journal start.
func TestCheckStart(t *testing.T) {
	j, path := published(t, t.TempDir(), 40)
	old := snapshot(t, path, t.TempDir()) // the journal at #40
	appendN(t, j, 60)
	image := snapshot(t, path, t.TempDir()) // at #100, as a crash leaves it
	wal, err := os.ReadFile(path + "-wal")
	check(t, err)
	if len(wal) < 100_000 {
		t.Fatalf("the log holds only %d bytes: checkpointed?", len(wal))
	}

	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		want   []string // in the message
		last   uint64   // where the damaged journal ends
	}{
		{"intact", func(*testing.T, string) {}, nil, 100},
		{"log cut to half", func(t *testing.T, p string) { check(t, os.Truncate(p+"-wal", int64(len(wal)/2))) },
			[]string{"ends at event #", "says #100 (session 1)", "cut short, or this is an old copy", "Put back the journal files that match (T1.db with its T1.db-wal"}, 0},
		{"log cut to a frame", func(t *testing.T, p string) { check(t, os.Truncate(p+"-wal", 32+30*(24+4096))) },
			[]string{"says #100 (session 1)", "was cut short, or this is an old copy"}, 0},
		{"a byte flipped", func(t *testing.T, p string) { flip(t, p+"-wal", len(wal)/3) },
			[]string{"says #100 (session 1)", "is damaged: ", "fails its checksum, yet"}, 0},
		{"a byte of the log's header flipped", func(t *testing.T, p string) { flip(t, p+"-wal", 13) },
			[]string{"says #100 (session 1)", "unreadable header"}, 0},
		{"log deleted", func(t *testing.T, p string) { check(t, os.Remove(p+"-wal")); check(t, os.Remove(p+"-shm")) },
			[]string{"holds no event", "says #100 (session 1)", "There is no write-ahead log", "only T1.db was copied"}, 0},
		{"an old copy of the whole journal", func(t *testing.T, p string) {
			for _, f := range journalFiles(p)[:3] {
				os.Remove(f)
				if b, err := os.ReadFile(filepath.Join(filepath.Dir(old), filepath.Base(f))); err == nil {
					check(t, os.WriteFile(f, b, 0o600))
				}
			}
		}, []string{"ends at event #40 (session 1)", "says #100 (session 1)", "Events #41 to #100 are not in it"}, 40},
		{"the mark deleted", func(t *testing.T, p string) { check(t, os.Remove(HighWaterPath(p))) },
			[]string{"ends at event #100 (session 1)", "high-water mark", "is missing (the journal kept one)", "Put back the high-water mark"}, 100},
		{"the mark damaged", func(t *testing.T, p string) {
			check(t, os.WriteFile(HighWaterPath(p), bytes.Repeat([]byte("x"), 1024), 0o600))
		}, []string{"is damaged", "how far the feed went is not known"}, 100},
		{"another journal of the table", func(t *testing.T, p string) {
			// The same length, other events: a journal restored, run on, and its mark swapped.
			q := filepath.Join(t.TempDir(), "T1.db")
			o, err := Open(q, "T1")
			check(t, err)
			o.NewSession()
			for i := uint64(1); i <= 100; i++ {
				e := ev(i, tablebus.Cut)
				e.Session = 1
				if _, err := o.Append(e); err != nil {
					t.Fatal(err)
				}
			}
			o.Close()
			for _, f := range journalFiles(p)[:3] {
				os.Remove(f)
			}
			b, _ := os.ReadFile(q)
			check(t, os.WriteFile(p, b, 0o600))
		}, []string{"ends at event #100 (session 1)", "its event #100 is not the one", "another journal of the table"}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "T1.db")
			for i, f := range journalFiles(image) {
				if b, err := os.ReadFile(f); err == nil {
					check(t, os.WriteFile(journalFiles(p)[i], b, 0o600))
				}
			}
			tc.damage(t, p)
			before := dirBytes(t, dir)
			in, err := CheckStart(p, "T1")
			if after := dirBytes(t, dir); !maps(before, after) {
				t.Fatalf("the check changed the files: %v, now %v", keys(before), keys(after))
			}
			if tc.want == nil {
				if err != nil || in.Last != 100 {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			t.Log(err)
			var be *BehindError
			if !errors.As(err, &be) || !errors.Is(err, ErrBehind) {
				t.Fatalf("not refused as behind: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the message lacks %q:\n%v", w, err)
				}
			}
			if be.Seq != 100 || be.Session != 1 && tc.name != "the mark damaged" {
				t.Errorf("the highest seen: #%d session %d", be.Seq, be.Session)
			}
			if tc.last != 0 && in.Last != tc.last {
				t.Errorf("the journal ends at %d, want %d", in.Last, tc.last)
			}
			if in.Last >= 100 && tc.last != 100 {
				t.Errorf("the damaged journal still reads to #%d", in.Last)
			}
			// Opening it for writing would lose the evidence: KeepHighWater refuses too (the
			// daemon never gets there, CheckStart having refused).
			if strings.HasPrefix(tc.name, "the mark") {
				return
			}
			jj, err := Open(p, "T1")
			check(t, err)
			defer jj.Close()
			if err := jj.KeepHighWater(); !errors.Is(err, ErrBehind) {
				t.Errorf("KeepHighWater on the damaged journal: %v", err)
			}
		})
	}
}

// TestCheckStartOutside: what the broker and the consumers have seen counts like the mark.
func TestCheckStartOutside(t *testing.T) {
	j, path := published(t, t.TempDir(), 10)
	j.Close()
	status := Seen{What: "the broker's retained status", Seq: 10, Session: 1}
	if _, err := CheckStart(path, "T1", status, Seen{What: "consumer engine.E1's acknowledgement", Seq: 9}); err != nil {
		t.Fatalf("in step with the outside: %v", err)
	}
	for _, tc := range []struct {
		seen Seen
		want string
	}{
		{Seen{What: "the broker's retained status", Seq: 12, Session: 1}, "ends at event #10 (session 1), but the broker's retained status says #12 (session 1)"},
		{Seen{What: "the broker's retained status", Seq: 10, Session: 2}, "but the broker's retained status says #10 (session 2)"},
		{Seen{What: "consumer engine.E1's acknowledgement", Seq: 11}, "but consumer engine.E1's acknowledgement says #11"},
	} {
		_, err := CheckStart(path, "T1", tc.seen)
		if !errors.Is(err, ErrBehind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc.seen, err)
		}
	}
	// A journal that does not exist, while the mark or the broker says events were published.
	missing := filepath.Join(filepath.Dir(path), "T9.db")
	if _, err := CheckStart(missing, "T9", Seen{What: "the broker's retained status", Seq: 3, Session: 1}); !errors.Is(err, ErrBehind) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a missing journal: %v", err)
	}
	check(t, os.Rename(path, path+".moved"))
	if _, err := CheckStart(path, "T1"); !errors.Is(err, ErrBehind) || !strings.Contains(err.Error(), "does not exist, but the high-water mark") {
		t.Errorf("a moved journal: %v", err)
	}
	// A new table starts.
	fresh := filepath.Join(t.TempDir(), "T2.db")
	if in, err := CheckStart(fresh, "T2"); err != nil || in.Exists {
		t.Errorf("a new table: %+v %v", in, err)
	}
	if _, err := CheckStart(path+".moved", "T2"); !errors.Is(err, ErrOtherTable) {
		t.Errorf("T1's journal checked as T2's: %v", err)
	}
}

// TestCheckStartOldJournal: a journal from before the mark existed starts, and keeps one from
// then on.
func TestCheckStartOldJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "T1.db")
	j, err := Open(path, "T1")
	check(t, err)
	j.NewSession()
	appendN(t, j, 5)
	j.Close()
	if _, err := CheckStart(path, "T1"); err != nil {
		t.Fatalf("a journal from before the mark: %v", err)
	}
	j, err = Open(path, "T1")
	check(t, err)
	defer j.Close()
	check(t, j.KeepHighWater())
	if m, ok, err := ReadHighWater(HighWaterPath(path)); !ok || err != nil || m.Seq != 5 || m.Session != 1 {
		t.Fatalf("the mark made from the journal: %+v %v %v", m, ok, err)
	}
}

func flip(t *testing.T, path string, at int) {
	t.Helper()
	b, err := os.ReadFile(path)
	check(t, err)
	b[at] ^= 0x10
	check(t, os.WriteFile(path, b, 0o600))
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s(%d)", k, len(v)))
	}
	slices.Sort(out)
	return out
}

// TestScanWAL checks the scanner against SQLite itself: for logs cut at many lengths and with
// bytes flipped at many places, SQLite reads from the damaged log exactly what it reads from
// the log cut after the frames the scanner says it reads; a flipped byte with committed
// transactions after it is damage, a cut is not (a cut looks like a log whose last
// transactions were never written).
func TestScanWAL(t *testing.T) {
	j, path := published(t, t.TempDir(), 60)
	_ = j
	image := snapshot(t, path, t.TempDir())
	wal, err := os.ReadFile(image + "-wal")
	check(t, err)
	full := ScanWAL(wal)
	if full.Damaged() || full.Read != full.Frames || full.Broken != 0 || full.PageSize != 4096 {
		t.Fatalf("the intact log: %+v", full)
	}
	fs := 24 + full.PageSize
	reads := func(w []byte) uint64 {
		t.Helper()
		dir := t.TempDir()
		p := filepath.Join(dir, "T1.db")
		db, _ := os.ReadFile(image)
		check(t, os.WriteFile(p, db, 0o600))
		check(t, os.WriteFile(p+"-wal", w, 0o600))
		in, err := Inspect(p)
		check(t, err)
		return in.Last
	}
	cut := func(w WALScan) []byte { return wal[:32+w.Read*fs] }
	for _, n := range []int{0, 20, 32, 32 + fs, 32 + 5*fs + 100, len(wal) / 3, len(wal) / 2, len(wal) - 1} {
		w := ScanWAL(wal[:n])
		if w.Damaged() {
			t.Errorf("cut to %d: damaged %+v", n, w)
		}
		if n >= 32 {
			if got, want := reads(wal[:n]), reads(cut(w)); got != want {
				t.Errorf("cut to %d: SQLite reads to #%d, from the scanner's %d frames to #%d", n, got, w.Read, want)
			}
		}
	}
	damaged := 0
	for _, at := range []int{40, 32 + 24 + 100, 32 + 3*fs + 8, len(wal) / 4, len(wal) / 2, len(wal) - fs, len(wal) - 10} {
		b := bytes.Clone(wal)
		b[at] ^= 0x01
		w := ScanWAL(b)
		if got, want := reads(b), reads(cut(w)); got != want {
			t.Errorf("flipped at %d: SQLite reads to #%d, from the scanner's %d frames to #%d", at, got, w.Read, want)
		}
		frame := (at - 32) / fs
		if w.Damaged() {
			damaged++
		}
		// A flip before the log's last transaction leaves committed frames intact after it.
		if frame < full.Frames-4 && !w.Damaged() {
			t.Errorf("flipped at %d (frame %d of %d): not damaged: %+v", at, frame+1, full.Frames, w)
		}
	}
	if damaged == 0 {
		t.Fatal("no flip was found")
	}
	b := bytes.Clone(wal)
	b[5] ^= 1
	if w := ScanWAL(b); !w.Damaged() || w.BadHeader == "" {
		t.Errorf("a flipped version: %+v", w)
	}
}

// FuzzScanWAL: any bytes scan without a panic, and the scanner never reads more frames than
// the file holds.
func FuzzScanWAL(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "T1.db")
	j, err := Open(path, "T1")
	if err != nil {
		f.Fatal(err)
	}
	j.NewSession()
	for i := uint64(1); i <= 3; i++ {
		e := ev(i, tablebus.Burn)
		if _, err := j.Append(e); err != nil {
			f.Fatal(err)
		}
	}
	wal, err := os.ReadFile(path + "-wal")
	j.Close()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(wal)
	f.Add(wal[:100])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		w := ScanWAL(b)
		if w.Read > w.Frames || w.Broken > w.Frames || w.Lost > w.Frames {
			t.Fatalf("%+v from %d bytes", w, len(b))
		}
		_ = w.String()
	})
}
