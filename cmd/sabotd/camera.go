package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/driver/camerashoe"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
)

// cameraShoe is the camera shoe as the daemon reads it: the card-exit gate, the lid, the dealer's
// buttons and the LED through GPIO (driver/camerashoe), and the reader camera's frames recognized
// by vision (cv.Reader). The frames captured while a card blocks the gate (between the gate's two
// edges, by their timestamps) make one physical card through a vision.Combiner: one read per
// card, a rejection when the frames disagree (RULES.md §1 "Misread").
type cameraShoe struct {
	gate   *camerashoe.Dev
	reader *cv.Reader
	log    *slog.Logger

	mu     sync.Mutex
	frames []timedResult // recent frames, oldest first
	latest time.Time     // the newest frame's capture time
	wake   chan struct{}
}

type timedResult struct {
	at  time.Time
	res vision.Result
}

// frameMemory bounds how long frames are kept: longer than any card takes to cross the gate.
const frameMemory = 5 * time.Second

func newCameraShoe(gate *camerashoe.Dev, reader *cv.Reader, log *slog.Logger) *cameraShoe {
	return &cameraShoe{gate: gate, reader: reader, log: log.With("device", "camera shoe"), wake: make(chan struct{}, 1)}
}

// run reads frames and gate events until ctx is done, handing the shoe loop one read per card.
func (c *cameraShoe) run(ctx context.Context, loop *shoe.Loop) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Add(1)
	go func() { defer wg.Done(); c.readFrames(ctx) }()
	var enter time.Time
	for {
		ev, err := c.gate.Next(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("camera shoe: %w", err)
		}
		var in shoe.Input
		switch ev.Kind {
		case camerashoe.CardEnter:
			enter = ev.At
			continue
		case camerashoe.CardExit:
			p, seen := c.passage(ctx, enter, ev.At)
			in = passageInput(p, seen, ev.At)
			c.log.Info("card out of the gate", "read", p.Result.String(), "frames", p.Frames, "evidence", p.Evidence, "tally", p.Tally)
		case camerashoe.CardStuck:
			in = shoe.DeviceFault{Device: "shoe", Code: "jam", Detail: fmt.Sprintf("a card has blocked the exit gate for %d ms", ev.Dur.Milliseconds()), Time: ev.At}
		case camerashoe.CardInGate:
			in = shoe.DeviceFault{Device: "shoe", Code: "card-in-gate", Detail: "a card was in the exit gate at start: a card in flight", Time: ev.At}
		case camerashoe.LidOpen:
			// RULES.md §1: the lid opened mid-shoe holds the round (someone could reach the cards).
			in = shoe.DeviceFault{Device: "shoe", Code: "lid-open", Detail: "the shoe's lid was opened", Time: ev.At}
		case camerashoe.Void:
			in = shoe.VoidRound{Reason: "void button on the shoe", Dealer: "dealer at the shoe", Time: ev.At}
		default:
			c.log.Info("camera shoe", "event", ev.String())
			continue
		}
		if err := loop.Do(ctx, in); err != nil && ctx.Err() == nil {
			c.log.Warn("camera shoe input refused", "event", ev.String(), "err", err)
		}
	}
}

// readFrames recognizes frames as they come, keeping the recent ones with their capture time.
func (c *cameraShoe) readFrames(ctx context.Context) {
	for {
		res, info, err := c.reader.Next(ctx)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, io.EOF) || errors.Is(err, cv.ErrSourceClosed) {
			c.log.Error("the reader camera's source ended", "err", err)
			return
		}
		if err != nil {
			// One bad frame never stops the table: it counts as a rejected frame.
			res = vision.Rejected("unusable frame: "+err.Error(), 0)
		}
		at := info.Time
		if at.IsZero() {
			at = time.Now()
		}
		c.mu.Lock()
		c.frames = append(c.frames, timedResult{at: at, res: res})
		for len(c.frames) > 0 && at.Sub(c.frames[0].at) > frameMemory {
			c.frames = c.frames[1:]
		}
		c.latest = at
		c.mu.Unlock()
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// passage combines the frames captured between the gate's edges, waiting (a little) for the
// frames captured up to the trailing edge to be recognized. It returns the cards the frames
// read too, each once, for a misread to name in its own field.
func (c *cameraShoe) passage(ctx context.Context, enter, exit time.Time) (vision.Passage, []card.Card) {
	deadline := time.NewTimer(time.Second)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		done := !c.latest.Before(exit)
		c.mu.Unlock()
		if done {
			break
		}
		select {
		case <-c.wake:
		case <-deadline.C:
			c.log.Warn("no frame after the card left the gate: combining what there is")
			done = true
		case <-ctx.Done():
			done = true
		}
		if done {
			break
		}
	}
	// The passage is decided by the recognizer's own rule on the frames' evidence: without it
	// every card the frames showed was rejected ("no recognizer to judge the frames").
	comb := vision.Combiner{Judge: c.reader.Judge()}
	comb.Begin()
	var seen []card.Card
	c.mu.Lock()
	for _, f := range c.frames {
		if !f.at.Before(enter) && !f.at.After(exit) {
			comb.Add(f.res)
			if f.res.Kind == vision.Card && f.res.Card.Valid() && !slices.Contains(seen, f.res.Card) {
				seen = append(seen, f.res.Card)
			}
		}
	}
	c.mu.Unlock()
	return comb.End(), seen
}

// passageInput turns one card's passage into a shoe read: a card, the stop card, or a misread
// (a rejection, or a card seen face down in the reader), never a guess. A misread's words name
// no card: the cards some frames read go in Seen (the combiner's reason, which names them, is
// in the log line of the passage).
func passageInput(p vision.Passage, seen []card.Card, at time.Time) shoe.Input {
	switch p.Kind {
	case vision.Card:
		return shoe.Read{Kind: shoe.ReadCard, Card: p.Card, Time: at}
	case vision.Cut:
		return shoe.Read{Kind: shoe.ReadCut, Time: at}
	case vision.Back:
		return shoe.Read{Kind: shoe.ReadUnreadable, Detail: "the card came out face down (the reader saw its back)", Time: at}
	}
	reason := p.Reason
	switch {
	case len(seen) > 1:
		reason = fmt.Sprintf("the frames read %d different cards", len(seen))
	case len(seen) == 1:
		reason = fmt.Sprintf("%d of %d frames showed the card, and their evidence does not decide it", p.Evidence, p.Frames)
	case reason == "":
		reason = "no frame read the card"
	}
	return shoe.Read{Kind: shoe.ReadUnreadable, Detail: "the camera could not read the card: " + reason, Seen: seen, Time: at}
}

// showState lights the shoe's LED from the table's state: held blinks slowly, a fault fast,
// ready steady.
func (c *cameraShoe) showState(ctx context.Context, ob *outbox.Observer) {
	c.gate.SetLED(camerashoe.LEDReady)
	for {
		e, err := ob.Next(ctx)
		if err != nil {
			return
		}
		if e.Type != tablebus.Guide {
			continue
		}
		led := camerashoe.LEDReady
		if e.State == "held" {
			led = camerashoe.LEDHeld
		}
		if err := c.gate.SetLED(led); err != nil {
			c.log.Warn("status LED", "err", err)
		}
	}
}

// Close stops the camera and the GPIO.
func (c *cameraShoe) Close() {
	c.gate.Close()
	c.reader.Close()
}
