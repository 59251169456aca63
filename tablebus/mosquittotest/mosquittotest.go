// Package mosquittotest starts a real mosquitto broker (Debian's package) on a free loopback
// port for tests, and stops it: the end-to-end tests run against the broker a site runs, not a
// stand-in.
package mosquittotest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Broker is a running mosquitto.
type Broker struct {
	Addr string // 127.0.0.1:port
	Dir  string // its directory: config, persistence, log
	cmd  *exec.Cmd
	log  *lockedBuffer
	conf string
}

// lockedBuffer is mosquitto's log: written by exec's copying goroutine, read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// URL returns tcp://addr.
func (b *Broker) URL() string { return "tcp://" + b.Addr }

// Options configure the broker.
type Options struct {
	// Extra lines appended to mosquitto.conf (ACLs, queue limits, persistence).
	Extra string
	// Port to listen on; 0 picks a free one.
	Port int
	// Config, when set, is the whole mosquitto.conf instead of the default one (which allows
	// anonymous clients without ACLs), with {{port}} standing for the port: a test of the
	// configuration sabot broker-config writes.
	Config string
}

// Start starts mosquitto for the test and stops it when the test ends. It skips nothing: a
// machine without mosquitto fails the test with the command that installs it.
func Start(t testing.TB, o Options) *Broker {
	t.Helper()
	bin, err := exec.LookPath("mosquitto")
	if err != nil {
		for _, p := range []string{"/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"} {
			if _, err2 := os.Stat(p); err2 == nil {
				bin, err = p, nil
			}
		}
	}
	if err != nil {
		t.Fatalf("mosquitto is not installed: run `make deps` (apt-get install mosquitto)")
	}
	port := o.Port
	if port == 0 {
		port = FreePort(t)
	}
	b := &Broker{Addr: fmt.Sprintf("127.0.0.1:%d", port), Dir: t.TempDir(), log: &lockedBuffer{}}
	b.conf = filepath.Join(b.Dir, "mosquitto.conf")
	// log_type subscribe: each subscription is a line of the log, which Subscribed reads.
	const logs = "log_dest stderr\nlog_type error\nlog_type warning\nlog_type subscribe\n"
	conf := fmt.Sprintf("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n%s%s\n", port, logs, o.Extra)
	if o.Config != "" {
		conf = strings.ReplaceAll(o.Config, "{{port}}", strconv.Itoa(port)) + "\n" + logs + o.Extra + "\n"
	}
	if err := os.WriteFile(b.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	b.start(t, bin)
	t.Cleanup(func() { b.Stop() })
	return b
}

func (b *Broker) start(t testing.TB, bin string) {
	t.Helper()
	b.cmd = exec.Command(bin, "-c", b.conf)
	b.cmd.Dir = b.Dir
	// A test killed by its timeout takes its broker with it.
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	b.cmd.Stdout, b.cmd.Stderr = b.log, b.log
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("starting mosquitto: %v", err)
	}
	// A loaded machine (the whole suite on two cores) can take seconds to start a process.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", b.Addr, 100*time.Millisecond); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Stop()
	t.Fatalf("mosquitto did not listen on %s: %s", b.Addr, b.log)
}

// Stop stops the broker (SIGTERM), waiting for it to exit.
func (b *Broker) Stop() {
	if b.cmd == nil || b.cmd.Process == nil {
		return
	}
	b.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
	b.cmd = nil
}

// Kill stops the broker with SIGKILL: whatever it had not saved is lost.
func (b *Broker) Kill() {
	if b.cmd == nil || b.cmd.Process == nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGKILL)
	b.cmd.Wait()
	b.cmd = nil
}

// Start starts a stopped broker again on the same port with the same configuration.
func (b *Broker) Start(t testing.TB) {
	t.Helper()
	if b.cmd != nil {
		t.Fatal("mosquittotest: the broker is running")
	}
	bin, _ := exec.LookPath("mosquitto")
	if bin == "" {
		bin = "/usr/sbin/mosquitto"
	}
	b.start(t, bin)
}

// Restart starts the broker again on the same port with the same configuration.
func (b *Broker) Restart(t testing.TB) {
	t.Helper()
	b.Stop()
	bin, _ := exec.LookPath("mosquitto")
	if bin == "" {
		bin = "/usr/sbin/mosquitto"
	}
	b.start(t, bin)
}

// Log returns what mosquitto wrote.
func (b *Broker) Log() string { return b.log.String() }

// Subscribed reports whether the client clientID has subscribed to filter since the broker was
// started by the test (mosquitto logs "<time>: <client> <qos> <filter>" for each).
func (b *Broker) Subscribed(clientID, filter string) bool {
	return regexp.MustCompile(`(?m)^\d+: ` + regexp.QuoteMeta(clientID) + ` [012] ` + regexp.QuoteMeta(filter) + `$`).MatchString(b.Log())
}

// WaitSubscribed waits until the client clientID has subscribed to filter, or fails the test
// after limit: a test that needs a consumer listening waits for that, not for some time.
func (b *Broker) WaitSubscribed(t testing.TB, clientID, filter string, limit time.Duration) {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !b.Subscribed(clientID, filter) {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("mosquittotest: %s has not subscribed to %s after %v; the broker's log:\n%s", clientID, filter, limit, b.Log())
		}
	}
}

// FreePort returns a TCP port free on 127.0.0.1 now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Pid returns the running broker's process id (0 when stopped), for a test that measures it.
func (b *Broker) Pid() int {
	if b.cmd == nil || b.cmd.Process == nil {
		return 0
	}
	return b.cmd.Process.Pid
}
