package main

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

// BenchmarkEndToEndCoups runs the whole daemon in simulation mode, as `make run` does but with
// no pause between the dealer's actions: simulated shuffler and shoe bytes over pseudo-terminals,
// the shoe machine, the punto banco engine, the SQLite journal (fsync per step) and the feed
// published to the embedded broker. One iteration is one 8-deck shoe; it reports coups/s.
func BenchmarkEndToEndCoups(b *testing.B) {
	dir := b.TempDir()
	jpath := filepath.Join(dir, "T1.db")
	args := []string{"--sim", "--shoe", "reader", "--sim-seed", "1", "--sim-pace", "0s", "--sim-shoes", strconv.Itoa(b.N),
		"--listen", "127.0.0.1:0", "--journal", jpath, "--quiet", "--log-level", "error"}
	b.ResetTimer()
	start := time.Now()
	if err := run(context.Background(), args, io.Discard, io.Discard); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	j, err := journal.Open(jpath, "T1")
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	coups := 0
	j.Range(context.Background(), 1, j.NextSeq(), func(r journal.Record) error {
		if r.Type == tablebus.RoundSettled {
			coups++
		}
		return nil
	})
	b.ReportMetric(float64(coups)/elapsed.Seconds(), "coups/s")
	b.ReportMetric(float64(coups)/float64(b.N), "coups/shoe")
}
