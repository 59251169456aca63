package shuffler_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/driver/internal/ptyline"
	"github.com/sabot-tables/sabot/driver/shuffler"
)

// fakeDevice answers the driver's SYNC, then writes what the test gives it and returns what the
// driver sent back.
type fakeDevice struct {
	line *ptyline.Line
	sc   shuffler.Scanner
}

func (f *fakeDevice) frames(t *testing.T, d time.Duration) []shuffler.Frame {
	t.Helper()
	var out []shuffler.Frame
	buf := make([]byte, 512)
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		n, err := f.line.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		f.sc.Write(buf[:n])
		for {
			it, ok := f.sc.Next()
			if !ok {
				break
			}
			if it.Skipped == 0 && it.Err == nil {
				out = append(out, it.Frame)
			}
		}
	}
	return out
}

func (f *fakeDevice) send(fr shuffler.Frame) {
	b, _ := shuffler.AppendFrame(nil, fr)
	f.line.Write(b)
}

// TestBadInputFromTheDevice: garbage, a frame with a bad CRC and a frame of an unknown kind each
// give a LinkError event (and a log line); the bad CRC and the unknown frame are NAKed with the
// right reason; the driver goes on working.
func TestBadInputFromTheDevice(t *testing.T) {
	line, err := ptyline.New("ttyFake", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer line.Close()
	line.SetReadTimeout(20 * time.Millisecond)
	f := &fakeDevice{line: line}
	type opened struct {
		dev *shuffler.Dev
		err error
	}
	oc := make(chan opened, 1)
	go func() {
		d, err := shuffler.Open(line.Path(), shuffler.Opts{AckTimeout: time.Second})
		oc <- opened{d, err}
	}()
	// Answer SYNC by hand: ACK, then the reply, which the driver ACKs.
	var sync shuffler.Frame
	for got := false; !got; {
		for _, fr := range f.frames(t, 100*time.Millisecond) {
			if fr.Cmd == shuffler.CmdSync {
				sync, got = fr, true
			}
		}
	}
	f.send(shuffler.Frame{Seq: sync.Seq, Cmd: shuffler.CmdAck})
	f.send(shuffler.Frame{Seq: 1, Cmd: shuffler.CmdSync | shuffler.ReplyBit, Payload: []byte{sync.Seq}})
	o := <-oc
	if o.err != nil {
		t.Fatal(o.err)
	}
	dev := o.dev
	defer dev.Close()
	f.frames(t, 50*time.Millisecond) // the ACK of the reply

	line.Write([]byte("hello, shuffler"))
	bad, _ := shuffler.AppendFrame(nil, shuffler.Frame{Seq: 2, Cmd: shuffler.EvJam, Payload: []byte{0, 1}})
	bad[len(bad)-2] ^= 0xff // CRC
	line.Write(bad)
	f.send(shuffler.Frame{Seq: 3, Cmd: 0x3f})                         // no such frame
	f.send(shuffler.Frame{Seq: 4, Cmd: shuffler.EvJam, Payload: nil}) // a jam event without its count
	back := f.frames(t, 200*time.Millisecond)
	var naks []string
	for _, fr := range back {
		if fr.Cmd == shuffler.CmdNak {
			naks = append(naks, string(rune('0'+fr.Seq))+":"+shuffler.NakReason(fr.Payload[0]).String())
		}
	}
	if want := []string{"2:bad CRC", "3:unknown command"}; len(naks) != 2 || naks[0] != want[0] || naks[1] != want[1] {
		t.Fatalf("NAKs %v, want %v", naks, want)
	}
	var errs []string
	timeout := time.After(300 * time.Millisecond)
collect:
	for {
		select {
		case e := <-dev.Events():
			if e.Kind != shuffler.LinkError {
				t.Fatalf("event %v", e)
			}
			errs = append(errs, e.Err.Error())
		case <-timeout:
			break collect
		}
	}
	// Each problem is reported, in order (the damaged frame also leaves a few stray bytes).
	wants := []string{"garbage", "bad CRC", "unexpected frame", "too short"}
	k := 0
	for _, e := range errs {
		if k < len(wants) && bytes.Contains([]byte(e), []byte(wants[k])) {
			k++
		}
	}
	if k != len(wants) {
		t.Fatalf("events %q, want %q in order", errs, wants)
	}
	// Still working: a STATUS goes out and is answered.
	sc := make(chan error, 1)
	go func() {
		_, err := dev.Status(context.Background())
		sc <- err
	}()
	var st shuffler.Frame
	for st.Cmd != shuffler.CmdStatus {
		for _, fr := range f.frames(t, 50*time.Millisecond) {
			if fr.Cmd == shuffler.CmdStatus {
				st = fr
			}
		}
	}
	f.send(shuffler.Frame{Seq: st.Seq, Cmd: shuffler.CmdAck})
	f.send(shuffler.Frame{Seq: 5, Cmd: shuffler.CmdStatus | shuffler.ReplyBit, Payload: shuffler.AppendStatus([]byte{st.Seq}, shuffler.Status{})})
	if err := <-sc; err != nil {
		t.Fatal(err)
	}
	// A reply that is not for the command asked: an error, not a silent success.
	ec := make(chan error, 1)
	go func() {
		_, err := dev.Unload(context.Background())
		ec <- err
	}()
	var un shuffler.Frame
	for un.Cmd != shuffler.CmdUnload {
		for _, fr := range f.frames(t, 50*time.Millisecond) {
			if fr.Cmd == shuffler.CmdUnload {
				un = fr
			}
		}
	}
	f.send(shuffler.Frame{Seq: un.Seq, Cmd: shuffler.CmdAck})
	f.send(shuffler.Frame{Seq: 6, Cmd: shuffler.CmdCount | shuffler.ReplyBit, Payload: []byte{un.Seq}})
	if err := <-ec; !errors.Is(err, shuffler.ErrPayload) {
		t.Fatalf("a COUNT reply to UNLOAD: %v", err)
	}
}
