package journal

import (
	"path/filepath"
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
)

// BenchmarkHighWaterAdvance is the cost of one advance of the high-water mark: one 512-byte
// write in place and its fdatasync, on the disk of the test's temporary directory.
func BenchmarkHighWaterAdvance(b *testing.B) {
	h, err := OpenHighWater(filepath.Join(b.TempDir(), "T1.hwm"), Mark{Table: "T1", Session: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	m := Mark{Table: "T1", Session: 1, Shoe: "T1-000001"}
	for b.Loop() {
		m.Seq++
		m.Secure = tablebus.HashOf([]byte{byte(m.Seq)})
		if err := h.Advance(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendCover is the cost per event of journaling one event and publishing it at
// once, the worst case for the mark: each event alone (a quiet table), so every publish
// advances the mark (Cover). "without" is the append alone; the difference is the mark's cost
// per event. A busy table covers every event journaled since the last advance at once.
func BenchmarkAppendCover(b *testing.B) {
	for _, keep := range []bool{false, true} {
		name := "without"
		if keep {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			j, err := Open(filepath.Join(b.TempDir(), "T1.db"), "T1")
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			if keep {
				if err := j.KeepHighWater(); err != nil {
					b.Fatal(err)
				}
			}
			j.NewSession()
			for b.Loop() {
				e := ev(j.NextSeq(), tablebus.Burn)
				if _, err := j.Append(e); err != nil {
					b.Fatal(err)
				}
				if err := j.Cover(e.Seq); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
