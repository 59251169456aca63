// Package ptyline is the simulators' end of a serial line: a pseudo-terminal whose other end the
// real driver opens through go.bug.st/serial, reached through a stable symlink (like udev's
// /dev/serial/by-id links) so that a cable pulled and plugged back comes back at the same path,
// with byte faults (corrupted and dropped bytes) injected in either direction from a seeded RNG.
//
// It is shared by driver/shuffler/shufflertest and driver/readershoe/readershoetest and is not
// for production code.
package ptyline

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// ErrClosed is returned by Read and Write after Close.
var ErrClosed = errors.New("ptyline: closed")

// Corruption says what a corrupted byte becomes.
type Corruption uint8

const (
	// FramingError: the byte arrives as NUL, which is what Linux delivers for a byte with a UART
	// framing error when neither IGNPAR nor PARMRK is set (termios(3)): line noise that breaks
	// the stop bit, the usual way noise shows on RS-232.
	FramingError Corruption = iota
	// RandomByte: the byte is replaced by a uniformly random different byte, the harshest model
	// (noise that flips data bits and leaves the framing intact).
	RandomByte
)

// String names the corruption model.
func (c Corruption) String() string {
	switch c {
	case FramingError:
		return "framing-error"
	case RandomByte:
		return "random-byte"
	}
	return fmt.Sprintf("Corruption(%d)", uint8(c))
}

// Faults are per-byte fault probabilities for one direction of the line.
type Faults struct {
	Corrupt float64    // probability that a byte is corrupted
	Drop    float64    // probability that a byte is lost
	As      Corruption // what a corrupted byte becomes
}

// Stats counts what the line did to the bytes that crossed it.
type Stats struct {
	Written, Corrupted, Dropped, LostUnplugged int // device → host
	Received, InCorrupted, InDropped           int // host → device
}

// Line is the device end of a simulated serial line.
type Line struct {
	dir  string // temporary directory holding the symlink
	link string // the stable path the driver opens

	mu      sync.Mutex
	cond    *sync.Cond
	master  *os.File // nil while unplugged
	slave   *os.File // held open so the master never sees EIO between the driver's opens
	gen     int      // incremented at every plug
	closed  bool
	rng     *rand.Rand
	out, in Faults
	stats   Stats
	timeout time.Duration // Read returns 0, nil after this long without a byte; 0 = never
}

// New creates a plugged line whose path is a symlink called name in a fresh temporary directory.
func New(name string, seed uint64) (*Line, error) {
	dir, err := os.MkdirTemp("", "sabot-sim-")
	if err != nil {
		return nil, fmt.Errorf("ptyline: %w", err)
	}
	l := &Line{dir: dir, link: filepath.Join(dir, name), rng: rand.New(rand.NewPCG(seed, seed^0x5ab07))}
	l.cond = sync.NewCond(&l.mu)
	if err := l.plugLocked(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return l, nil
}

// Path returns the path the driver opens; it stays the same across Unplug and Plug.
func (l *Line) Path() string { return l.link }

// plugLocked opens a fresh pseudo-terminal, puts it in raw mode and points the symlink at it.
func (l *Line) plugLocked() error {
	m, s, err := pty.Open()
	if err != nil {
		return fmt.Errorf("ptyline: opening a pseudo-terminal: %w", err)
	}
	// pty.Open leaves the master in blocking mode (it calls Fd), so a Read blocked on it would
	// survive Close and the driver would never see the hang-up. A non-blocking duplicate goes
	// through the runtime poller, and Close wakes its readers.
	nfd, err := unix.Dup(int(m.Fd()))
	m.Close()
	if err != nil {
		s.Close()
		return fmt.Errorf("ptyline: %w", err)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		s.Close()
		return fmt.Errorf("ptyline: %w", err)
	}
	master := os.NewFile(uintptr(nfd), "/dev/ptmx")
	if err := makeRaw(int(s.Fd())); err != nil {
		master.Close()
		s.Close()
		return err
	}
	tmp := l.link + ".new"
	os.Remove(tmp)
	if err := os.Symlink(s.Name(), tmp); err == nil {
		err = os.Rename(tmp, l.link)
	}
	if err != nil {
		master.Close()
		s.Close()
		return fmt.Errorf("ptyline: linking %s: %w", l.link, err)
	}
	l.master, l.slave = master, s
	l.gen++
	l.cond.Broadcast()
	return nil
}

// makeRaw is cfmakeraw(3): no echo, no line editing, no CR/LF translation, 8 bits.
func makeRaw(fd int) error {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("ptyline: reading termios: %w", err)
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		return fmt.Errorf("ptyline: setting raw mode: %w", err)
	}
	return nil
}

