package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// Bus is what the consumer needs of an MQTT connection (mqttbus.Client has it).
type Bus interface {
	Subscribe(ctx context.Context, filter string, qos byte, h func(mqttbus.Message)) error
	Publish(ctx context.Context, topic string, payload []byte, qos byte, retain bool) error
}

var _ Bus = (*mqttbus.Client)(nil)

// Handler receives what the consumer delivers, from Run's goroutine, one call at a time.
type Handler interface {
	// Event gets each verified event once, in order per table. An error stops Run.
	Event(Delivery) error
	// Alarm gets every alarm (forged, altered, equivocation, gaps that do not fill).
	Alarm(Alarm)
	// State gets each change of a daemon's birth/death status.
	State(State)
}

// Funcs adapts functions to a Handler; a nil function ignores what it would get.
type Funcs struct {
	OnEvent func(Delivery) error
	OnAlarm func(Alarm)
	OnState func(State)
}

// Event calls OnEvent.
func (f Funcs) Event(d Delivery) error {
	if f.OnEvent == nil {
		return nil
	}
	return f.OnEvent(d)
}

// Alarm calls OnAlarm.
func (f Funcs) Alarm(a Alarm) {
	if f.OnAlarm != nil {
		f.OnAlarm(a)
	}
}

// State calls OnState.
func (f Funcs) State(s State) {
	if f.OnState != nil {
		f.OnState(s)
	}
}

var _ Handler = Funcs{}

// tickEvery is how often Run runs the timers.
const tickEvery = 25 * time.Millisecond

// Run subscribes to the consumer's filters on bus (QoS 1) and feeds h until ctx is done or h
// fails. Replay requests and acknowledgements are published from a goroutine of Run's own, so
// a broker that is away never stops the deliveries already received.
func (c *Consumer) Run(ctx context.Context, bus Bus, h Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := c.resumeFrom(ctx, bus, h); err != nil {
		return err
	}
	in := make(chan mqttbus.Message, 8192)
	for _, f := range c.Filters() {
		err := bus.Subscribe(ctx, f, 1, func(m mqttbus.Message) {
			select {
			case in <- m:
			case <-ctx.Done():
			}
		})
		if err != nil {
			return fmt.Errorf("consumer: %w", err)
		}
	}
	c.log.Info("following", "filters", c.Filters())
	pub := newPublisher()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); pub.run(ctx, bus, c) }()
	defer wg.Wait()
	defer cancel()
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	for {
		var outs []Output
		select {
		case <-ctx.Done():
			c.publishFinalAcks(bus)
			return nil
		case m := <-in:
			outs = c.Receive(m.Topic, m.Payload, time.Now())
		case now := <-tick.C:
			outs = c.Tick(now)
		}
		if err := c.dispatch(outs, h, pub); err != nil {
			return err
		}
	}
}

// finalAckWait bounds the last acknowledgements' publish when Run stops.
const finalAckWait = time.Second

// publishFinalAcks publishes, when Run stops, what was processed since the last
// acknowledgement, so that the daemon and a resumed consumer need not send it again.
func (c *Consumer) publishFinalAcks(bus Bus) {
	outs := c.FinalAcks(time.Now())
	if len(outs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), finalAckWait)
	defer cancel()
	for _, o := range outs {
		b, err := json.Marshal(o.Ack)
		if err != nil {
			continue
		}
		if err := bus.Publish(ctx, tablebus.Topics{Table: o.Ack.Table}.Ack(c.o.ID), b, 1, true); err != nil {
			c.log.Warn("publishing the last acknowledgement failed", "table", o.Ack.Table, "seq", o.Ack.Seq, "err", err)
		}
	}
}

// resumeFrom reads the consumer's own retained acknowledgements (Options.Resume) before
// anything else is subscribed: mqttbus delivers each subscription from a goroutine of its
// own, so an event subscribed to at the same time could come first and start the table there.
func (c *Consumer) resumeFrom(ctx context.Context, bus Bus, h Handler) error {
	filters := c.ResumeFilters()
	if len(filters) == 0 {
		return nil
	}
	sctx, stop := context.WithCancel(ctx) // unsubscribes when done
	defer stop()
	got := make(chan mqttbus.Message, 64)
	for _, f := range filters {
		err := bus.Subscribe(sctx, f, 1, func(m mqttbus.Message) {
			if !m.Retained {
				return // this consumer's own acknowledgement, published since
			}
			select {
			case got <- m:
			case <-sctx.Done():
			}
		})
		if err != nil {
			return fmt.Errorf("consumer: %w", err)
		}
	}
	wait := time.NewTimer(c.o.ResumeWait)
	defer wait.Stop()
	seen := map[string]bool{}
	for len(c.o.Tables) == 0 || len(seen) < len(c.o.Tables) {
		select {
		case <-ctx.Done():
			return nil
		case <-wait.C:
			return nil
		case m := <-got:
			seen[m.Topic] = true
			if err := c.dispatch(c.Receive(m.Topic, m.Payload, time.Now()), h, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Consumer) dispatch(outs []Output, h Handler, pub *publisher) error {
	for _, o := range outs {
		switch {
		case o.Delivery != nil:
			if err := h.Event(*o.Delivery); err != nil {
				return err
			}
			if c.o.Ack == AckDelivered {
				c.Commit(o.Delivery.Table, o.Delivery.Seq)
			}
		case o.Alarm != nil:
			h.Alarm(*o.Alarm)
		case o.State != nil:
			h.State(*o.State)
		case o.Replay != nil:
			c.log.Info("asking for a replay", "table", o.Replay.Table, "from", o.Replay.From, "to", o.Replay.To)
			pub.put(tablebus.Topics{Table: o.Replay.Table}.Replay(c.o.ID), o.Replay, false)
		case o.Ack != nil:
			pub.put(tablebus.Topics{Table: o.Ack.Table}.Ack(c.o.ID), o.Ack, true)
		}
	}
	return nil
}

// publisher publishes the latest message per topic, in its own goroutine.
type publisher struct {
	mu    sync.Mutex
	msgs  map[string]pubMsg
	order []string
	wake  chan struct{}
}

type pubMsg struct {
	payload []byte
	retain  bool
}

func newPublisher() *publisher {
	return &publisher{msgs: map[string]pubMsg{}, wake: make(chan struct{}, 1)}
}

func (p *publisher) put(topic string, v any, retain bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	p.mu.Lock()
	if _, ok := p.msgs[topic]; !ok {
		p.order = append(p.order, topic)
	}
	p.msgs[topic] = pubMsg{payload: b, retain: retain}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *publisher) run(ctx context.Context, bus Bus, c *Consumer) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		for {
			p.mu.Lock()
			if len(p.order) == 0 {
				p.mu.Unlock()
				break
			}
			topic := p.order[0]
			p.order = p.order[1:]
			m := p.msgs[topic]
			delete(p.msgs, topic)
			p.mu.Unlock()
			if err := bus.Publish(ctx, topic, m.payload, 1, m.retain); err != nil && ctx.Err() == nil {
				c.log.Warn("publishing to the daemon failed (it is asked again later)", "topic", topic, "err", err)
			}
		}
	}
}
