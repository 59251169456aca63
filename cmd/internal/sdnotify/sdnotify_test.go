package sdnotify

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// listen opens a datagram socket like systemd's and returns what arrives on it.
func listen(t *testing.T, name string) (*net.UnixConn, func() string) {
	t.Helper()
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, func() string {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b := make([]byte, 4096)
		n, err := c.Read(b)
		if err != nil {
			t.Fatal(err)
		}
		return string(b[:n])
	}
}

func TestNotify(t *testing.T) {
	for _, sock := range []string{filepath.Join(t.TempDir(), "notify"), "@sabot-test-" + strconv.Itoa(os.Getpid())} {
		t.Run(sock, func(t *testing.T) {
			_, recv := listen(t, strings.Replace(sock, "@", "\x00", 1))
			t.Setenv("NOTIFY_SOCKET", sock)
			n, err := FromEnv()
			if err != nil {
				t.Fatal(err)
			}
			if err := n.Notify(Ready, Status("table T1:\n in round 42")); err != nil {
				t.Fatal(err)
			}
			if got, want := recv(), "READY=1\nSTATUS=table T1: in round 42"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestNotifierErrors(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	n, err := FromEnv()
	if n != nil || err != nil {
		t.Fatalf("no NOTIFY_SOCKET: %v, %v", n, err)
	}
	if err := n.Notify(Ready); err != nil {
		t.Errorf("a nil notifier: %v", err)
	}
	for _, bad := range []string{"relative/path", "@"} {
		if _, err := New(bad); err == nil || !strings.Contains(err.Error(), "neither an absolute path") {
			t.Errorf("New(%q): %v", bad, err)
		}
	}
	gone, _ := New(filepath.Join(t.TempDir(), "nobody"))
	if err := gone.Notify(Ready); err == nil || !strings.HasPrefix(err.Error(), "sdnotify: ") {
		t.Errorf("a socket nobody listens on: %v", err)
	}
}

func TestWatchdogInterval(t *testing.T) {
	me := strconv.Itoa(os.Getpid())
	tests := []struct {
		name, usec, pid string
		want            time.Duration
		on              bool
		err             string
	}{
		{"off", "", "", 0, false, ""},
		{"on", "30000000", "", 30 * time.Second, true, ""},
		{"on for us", "10000000", me, 10 * time.Second, true, ""},
		{"for another process", "10000000", "1", 0, false, ""},
		{"malformed", "30s", "", 0, false, `WATCHDOG_USEC="30s" is not a positive number`},
		{"zero", "0", "", 0, false, "not a positive number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("WATCHDOG_USEC", tc.usec)
			t.Setenv("WATCHDOG_PID", tc.pid)
			got, on, err := WatchdogInterval()
			if got != tc.want || on != tc.on || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v %v %v, want %v %v %q", got, on, err, tc.want, tc.on, tc.err)
			}
		})
	}
}

// recorder is a Sender that keeps what it was sent, with the fake time.
type recorder struct {
	mu   sync.Mutex
	sent []string
	t0   time.Time
}

func (r *recorder) Notify(states ...string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, time.Since(r.t0).String()+" "+strings.Join(states, " | "))
	return nil
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

// TestWatchdog: pings while the loop beats; a bounded busy period is not a stall; a loop that
// stops beating stops the pings and triggers the watchdog; a loop alive again pings again.
func TestWatchdog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{t0: time.Now()}
		var stalls []string
		w := NewWatchdog(10*time.Second, rec, nil)
		w.OnStall = func(name, why string, stalled bool) {
			stalls = append(stalls, name+" "+strconv.FormatBool(stalled)+" "+why)
		}
		shoe := w.Heartbeat("shoe loop", 30*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { w.Run(ctx); close(done) }()

		step := func(d time.Duration) { time.Sleep(d); synctest.Wait() }
		// 0 s to 20 s: the loop beats every 5 s.
		for range 4 {
			step(5 * time.Second)
			shoe.Beat()
		}
		// A shuffle of up to 6 minutes starts at 20 s: no beat, no stall.
		shoe.Busy("shuffler: shuffle", 6*time.Minute)
		step(5 * time.Minute)
		shoe.Beat()
		// Then the loop hangs: 30 s after its last beat it is stalled.
		step(45 * time.Second)
		pings := func(from, to time.Duration) []string {
			var out []string
			for d := from; d <= to; d += 10 * time.Second {
				out = append(out, d.String()+" WATCHDOG=1")
			}
			return out
		}
		check := func(want []string) {
			t.Helper()
			if got := rec.take(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		// Pings every 10 s up to 5m50s; the last beat was at 5m20s, so at 6m0s it is stale.
		check(append(pings(0, 5*time.Minute+50*time.Second),
			"6m0s STATUS=stalled: shoe loop: no sign of life for 40s (at most 30s allowed) | WATCHDOG=trigger"))
		// Alive again at 6m5s: pings resume.
		shoe.Beat()
		step(10 * time.Second)
		check([]string{"6m10s WATCHDOG=1"})
		// A busy period that overruns is a stall too: 1 minute from 6m15s.
		shoe.Busy("shuffler: shuffle", time.Minute)
		step(70 * time.Second)
		check(append(pings(6*time.Minute+20*time.Second, 7*time.Minute+10*time.Second),
			"7m20s STATUS=stalled: shoe loop: shuffler: shuffle did not end within 1m0s | WATCHDOG=trigger"))
		cancel()
		<-done
		wantStalls := []string{
			"shoe loop true shoe loop: no sign of life for 40s (at most 30s allowed)",
			"shoe loop false ",
			"shoe loop true shoe loop: shuffler: shuffle did not end within 1m0s",
		}
		if strings.Join(stalls, "\n") != strings.Join(wantStalls, "\n") {
			t.Errorf("stalls:\n%s\nwant:\n%s", strings.Join(stalls, "\n"), strings.Join(wantStalls, "\n"))
		}
	})
}
