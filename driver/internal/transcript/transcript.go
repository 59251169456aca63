// Package transcript records the bytes that cross a device's serial line, and reads them back for
// playback tests (STYLE.md habit 5: record on hardware, replay in CI).
//
// A transcript is text, one chunk of bytes per line:
//
//	# sabot transcript v1 shuffler /dev/ttyUSB0
//	0.000000 > 02 00 02 00 00 ce 9c 03
//	0.004117 < 02 00 02 00 f0 61 b3 03
//
// The first field is seconds since the transcript began, the second the direction ('>' host to
// device, '<' device to host), then the bytes in hex. Lines starting with '#' are comments.
package transcript

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Writer writes a transcript. A nil *Writer records nothing.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	err   error
}

// NewWriter starts a transcript for device on port.
func NewWriter(w io.Writer, device, port string) *Writer {
	t := &Writer{w: w, start: time.Now()}
	_, t.err = fmt.Fprintf(w, "# sabot transcript v1 %s %s\n", device, port)
	return t
}

// Out records bytes sent by the host.
func (t *Writer) Out(b []byte) { t.write('>', b) }

// In records bytes received from the device.
func (t *Writer) In(b []byte) { t.write('<', b) }

// Note records a comment line (a link drop, a reconnect).
func (t *Writer) Note(s string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, "# %.6f %s\n", time.Since(t.start).Seconds(), strings.ReplaceAll(s, "\n", " "))
	}
}

func (t *Writer) write(dir byte, b []byte) {
	if t == nil || len(b) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%.6f %c", time.Since(t.start).Seconds(), dir)
	for _, x := range b {
		fmt.Fprintf(&sb, " %02x", x)
	}
	sb.WriteByte('\n')
	_, t.err = io.WriteString(t.w, sb.String())
}

// Err returns the first write error, if any.
func (t *Writer) Err() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Step is one line of a transcript.
type Step struct {
	At   time.Duration
	Out  bool // host → device
	Data []byte
}

// ErrSyntax is wrapped by Parse errors.
var ErrSyntax = errors.New("transcript: bad line")

// Parse reads a transcript. Comment lines are skipped.
func Parse(r io.Reader) ([]Step, error) {
	var steps []Step
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		f := strings.Fields(s)
		if len(f) < 3 {
			return nil, fmt.Errorf("%w %d: %q", ErrSyntax, line, s)
		}
		sec, err := strconv.ParseFloat(f[0], 64)
		if err != nil || sec < 0 || sec > 1e7 {
			return nil, fmt.Errorf("%w %d: time %q", ErrSyntax, line, f[0])
		}
		var st Step
		st.At = time.Duration(sec * float64(time.Second))
		switch f[1] {
		case ">":
			st.Out = true
		case "<":
		default:
			return nil, fmt.Errorf("%w %d: direction %q", ErrSyntax, line, f[1])
		}
		st.Data, err = hex.DecodeString(strings.Join(f[2:], ""))
		if err != nil {
			return nil, fmt.Errorf("%w %d: %v", ErrSyntax, line, err)
		}
		steps = append(steps, st)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return steps, nil
}
