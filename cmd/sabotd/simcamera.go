package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/driver/camerashoe"
	"github.com/sabot-tables/sabot/driver/camerashoe/camerashoetest"
	"github.com/sabot-tables/sabot/driver/readershoe/readershoetest"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
	"github.com/sabot-tables/sabot/vision/visiontest"
	"github.com/sabot-tables/sabot/vision/visiontest/simcam"
)

// physicalShoe is the simulated shoe the simulated dealer handles: the reading shoe on its
// pseudo-terminal (readerSim), or the camera shoe (simCameraShoe). DrawItem takes as long as a
// card takes to leave the shoe, and returns ctx's error when ctx ends first (STYLE.md habit 7).
type physicalShoe interface {
	Load(stack []readershoetest.Item)
	Remaining() int
	SetBurnMode(on bool)
	NotRead(n int)
	DrawItem(ctx context.Context) (readershoetest.Item, error)
	Unload() []card.Card
	Close() error
}

var (
	_ physicalShoe = readerSim{}
	_ physicalShoe = (*simCameraShoe)(nil)
)

// readerSim is the simulated reading shoe: its draw writes one line on the pseudo-terminal and
// does not wait.
type readerSim struct{ *readershoetest.Sim }

func (r readerSim) DrawItem(ctx context.Context) (readershoetest.Item, error) {
	if err := ctx.Err(); err != nil {
		return readershoetest.Item{}, err
	}
	return r.Sim.DrawItem()
}

// simCameraFPS is the simulated reader camera's frame rate.
const simCameraFPS = 30

// simCameraShoe is a camera shoe in simulation: the cards in it, the exit gate's GPIO pins
// (camerashoetest) and the reader camera, whose frames are rendered from Debian's card art
// (visiontest) and recognized for real by the daemon's vision.
type simCameraShoe struct {
	gate *camerashoetest.Sim
	cam  *simcam.CameraShoe
	r    *visiontest.Renderer // the camera's renderer, closed with the shoe
	rng  *rand.Rand

	mu      sync.Mutex
	stack   []readershoetest.Item
	notRead int
}

// openSimCamera builds the simulated camera shoe and the daemon's side of it: the GPIO driver on
// the simulated pins, and a recognizer calibrated on a rendered calibration pass of deck (cached
// beside the journal, as a technician's profile would be).
func openSimCamera(ctx context.Context, deck, stateDir string, seed uint64, log *slog.Logger) (*simCameraShoe, *cameraShoe, error) {
	r, err := visiontest.NewRenderer(deck)
	if err != nil {
		return nil, nil, fmt.Errorf("simulated camera: %w (sabot vision render --list shows the designs)", err)
	}
	profPath := filepath.Join(stateDir, "sim-vision-"+deck+".json")
	prof, err := calibration.LoadVision(profPath)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			log.Warn("the simulated camera's profile is unusable; calibrating again", "path", profPath, "err", err)
		}
		log.Info("calibrating the simulated camera on a rendered pass of the deck (once)", "deck", deck)
		// As a technician would, pass the deck again when a calibration frame is unusable.
		// A stop meanwhile ends the pass between two frames.
		for pass := uint64(1); pass <= 5; pass++ {
			if prof, err = simcam.Calibrate(ctx, r, rand.New(rand.NewPCG(pass, 17)), "sim-shoe-reader"); err == nil || ctx.Err() != nil {
				break
			}
			log.Warn("calibration pass unusable; passing the deck again", "err", err)
		}
		if err != nil {
			r.Close()
			return nil, nil, fmt.Errorf("simulated camera: calibrating %s: %w", deck, err)
		}
		if err := calibration.SaveVision(profPath, prof); err != nil {
			log.Warn("cannot cache the simulated camera's profile", "err", err)
		}
	}
	if err := ctx.Err(); err != nil { // each step takes a fraction of a second: a stop is heard between them
		r.Close()
		return nil, nil, err
	}
	rec, err := cv.New(prof, vision.Shoe)
	if err == nil {
		err = ctx.Err()
		if err != nil {
			rec.Close()
		}
	}
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	cam, err := simcam.NewCameraShoe(r, simCameraFPS, seed)
	if err != nil {
		rec.Close()
		r.Close()
		return nil, nil, err
	}
	pins := camerashoetest.NewSim()
	gate, err := camerashoe.New(pins.Pins(), camerashoe.Opts{Logger: log})
	if err != nil {
		cam.Close()
		rec.Close()
		r.Close()
		return nil, nil, err
	}
	sim := &simCameraShoe{gate: pins, cam: cam, r: r, rng: rand.New(rand.NewPCG(seed, 23))}
	return sim, newCameraShoe(gate, cv.NewReader(cam, rec), log), nil
}

func (s *simCameraShoe) Load(stack []readershoetest.Item) {
	s.mu.Lock()
	s.stack = append(s.stack, stack...)
	s.mu.Unlock()
}

func (s *simCameraShoe) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.stack)
}

// SetBurnMode: a camera shoe has no burn mode; the table knows when it burns.
func (s *simCameraShoe) SetBurnMode(bool) {}

// NotRead makes the next n cards come out face down: the reader sees their backs.
func (s *simCameraShoe) NotRead(n int) {
	s.mu.Lock()
	s.notRead += n
	s.mu.Unlock()
}

// DrawItem slides the next card out: it blocks the gate, crosses the camera's window (its
// frames are rendered and read), and clears the gate. It returns ctx's error when ctx ends
// first: the daemon's camera loop stops reading frames when it stops, and nothing else would
// end the wait for them.
func (s *simCameraShoe) DrawItem(ctx context.Context) (readershoetest.Item, error) {
	s.mu.Lock()
	if len(s.stack) == 0 {
		s.mu.Unlock()
		return readershoetest.Item{}, readershoetest.ErrEmpty
	}
	it := s.stack[0]
	s.stack = s.stack[1:]
	sub := visiontest.CardSubject(it.Card)
	switch {
	case it.Cut:
		sub = visiontest.CutSubject(visiontest.RandomCut(s.rng))
	case s.notRead > 0:
		s.notRead--
		sub = visiontest.Subject{Token: "BACK"}
	}
	s.mu.Unlock()
	frame := time.Second / simCameraFPS
	s.gate.Block()
	err := s.cross(ctx, sub, frame)
	s.gate.Clear()
	if err == nil {
		err = pause(ctx, 2*frame)
	}
	if err != nil {
		return readershoetest.Item{}, err
	}
	return it, nil
}

// cross passes the card through the camera's window, its frames taken by the daemon.
func (s *simCameraShoe) cross(ctx context.Context, sub visiontest.Subject, frame time.Duration) error {
	if err := pause(ctx, 2*frame); err != nil { // the gate's edge reaches the daemon before the card's frames
		return err
	}
	s.cam.Pass(sub)
	for s.cam.Pending() > 0 {
		if err := pause(ctx, frame/4); err != nil {
			return err
		}
	}
	return pause(ctx, 3*frame) // the last frame is captured and stamped before the gate clears
}

// pause waits d, or until ctx is done (its error).
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *simCameraShoe) Unload() []card.Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []card.Card
	for _, it := range s.stack {
		if !it.Cut {
			out = append(out, it.Card)
		}
	}
	s.stack = nil
	return out
}

// Close releases the renderer; the daemon's cameraShoe closes the camera (first: devices.Close)
// and the GPIO.
func (s *simCameraShoe) Close() error { return s.r.Close() }
