package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/driver/camerashoe"
	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
	"log/slog"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/driver/readershoe"
	"github.com/sabot-tables/sabot/driver/shuffler"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
)

// devices are the table's devices as the daemon uses them, real or simulated.
type devices struct {
	shuffler *shufflerAdapter
	reader   *readershoe.Dev // a reading shoe, or
	camera   *cameraShoe     // a camera shoe
	sim      *simTable       // nil for real devices
}

// shufflerAdapter gives the shoe loop what it needs of driver/shuffler.
type shufflerAdapter struct{ dev *shuffler.Dev }

var _ shoe.Shuffler = (*shufflerAdapter)(nil)

func (a *shufflerAdapter) LoadVerify(ctx context.Context) (card.Counts, error) {
	return a.dev.LoadVerify(ctx)
}

func (a *shufflerAdapter) Shuffle(ctx context.Context, decks int) (int, error) {
	mode := shuffler.Batch
	if decks == 1 {
		mode = shuffler.DeckPerRound // RULES.md §1: the poker deck is shuffled before every round
	}
	// The order stays inside the shuffler: never asked for (RULES.md §1 "Shuffle").
	r, err := a.dev.Shuffle(ctx, shuffler.Program{Decks: decks, Mode: mode})
	return r.Cards, err
}

func (a *shufflerAdapter) Count(ctx context.Context) (card.Counts, error) { return a.dev.Count(ctx) }

func openDevices(ctx context.Context, o *options, proc shoe.Procedure, log *slog.Logger) (*devices, error) {
	d := &devices{}
	shufPort, shoePort := o.shufflerPort, o.shoePort
	if o.sim {
		sim, err := newSimTable(ctx, o, proc, log)
		if err != nil {
			return nil, err
		}
		d.sim = sim
		shufPort, shoePort, d.camera = sim.shuffler.Port(), sim.shoePort, sim.camera
		log.Info("simulated devices", "shuffler", shufPort, "shoe", o.shoeKind, "port", shoePort)
	}
	if o.shufflerKind == "sabot" { // none, csm: no shuffler's link
		sd, err := shuffler.Open(shufPort, shuffler.Opts{Logger: log})
		if err != nil {
			d.Close()
			return nil, err
		}
		d.shuffler = &shufflerAdapter{dev: sd}
	} else {
		log.Info("no shuffler's link: the dealer attests the cards at the terminal, and passes the cards left through the shoe at the count", "shuffler", o.shufflerKind)
	}
	switch {
	case d.camera != nil:
	case o.shoeKind == "camera":
		cam, err := openCamera(o, log)
		if err != nil {
			d.Close()
			return nil, err
		}
		d.camera = cam
	default:
		rd, err := readershoe.Open(shoePort, readershoe.Opts{Logger: log})
		if err != nil {
			d.Close()
			return nil, err
		}
		d.reader = rd
	}
	return d, nil
}

// openCamera opens a real camera shoe: its GPIO pins by name and its reader camera, read with
// the technician's vision profile (sabot calibrate vision).
func openCamera(o *options, log *slog.Logger) (*cameraShoe, error) {
	prof, err := calibration.LoadVision(o.visionProfile)
	if err != nil {
		return nil, err
	}
	rec, err := cv.New(prof, vision.Shoe)
	if err != nil {
		return nil, err
	}
	src, err := cv.OpenDevice(o.camera, cv.DeviceOptions{})
	if err != nil {
		rec.Close()
		return nil, err
	}
	gate, err := camerashoe.OpenByName(camerashoe.Names{Exit: o.gpio.exit, Lid: o.gpio.lid, Confirm: o.gpio.confirm,
		Manual: o.gpio.manual, Void: o.gpio.void, LED: o.gpio.led}, camerashoe.Opts{Logger: log})
	if err != nil {
		src.Close()
		rec.Close()
		return nil, err
	}
	return newCameraShoe(gate, cv.NewReader(src, rec), log), nil
}

