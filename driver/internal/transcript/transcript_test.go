package transcript

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestWriteParseRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, "shuffler", "/dev/ttyUSB0")
	w.Out([]byte{0x02, 0x00, 0x02, 0x00, 0x00, 0xea, 0xa0, 0x03})
	w.Note("link down: unplugged")
	w.In([]byte{0x02, 0x00})
	w.In(nil) // nothing is written for no bytes
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || lines[0] != "# sabot transcript v1 shuffler /dev/ttyUSB0" || !strings.HasSuffix(lines[1], " > 02 00 02 00 00 ea a0 03") ||
		!strings.Contains(lines[2], " link down: unplugged") || !strings.HasSuffix(lines[3], " < 02 00") {
		t.Fatalf("transcript:\n%s", b.String())
	}
	steps, err := Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || !steps[0].Out || steps[1].Out || !bytes.Equal(steps[1].Data, []byte{0x02, 0x00}) {
		t.Fatalf("steps %+v", steps)
	}
	var nilw *Writer
	nilw.Out([]byte{1}) // a nil Writer records nothing and does not panic
	nilw.Note("x")
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"0.1 >\n",      // no bytes
		"x > 02\n",     // bad time
		"-1 > 02\n",    // negative time
		"0.1 = 02\n",   // bad direction
		"0.1 > 0g\n",   // bad hex
		"0.1 > 0\n",    // odd hex
		"0.1 > 02 0\n", // odd hex across fields
		"1e9 > 02\n",   // absurd time
	} {
		if _, err := Parse(strings.NewReader(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestMerge(t *testing.T) {
	got := Merge([]Step{{Out: true, Data: []byte{1}}, {Out: true, Data: []byte{2}}, {Data: []byte{3}}, {Out: true, Data: []byte{4}}})
	if len(got) != 3 || !bytes.Equal(got[0].Data, []byte{1, 2}) || got[1].Out || !got[2].Out {
		t.Fatalf("%+v", got)
	}
}

// TestPlayerUnused: a transcript the host stops short of fails Wait.
func TestPlayerUnused(t *testing.T) {
	r, w := newPipePort()
	p := Play(r, []Step{{Out: true, Data: []byte{1, 2}}, {Data: []byte{3}}, {Out: true, Data: []byte{4}}}, 100*time.Millisecond)
	w.in <- []byte{1, 2}
	if err := p.Wait(time.Second); err == nil || !strings.Contains(err.Error(), "step 3") {
		t.Fatalf("Wait: %v", err)
	}
	if got := <-w.out; !bytes.Equal(got, []byte{3}) {
		t.Fatalf("device wrote % x", got)
	}
}

// pipePort is a Port over channels: Read returns 0, nil after 10 ms of nothing.
type pipePort struct {
	in  chan []byte
	out chan []byte
}

func newPipePort() (*pipePort, *pipePort) {
	p := &pipePort{in: make(chan []byte, 8), out: make(chan []byte, 8)}
	return p, p
}

func (p *pipePort) Read(b []byte) (int, error) {
	select {
	case d := <-p.in:
		return copy(b, d), nil
	case <-time.After(10 * time.Millisecond):
		return 0, nil
	}
}

func (p *pipePort) Write(b []byte) (int, error) {
	p.out <- append([]byte(nil), b...)
	return len(b), nil
}

func FuzzParse(f *testing.F) {
	f.Add("# sabot transcript v1 shuffler x\n0.000019 > 02 00 02 00 00 ea a0 03\n0.000223 < 02 00\n")
	f.Fuzz(func(t *testing.T, s string) {
		steps, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		var b bytes.Buffer
		w := NewWriter(&b, "fuzz", "-")
		for _, st := range steps {
			if st.Out {
				w.Out(st.Data)
			} else {
				w.In(st.Data)
			}
		}
		again, err := Parse(&b)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(again) != len(steps) {
			t.Fatalf("%d steps, %d after a round trip", len(steps), len(again))
		}
		for i := range steps {
			if steps[i].Out != again[i].Out || !bytes.Equal(steps[i].Data, again[i].Data) {
				t.Fatalf("step %d differs", i)
			}
		}
	})
}