// Unplug pulls the cable: the driver's open port hangs up and the path disappears until Plug.
// Bytes written meanwhile are lost (counted in Stats.LostUnplugged). Unplugging twice is a no-op.
func (l *Line) Unplug() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if l.master == nil {
		return nil
	}
	os.Remove(l.link)
	l.master.Close()
	l.slave.Close()
	l.master, l.slave = nil, nil
	return nil
}

// Plug plugs the cable back in: a new pseudo-terminal appears at the same path.
func (l *Line) Plug() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if l.master != nil {
		return nil
	}
	return l.plugLocked()
}

// Plugged reports whether the cable is in.
func (l *Line) Plugged() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.master != nil
}

// SetFaults sets the faults on bytes the device sends (out) and receives (in).
func (l *Line) SetFaults(out, in Faults) {
	l.mu.Lock()
	l.out, l.in = out, in
	l.mu.Unlock()
}

// Stats returns what the line has done so far.
func (l *Line) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// damageLocked applies f to p, returning the bytes that cross the line.
func (l *Line) damageLocked(p []byte, f Faults, corrupted, dropped *int) []byte {
	if f.Corrupt <= 0 && f.Drop <= 0 {
		return p
	}
	out := make([]byte, 0, len(p))
	for _, b := range p {
		if f.Drop > 0 && l.rng.Float64() < f.Drop {
			*dropped++
			continue
		}
		if f.Corrupt > 0 && l.rng.Float64() < f.Corrupt {
			*corrupted++
			switch f.As {
			case RandomByte:
				b ^= byte(1 + l.rng.IntN(255)) // never zero: always a different byte
			default:
				b = 0
			}
		}
		out = append(out, b)
	}
	return out
}

// Write sends p from the device to the driver, through the outbound faults. While unplugged the
// bytes are lost, as on a real line; Write fails only after Close.
func (l *Line) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, ErrClosed
	}
	l.stats.Written += len(p)
	m := l.master
	if m == nil {
		l.stats.LostUnplugged += len(p)
		l.mu.Unlock()
		return len(p), nil
	}
	b := l.damageLocked(p, l.out, &l.stats.Corrupted, &l.stats.Dropped)
	l.mu.Unlock()
	if _, err := m.Write(b); err != nil {
		// The cable was pulled during the write, or nobody has the port open and the
		// pseudo-terminal's buffer is full: the bytes are lost either way.
		l.mu.Lock()
		l.stats.LostUnplugged += len(p)
		l.mu.Unlock()
	}
	return len(p), nil
}

// SetReadTimeout makes Read return 0, nil after d without a byte (as go.bug.st/serial does), so
// the reader can give up a partial frame; 0 blocks for ever.
func (l *Line) SetReadTimeout(d time.Duration) {
	l.mu.Lock()
	l.timeout = d
	l.mu.Unlock()
}

// Read reads what the driver sent, through the inbound faults. It blocks across Unplug and Plug
// (a timeout still returns 0, nil while unplugged) and returns ErrClosed after Close.
func (l *Line) Read(p []byte) (int, error) {
	var deadline time.Time
	l.mu.Lock()
	if l.timeout > 0 {
		deadline = time.Now().Add(l.timeout)
	}
	l.mu.Unlock()
	for {
		l.mu.Lock()
		if l.master == nil && !l.closed && !deadline.IsZero() {
			l.mu.Unlock()
			time.Sleep(min(time.Until(deadline), 10*time.Millisecond))
			if time.Now().After(deadline) {
				return 0, nil
			}
			continue
		}
		for !l.closed && l.master == nil {
			l.cond.Wait()
		}
		if l.closed {
			l.mu.Unlock()
			return 0, ErrClosed
		}
		m, gen := l.master, l.gen
		l.mu.Unlock()

		if !deadline.IsZero() {
			m.SetReadDeadline(deadline)
		}
		n, err := m.Read(p)
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, nil
		}
		l.mu.Lock()
		if n > 0 && l.gen == gen {
			l.stats.Received += n
			b := l.damageLocked(p[:n], l.in, &l.stats.InCorrupted, &l.stats.InDropped)
			n = copy(p, b)
			l.mu.Unlock()
			if n > 0 {
				return n, nil
			}
			continue
		}
		unplugged := l.gen != gen || l.master != m
		closed := l.closed
		l.mu.Unlock()
		if closed {
			return 0, ErrClosed
		}
		if err != nil && !unplugged {
			// EIO on a master whose slave nobody holds cannot happen (we hold it), so this
			// is a real failure of the pseudo-terminal.
			return 0, fmt.Errorf("ptyline: %w", err)
		}
	}
}

// Close removes the line; the driver's port hangs up.
func (l *Line) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.master != nil {
		l.master.Close()
		l.slave.Close()
		l.master, l.slave = nil, nil
	}
	l.cond.Broadcast()
	return os.RemoveAll(l.dir)
}
