package sdnotify

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Notification states (sd_notify(3)).
const (
	Ready           = "READY=1"
	Stopping        = "STOPPING=1"
	Reloading       = "RELOADING=1"
	WatchdogPing    = "WATCHDOG=1"
	WatchdogTrigger = "WATCHDOG=trigger"
)

// Status returns the STATUS= line: one line of free text that `systemctl status` shows.
func Status(s string) string {
	return "STATUS=" + strings.Join(strings.Fields(s), " ")
}

// Notifier sends notifications to the service manager. A nil *Notifier (not run by systemd)
// sends nothing and returns no error.
type Notifier struct {
	addr *net.UnixAddr
}

// FromEnv returns the notifier of $NOTIFY_SOCKET, or nil when it is unset.
func FromEnv() (*Notifier, error) {
	s := os.Getenv("NOTIFY_SOCKET")
	if s == "" {
		return nil, nil
	}
	return New(s)
}

// New returns a notifier for a socket: an absolute path, or "@name" for an abstract socket.
func New(socket string) (*Notifier, error) {
	switch {
	case strings.HasPrefix(socket, "@") && len(socket) > 1:
	case strings.HasPrefix(socket, "/"):
	default:
		return nil, fmt.Errorf("sdnotify: NOTIFY_SOCKET %q is neither an absolute path nor an @abstract name", socket)
	}
	return &Notifier{addr: &net.UnixAddr{Name: socket, Net: "unixgram"}}, nil
}

// String names the socket.
func (n *Notifier) String() string {
	if n == nil {
		return "no service manager"
	}
	return "sd_notify on " + n.addr.Name
}

// Notify sends the states in one datagram.
func (n *Notifier) Notify(states ...string) error {
	if n == nil || len(states) == 0 {
		return nil
	}
	c, err := net.DialUnix("unixgram", nil, n.addr)
	if err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(strings.Join(states, "\n"))); err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	return nil
}

// WatchdogInterval returns how often systemd wants WATCHDOG=1 ($WATCHDOG_USEC) and whether its
// watchdog is on for this process ($WATCHDOG_PID, when set, must be our pid). A malformed
// value is an error: the daemon would otherwise be killed for pings it never knew to send.
func WatchdogInterval() (time.Duration, bool, error) {
	us := os.Getenv("WATCHDOG_USEC")
	if us == "" {
		return 0, false, nil
	}
	if pid := os.Getenv("WATCHDOG_PID"); pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return 0, false, nil
	}
	n, err := strconv.ParseUint(us, 10, 63)
	if err != nil || n == 0 {
		return 0, false, fmt.Errorf("sdnotify: WATCHDOG_USEC=%q is not a positive number of microseconds", us)
	}
	return time.Duration(n) * time.Microsecond, true, nil
}
