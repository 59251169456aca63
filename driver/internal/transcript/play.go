package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Port is the device end of a line for playback: Read returns 0, nil after a quiet spell (like
// go.bug.st/serial with a read timeout, or ptyline with SetReadTimeout).
type Port interface {
	io.Reader
	io.Writer
}

// Player plays the device's side of a transcript strictly: it expects the host's bytes exactly as
// recorded and answers with the device's recorded bytes. Wait fails if the host sent anything
// else, or if a step was not used.
type Player struct {
	steps []Step // consecutive steps in one direction merged
	mu    sync.Mutex
	pos   int
	err   error
	done  chan struct{}
	stop  chan struct{}
}

// Merge joins consecutive steps in the same direction: how the bytes were cut into reads and
// writes is not part of the protocol.
func Merge(steps []Step) []Step {
	var out []Step
	for _, s := range steps {
		if n := len(out); n > 0 && out[n-1].Out == s.Out {
			out[n-1].Data = append(out[n-1].Data, s.Data...)
			continue
		}
		out = append(out, Step{At: s.At, Out: s.Out, Data: append([]byte(nil), s.Data...)})
	}
	return out
}

// Play starts playing steps on port.
func Play(port Port, steps []Step, stepTimeout time.Duration) *Player {
	p := &Player{steps: Merge(steps), done: make(chan struct{}), stop: make(chan struct{})}
	go p.run(port, stepTimeout)
	return p
}

func (p *Player) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

func (p *Player) run(port Port, stepTimeout time.Duration) {
	defer close(p.done)
	buf := make([]byte, 4096)
	var got []byte
	for i, s := range p.steps {
		p.mu.Lock()
		p.pos = i
		p.mu.Unlock()
		if !s.Out {
			if _, err := port.Write(s.Data); err != nil {
				p.fail(fmt.Errorf("transcript: step %d: writing: %w", i+1, err))
				return
			}
			continue
		}
		deadline := time.Now().Add(stepTimeout)
		for len(got) < len(s.Data) {
			select {
			case <-p.stop:
				p.fail(fmt.Errorf("transcript: stopped at step %d of %d: host bytes % x expected", i+1, len(p.steps), s.Data))
				return
			default:
			}
			if time.Now().After(deadline) {
				p.fail(fmt.Errorf("transcript: step %d of %d: host sent % x, then nothing for %v; expected % x", i+1, len(p.steps), got, stepTimeout, s.Data))
				return
			}
			n, err := port.Read(buf)
			if err != nil {
				p.fail(fmt.Errorf("transcript: step %d: reading: %w", i+1, err))
				return
			}
			got = append(got, buf[:n]...)
		}
		if !bytes.Equal(got[:len(s.Data)], s.Data) {
			p.fail(fmt.Errorf("transcript: step %d of %d: host sent\n  % x\nexpected\n  % x", i+1, len(p.steps), got[:len(s.Data)], s.Data))
			return
		}
		got = got[len(s.Data):]
	}
	p.mu.Lock()
	p.pos = len(p.steps)
	p.mu.Unlock()
	if len(got) > 0 {
		p.fail(fmt.Errorf("transcript: host sent % x after the last step", got))
	}
}

// ErrUnused is wrapped when a transcript ends with steps the host never reached.
var ErrUnused = errors.New("transcript: steps not used")

// Wait waits up to d for every step to be played and returns the first failure.
func (p *Player) Wait(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		close(p.stop)
		<-p.done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	if p.pos < len(p.steps) {
		return fmt.Errorf("%w: %d of %d played", ErrUnused, p.pos, len(p.steps))
	}
	return nil
}