// readShoe turns every read of the shoe into an input of the shoe loop.
func (d *devices) readShoe(ctx context.Context, loop *shoe.Loop, log *slog.Logger) error {
	if d.camera != nil {
		return d.camera.run(ctx, loop)
	}
	for {
		r, err := d.reader.Next(ctx)
		if ctx.Err() != nil || errors.Is(err, readershoe.ErrHalted) || errors.Is(err, readershoe.ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		in := shoeInput(r)
		if in == nil {
			log.Info("shoe", "read", r.String())
			continue
		}
		if r.Kind == readershoe.Malformed || r.Kind == readershoe.LinkDown {
			log.Warn("shoe", "read", r.String())
		}
		if err := loop.Do(ctx, in); err != nil && ctx.Err() == nil {
			log.Warn("shoe read refused", "read", r.String(), "err", err)
		}
	}
}

// watchShuffler turns the shuffler's own events (a jam, the door opened, a misfeed, a count
// mismatch, the link) into device faults: the shoe machine holds the round where one is in
// progress (RULES.md §1 "Faults").
func (d *devices) watchShuffler(ctx context.Context, loop *shoe.Loop, log *slog.Logger) error {
	if d.shuffler == nil {
		return nil
	}
	for {
		var ev shuffler.Event
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-d.shuffler.dev.Events():
			if !ok {
				return nil
			}
			ev = e
		}
		var code, detail string
		switch ev.Kind {
		case shuffler.Jam:
			code, detail = "jam", fmt.Sprintf("the shuffler jammed after %d cards", ev.Cards)
		case shuffler.DoorOpen:
			code, detail = "door-open", "the shuffler's door was opened"
		case shuffler.Misfeed:
			code, detail = "misfeed", fmt.Sprintf("the shuffler misfed after %d cards", ev.Cards)
		case shuffler.CountMismatch:
			code, detail = "count-mismatch", fmt.Sprintf("the shuffler counted %d cards, expected %d", ev.Cards, ev.Expected)
		case shuffler.LinkDown:
			code, detail = "shuffler-link", fmt.Sprintf("the shuffler's serial link went down: %v", ev.Err)
		default:
			log.Info("shuffler", "event", ev.Kind.String())
			continue
		}
		log.Warn("shuffler fault", "code", code, "detail", detail)
		if err := loop.Do(ctx, shoe.DeviceFault{Device: "shuffler", Code: code, Detail: detail, Time: time.Now()}); err != nil && ctx.Err() == nil {
			log.Warn("shuffler fault refused", "err", err)
		}
	}
}

// shoeInput maps a read of the reading shoe to a shoe input; nil for what is only logged.
func shoeInput(r readershoe.Read) shoe.Input {
	at := r.At
	burn := r.Mode == readershoe.Burn
	switch r.Kind {
	case readershoe.Card:
		return shoe.Read{Kind: shoe.ReadCard, Card: r.Card, BurnMode: burn, Time: at}
	case readershoe.Cut:
		return shoe.Read{Kind: shoe.ReadCut, Time: at}
	case readershoe.Unreadable:
		return shoe.Read{Kind: shoe.ReadUnreadable, BurnMode: burn, Detail: "the shoe could not read the card", Time: at}
	case readershoe.Malformed:
		// The protocol has no checksum: a damaged line is never turned into a card. It may have
		// been one, so it holds the round like a misread (RULES.md §1).
		return shoe.Read{Kind: shoe.ReadUnreadable, Detail: "damaged line from the shoe", Raw: fmt.Sprintf("%q", r.Raw), Time: at}
	case readershoe.Alarm:
		return shoe.DeviceFault{Device: "shoe", Code: "shoe-alarm", Detail: strings.TrimSpace(r.Code + " " + r.Text), Time: at}
	case readershoe.LinkDown:
		return shoe.DeviceFault{Device: "shoe", Code: "shoe-link", Detail: fmt.Sprintf("the shoe's serial link went down (%v); a card drawn meanwhile may be lost", r.Err), Time: at}
	}
	return nil
}

// Halt leaves every device inert: the shuffler's motors stopped, the camera shoe's pins
// released and its LED off.
func (d *devices) Halt() {
	if d.shuffler != nil {
		d.shuffler.dev.Halt()
	}
	if d.camera != nil {
		d.camera.gate.Halt()
	}
}

// Close closes the ports and stops the simulators.
func (d *devices) Close() {
	if d.shuffler != nil {
		d.shuffler.dev.Close()
	}
	if d.reader != nil {
		d.reader.Close()
	}
	if d.camera != nil {
		d.camera.Close()
	}
	if d.sim != nil {
		d.sim.Close()
	}
}
