package consumer_test

import (
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/bustest"
	"github.com/sabot-tables/sabot/tablebus/consumer"
)

// FuzzConsumer drives the consumer with any order of genuine, duplicated, damaged and forged
// messages and ticks: it never panics, delivers each sequence number at most once and in
// order, and never delivers a payload that was not signed.
func FuzzConsumer(f *testing.F) {
	fl := bustest.NewFloor(f, "T1")
	ev := feed(fl, 8)
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{7, 6, 5, 4, 3, 2, 1, 0, 200, 201})
	f.Add([]byte{0, 0, 2, 2, 100, 1, 150, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		c, err := consumer.New(consumer.Options{ID: "engine.E1", Feed: tablebus.Secure, Keyring: fl.Keyring, MaxPending: 4})
		if err != nil {
			t.Fatal(err)
		}
		now := bustest.Epoch
		var last uint64
		check := func(outs []consumer.Output) {
			for _, o := range outs {
				if d := o.Delivery; d != nil {
					if last != 0 && d.Seq != last+1 {
						t.Fatalf("delivered %d after %d", d.Seq, last)
					}
					if string(d.Payload) != string(ev[d.Seq-1].payload) {
						t.Fatalf("delivered a payload that was not signed: %q", d.Payload)
					}
					last = d.Seq
				}
			}
		}
		for _, op := range ops {
			switch {
			case op < 8:
				check(c.Receive(ev[0].topic, ev[op].payload, now))
			case op < 16:
				p := append([]byte(nil), ev[op-8].payload...)
				p[int(op)*7%len(p)] ^= 0x20
				check(c.Receive(ev[0].topic, p, now))
			case op < 24:
				check(c.Receive("sabot/v1/T1/public/status", ev[op-16].payload, now))
			default:
				now = now.Add(time.Duration(op) * 10 * time.Millisecond)
				check(c.Tick(now))
			}
		}
	})
}
