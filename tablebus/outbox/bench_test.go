package outbox_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
	"github.com/sabot-tables/sabot/tablebus/consumer"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// BenchmarkFloor50Tables is issue 9's load: 50 simulated tables, each dealing five cards a second,
// against one local mosquitto, followed by one verifying consumer of every table's secure feed.
// Each table is a daemon's bus as sabotd runs it: its own SQLite journal (fsync per card) and
// high-water mark (an fdatasync before each publish), its own Ed25519 key sealing both feeds,
// its own outbox and MQTT connection. The latency is from the card's read (its event's time,
// just before the outbox takes it) to its delivery by the consumer, verified, in order: p50
// and p99, with the mean time spent signing, in the journal's commit (the fsync) and the rest
// (outbox, broker and consumer), as shares of the mean, and the events lost (must be 0).
// Target: p99 under 10 ms. One run deals for 20 seconds.
func BenchmarkFloor50Tables(b *testing.B) {
	const (
		tables  = 50
		perSec  = 5
		dealFor = 20 * time.Second
	)
	br := mosquittotest.Start(b, mosquittotest.Options{Extra: "max_queued_messages 1000000\nmax_inflight_messages 100\nset_tcp_nodelay true\n"})
	var ids []string
	for i := range tables {
		ids = append(ids, fmt.Sprintf("T%02d", i+1))
	}
	fl := bustest.NewFloor(b, ids...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// The consumer: one connection, every table.
	type sample struct{ lat time.Duration }
	var mu sync.Mutex
	var lats []time.Duration
	seen := map[string]uint64{}
	from := map[string]uint64{}
	for _, id := range ids {
		from[id] = 0 // every table from its first event, whenever the subscription lands
	}
	cons, err := consumer.New(consumer.Options{ID: "engine.E1", Feed: tablebus.Secure, Keyring: fl.Keyring, Ack: consumer.AckDelivered, From: from})
	if err != nil {
		b.Fatal(err)
	}
	cc, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "engine.E1"})
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Close()
	go cons.Run(ctx, cc, consumer.Funcs{OnEvent: func(d consumer.Delivery) error {
		now := time.Now()
		mu.Lock()
		if d.Event.Type == tablebus.CardDealt {
			lats = append(lats, now.Sub(d.Event.TS))
		}
		seen[d.Table] = d.Seq
		mu.Unlock()
		return nil
	}, OnAlarm: func(a consumer.Alarm) { b.Errorf("alarm: %s", a) }})

	// The tables.
	dir := b.TempDir()
	type table struct {
		j  *journal.Journal
		ob *outbox.Outbox
	}
	tbs := make([]table, tables)
	var wg sync.WaitGroup
	for i, id := range ids {
		j, err := journal.Open(filepath.Join(dir, id+".db"), id)
		if err != nil {
			b.Fatal(err)
		}
		defer j.Close()
		if err := j.KeepHighWater(); err != nil { // as sabotd does: advanced before each publish
			b.Fatal(err)
		}
		ob := outbox.NewWith(j, outbox.Options{Session: 1, Signer: fl.Tables[id], Keyring: fl.Keyring.Raw()})
		c, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "sabotd-" + id, NextWill: ob.Will,
			OnConnect: func(*mqttbus.Client) { ob.Connected() }})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		wg.Add(1)
		go func() { defer wg.Done(); ob.Run(ctx, c) }()
		tbs[i] = table{j, ob}
	}
	// Deal once the consumer holds every table's birth: it follows the status topics, and each
	// table's outbox is connected.
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for ready := time.Now().Add(30 * time.Second); ; {
		online := 0
		for _, st := range cons.States() {
			if st.Known && st.Online {
				online++
			}
		}
		if online == tables {
			break
		}
		if time.Now().After(ready) {
			b.Fatalf("%d of %d tables online at the consumer after 30 s", online, tables)
		}
		<-poll.C
	}

	b.ResetTimer()
	deal, stopDeal := context.WithTimeout(ctx, dealFor)
	defer stopDeal()
	var dealers sync.WaitGroup
	for i, tb := range tbs {
		dealers.Add(1)
		go func() {
			defer dealers.Done()
			// Staggered, on an absolute schedule (no coordinated omission).
			next := time.Now().Add(time.Duration(i) * time.Second / perSec / tables)
			for n := 0; ; n++ {
				select {
				case <-deal.Done():
					return
				case <-time.After(time.Until(next)):
				}
				next = next.Add(time.Second / perSec)
				c := card.FromIndex(n % 52)
				up := tablebus.FaceUp
				e := tablebus.Event{Type: tablebus.CardDealt, Shoe: "S1", Round: uint64(n/6 + 1), Card: &c, Face: &up,
					To: &tablebus.Place{Name: "player"}, Pos: n + 1, TS: time.Now()}
				if err := tb.ob.Emit(ctx, nil, []tablebus.Event{e}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	dealers.Wait()
	// Let the last cards arrive, then count what is missing.
	deadline := time.Now().Add(10 * time.Second)
	lost := uint64(0)
	for {
		lost = 0
		mu.Lock()
		for i, id := range ids {
			lost += tbs[i].ob.LastSeq() - seen[id]
		}
		mu.Unlock()
		if lost == 0 || time.Now().After(deadline) {
			break
		}
		<-poll.C
	}
	b.StopTimer()
	mu.Lock()
	sorted := slices.Clone(lats)
	mu.Unlock()
	slices.Sort(sorted)
	if len(sorted) == 0 {
		b.Fatal("no card delivered")
	}
	pct := func(p float64) time.Duration { return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))] }
	var sum time.Duration
	for _, l := range sorted {
		sum += l
	}
	mean := sum / time.Duration(len(sorted))
	var seal, commit time.Duration
	var appends int64
	var brokerT time.Duration
	var pubs int64
	for _, tb := range tbs {
		tm := tb.j.Timing()
		seal += tm.Seal
		commit += tm.Commit
		appends += tm.Appends
		d, n := tb.ob.BrokerTime()
		brokerT += d
		pubs += n
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	sealMean := seal / time.Duration(appends)
	fsyncMean := commit / time.Duration(appends)
	pubMean := brokerT / time.Duration(max(pubs, 1))
	b.ReportMetric(float64(len(sorted)), "cards")
	b.ReportMetric(ms(pct(0.50)), "p50-ms")
	b.ReportMetric(ms(pct(0.99)), "p99-ms")
	b.ReportMetric(ms(sorted[len(sorted)-1]), "max-ms")
	b.ReportMetric(ms(mean), "mean-ms")
	b.ReportMetric(ms(sealMean), "sign-ms")
	b.ReportMetric(ms(fsyncMean), "fsync-ms")
	b.ReportMetric(ms(pubMean), "puback-ms")
	b.ReportMetric(100*float64(sealMean)/float64(mean), "sign-%")
	b.ReportMetric(100*float64(fsyncMean)/float64(mean), "fsync-%")
	b.ReportMetric(100*float64(mean-sealMean-fsyncMean)/float64(mean), "broker+consumer-%")
	b.ReportMetric(float64(lost), "lost")
	if lost != 0 {
		b.Errorf("%d events lost", lost)
	}
	cancel()
	wg.Wait()
}

// BenchmarkOpenEvent is a consumer's cost of verifying and decoding one event.
func BenchmarkOpenEvent(b *testing.B) {
	fl := bustest.NewFloor(b, "T1")
	ch := fl.NewChain("T1", tablebus.Secure)
	p := ch.Seal(event("T1", 7))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tablebus.OpenEvent(fl.Keyring, ch.Topic, p); err != nil {
			b.Fatal(err)
		}
	}
}
