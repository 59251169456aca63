// Package outbox is the daemon's side of the feed: it stamps each event with the table's
// envelope (schema version, next sequence number, session), writes it to the journal before
// anything else, hands it to in-process observers, and publishes the journal in sequence order
// to MQTT from a goroutine of its own, so that a slow or absent broker never stops the table and
// no journaled event is skipped.
package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

// Publisher publishes one message (mqttbus.Client does).
type Publisher interface {
	Publish(ctx context.Context, topic string, payload []byte, qos byte, retain bool) error
}

// Outbox journals and publishes one table's events.
type Outbox struct {
	j       *journal.Journal
	topics  tablebus.Topics
	session uint64
	log     *slog.Logger

	mu        sync.Mutex
	observers []*Observer
	next      atomic.Uint64 // the next seq to publish
	wake      chan struct{}
}

// New returns an outbox writing to j for session; publishing starts with the next event
// journaled from now on (Run's publisher may be nil: journal only).
func New(j *journal.Journal, session uint64, log *slog.Logger) *Outbox {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o := &Outbox{j: j, topics: tablebus.Topics{Table: j.Table()}, session: session, log: log, wake: make(chan struct{}, 1)}
	o.next.Store(j.NextSeq())
	return o
}

// Published returns the last sequence number handed to the broker.
func (o *Outbox) Published() uint64 { return o.next.Load() - 1 }

// Session returns the session the outbox stamps.
func (o *Outbox) Session() uint64 { return o.session }

// LastSeq returns the last journaled sequence number.
func (o *Outbox) LastSeq() uint64 { return o.j.NextSeq() - 1 }

// Emit stamps evs, journals them with the input that produced them (JSON; nil for none), and
// hands them to the observers, in order (shoe.Sink).
func (o *Outbox) Emit(ctx context.Context, input []byte, evs []tablebus.Event) error {
	next := o.j.NextSeq()
	stamped := make([]tablebus.Event, len(evs))
	for i, e := range evs {
		e.V = tablebus.SchemaVersion
		e.Seq = next + uint64(i)
		e.Table = o.j.Table()
		e.Source = tablebus.SourceTable
		e.Session = o.session
		stamped[i] = e
	}
	if _, err := o.j.AppendStep(input, stamped); err != nil {
		return err
	}
	o.mu.Lock()
	for _, ob := range o.observers {
		for _, e := range stamped {
			ob.push(e)
		}
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return nil
}

// Observe returns an in-process observer that receives every event emitted from now on, in
// order, without ever slowing the table (its queue grows instead).
func (o *Outbox) Observe() *Observer {
	ob := &Observer{ready: make(chan struct{}, 1)}
	o.mu.Lock()
	o.observers = append(o.observers, ob)
	o.mu.Unlock()
	return ob
}

// Observer is an unbounded in-order queue of events.
type Observer struct {
	mu    sync.Mutex
	q     []tablebus.Event
	ready chan struct{}
}

func (ob *Observer) push(e tablebus.Event) {
	ob.mu.Lock()
	ob.q = append(ob.q, e)
	ob.mu.Unlock()
	select {
	case ob.ready <- struct{}{}:
	default:
	}
}

// Next returns the next event, waiting for it until ctx is done.
func (ob *Observer) Next(ctx context.Context) (tablebus.Event, error) {
	for {
		ob.mu.Lock()
		if len(ob.q) > 0 {
			e := ob.q[0]
			ob.q = ob.q[1:]
			ob.mu.Unlock()
			return e, nil
		}
		ob.mu.Unlock()
		select {
		case <-ob.ready:
		case <-ctx.Done():
			return tablebus.Event{}, ctx.Err()
		}
	}
}

// Run publishes journaled events to pub in sequence order, each on the secure and the public
// topic at QoS 1, until ctx is done. A failed publish is retried, with backoff, from the same
// event: nothing journaled is ever skipped.
func (o *Outbox) Run(ctx context.Context, pub Publisher) error {
	backoff := 100 * time.Millisecond
	for {
		err := o.publishPending(ctx, pub)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			o.log.Warn("publishing the feed failed; retrying", "err", err, "from_seq", o.next.Load(), "in", backoff)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		select {
		case <-ctx.Done():
			return nil
		case <-o.wake:
		}
	}
}

func (o *Outbox) publishPending(ctx context.Context, pub Publisher) error {
	last := o.j.NextSeq() - 1
	if o.next.Load() > last {
		return nil
	}
	return o.j.Range(ctx, o.next.Load(), last, func(r journal.Record) error {
		if err := pub.Publish(ctx, o.topics.SecureEvents(), r.Secure, 1, false); err != nil {
			return fmt.Errorf("outbox: event %d: %w", r.Seq, err)
		}
		if err := pub.Publish(ctx, o.topics.PublicEvents(), r.Public, 1, false); err != nil {
			return fmt.Errorf("outbox: event %d: %w", r.Seq, err)
		}
		o.next.Store(r.Seq + 1)
		return nil
	})
}
