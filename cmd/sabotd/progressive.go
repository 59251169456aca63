package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// progressiveGames are the games with a progressive side bet (RULES.md §7).
var progressiveGames = map[string]bool{"caribbean-stud": true, "draw-poker": true, "go-poker": true}

// progressiveLink is the table's side of its pool's controller (RULES.md §7): it follows the
// controller's status (the table takes progressive bets only while it is online), its awards
// for this table (verified, handed to the shoe loop), and the pool's meter (for the web view);
// and it times the award of a round that waits for one.
type progressiveLink struct {
	pool, table string
	kr          *tablebus.Keyring
	loop        *shoe.Loop
	obs         *outbox.Observer
	wait        time.Duration
	log         *slog.Logger
	onMeter     func(tablebus.Meter)

	mu      sync.Mutex
	online  bool
	known   bool
	version uint64
}

func (p *progressiveLink) run(ctx context.Context, client *mqttbus.Client) error {
	topics := tablebus.PoolTopics{Pool: p.pool}
	// Until the controller's status says otherwise, the table takes no progressive bet.
	if err := p.loop.Do(ctx, shoe.ProgressiveLink{Open: false, Reason: "the daemon started: waiting for the controller's status", Time: time.Now()}); err != nil {
		return nil
	}
	if err := client.Subscribe(ctx, topics.Status(), 1, func(m mqttbus.Message) { p.status(ctx, m) }); err != nil {
		return err
	}
	if err := client.Subscribe(ctx, topics.Meter(), 1, func(m mqttbus.Message) { p.meter(m) }); err != nil {
		return err
	}
	if err := client.Subscribe(ctx, tablebus.Topics{Table: p.table}.Award(), 1, func(m mqttbus.Message) { p.award(ctx, m) }); err != nil {
		return err
	}
	// The award's timer: a round that sent its hands waits p.wait for the award, then holds.
	evc := make(chan tablebus.Event, 64)
	go func() {
		for {
			e, err := p.obs.Next(ctx)
			if err != nil {
				return
			}
			select {
			case evc <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var round uint64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
			if err := p.loop.Do(ctx, shoe.ProgressiveTimeout{Round: round, Time: time.Now()}); err != nil && ctx.Err() == nil {
				p.log.Debug("progressive timeout not applied", "round", round, "err", err)
			}
		case e := <-evc:
			switch e.Type {
			case tablebus.ProgressiveHand:
				round = e.Round
				timer.Reset(p.wait)
			case tablebus.ProgressiveAward, tablebus.RoundSettled, tablebus.RoundVoided:
				if e.Round == round {
					timer.Stop()
				}
			}
		}
	}
}

// status follows the controller's birth and death.
func (p *progressiveLink) status(ctx context.Context, m mqttbus.Message) {
	var st tablebus.PoolStatus
	if _, err := tablebus.OpenProgressive(p.kr, m.Topic, m.Payload, &st); err != nil {
		p.log.Error("ALARM: a progressive status that does not verify", "topic", m.Topic, "err", err)
		return
	}
	p.mu.Lock()
	changed := !p.known || p.online != st.Online
	p.known, p.online = true, st.Online
	p.mu.Unlock()
	if !changed {
		return
	}
	reason := fmt.Sprintf("controller %s online", st.Controller)
	if !st.Online {
		reason = fmt.Sprintf("controller %s offline", st.Controller)
	}
	p.log.Info("progressive controller", "pool", p.pool, "online", st.Online, "controller", st.Controller)
	go func() { // not on the subscription's goroutine: the loop may be busy for a while
		if err := p.loop.Do(ctx, shoe.ProgressiveLink{Open: st.Online, Reason: reason, Time: time.Now()}); err != nil && ctx.Err() == nil {
			p.log.Warn("progressive link", "err", err)
		}
	}()
}

// meter keeps the pool's latest meter for the web view.
func (p *progressiveLink) meter(m mqttbus.Message) {
	var mt tablebus.Meter
	if _, err := tablebus.OpenProgressive(p.kr, m.Topic, m.Payload, &mt); err != nil {
		p.log.Error("ALARM: a progressive meter that does not verify", "topic", m.Topic, "err", err)
		return
	}
	p.mu.Lock()
	newer := mt.Version >= p.version
	if newer {
		p.version = mt.Version
	}
	p.mu.Unlock()
	if newer && p.onMeter != nil {
		p.onMeter(mt)
	}
}

// award hands the controller's award for this table to the shoe loop.
func (p *progressiveLink) award(ctx context.Context, m mqttbus.Message) {
	var a tablebus.Award
	if _, err := tablebus.OpenProgressive(p.kr, m.Topic, m.Payload, &a); err != nil {
		p.log.Error("ALARM: a progressive award that does not verify", "topic", m.Topic, "err", err)
		return
	}
	go func() {
		err := p.loop.Do(ctx, shoe.ProgressiveAward{Award: a, Time: time.Now()})
		switch {
		case err == nil:
			p.log.Info("progressive award applied", "round", a.Round, "ok", a.OK, "payouts", len(a.Payouts))
		case errors.Is(err, shoe.ErrRefused):
			p.log.Debug("progressive award not applied (an old round's, retained)", "round", a.Round, "err", err)
		case ctx.Err() == nil:
			p.log.Warn("progressive award", "round", a.Round, "err", err)
		}
	}()
}
