package shuffler_test

import (
	"context"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/driver/shuffler"
	"github.com/sabot-tables/sabot/driver/shuffler/shufflertest"
	"github.com/sabot-tables/sabot/shoe/card"
)

// BenchmarkFrameCodec encodes and decodes an 8-deck order report (the largest frame in use).
func BenchmarkFrameCodec(b *testing.B) {
	order := make([]card.Card, 416)
	for i := range order {
		order[i] = card.FromIndex(i % 52)
	}
	payload := shuffler.AppendReport([]byte{7}, shuffler.Report{Cards: 416, Order: order})
	buf := make([]byte, 0, 512)
	b.SetBytes(int64(len(payload) + 8))
	for b.Loop() {
		buf, _ = shuffler.AppendFrame(buf[:0], shuffler.Frame{Seq: 9, Cmd: shuffler.CmdShuffle | shuffler.ReplyBit, Payload: payload})
		if _, _, err := shuffler.Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStatusRoundTrip: one STATUS command with its ACK, reply and the host's ACK over a real
// pseudo-terminal: the protocol's latency floor on this machine.
func BenchmarkStatusRoundTrip(b *testing.B) {
	sim, err := shufflertest.NewSim(shufflertest.Opts{})
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	dev, err := shuffler.Open(sim.Port(), shuffler.Opts{})
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	ctx := context.Background()
	start := time.Now()
	for b.Loop() {
		if _, err := dev.Status(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/command")
}

// BenchmarkNoisyCount: COUNT (a 115-byte reply) with 1% of bytes corrupted and 0.5% dropped in
// both directions: how many tries a command needs, and its time, when the line is that bad.
func BenchmarkNoisyCount(b *testing.B) {
	sim, err := shufflertest.NewSim(shufflertest.Opts{Seed: 3, AckTimeout: 40 * time.Millisecond, Retries: 5})
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	dev, err := shuffler.Open(sim.Port(), shuffler.Opts{AckTimeout: 40 * time.Millisecond, Retries: 8, Poll: 300 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	sim.Insert(card.Deck())
	noise := shufflertest.LineFaults{Corrupt: 0.01, Drop: 0.005, As: shufflertest.RandomByte}
	sim.SetLineFaults(noise, noise)
	ctx := context.Background()
	start := time.Now()
	for b.Loop() {
		got, err := dev.Count(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if got != card.Decks(1) {
			b.Fatal("wrong count")
		}
	}
	st := sim.Stats()
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/command")
	b.ReportMetric(float64(st.Resent)/float64(b.N), "device-resends/command")
	b.ReportMetric(float64(st.Duplicates)/float64(b.N), "repeats/command")
}
