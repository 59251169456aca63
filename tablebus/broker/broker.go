// Package broker embeds a real MQTT broker, mochi-mqtt/server v2, in the daemon: `make run` and
// a table without a site broker use it; a site runs mosquitto (README "Configuration").
//
// It applies the same accounts and ACLs as the site's mosquitto (package access: one list of
// grants per role), through a hook of its own that ends with a deny-all: mochi's own ledger
// allows by default. Passwords are mosquitto's "$7$" hashes, so one password file serves both.
//
// Known limits of mochi v2.7.9 (research/mqtt.md §3.3) and how Sabot lives with them:
//   - a subscriber more than 8,192 QoS 1 messages behind (MaximumInflight, and as many pending
//     writes) loses messages silently: both are raised to 65,535 here, and beyond that the
//     table's sequence numbers reveal the gap and the consumer asks for a replay;
//   - Close can hang on a connection that never sent CONNECT: every connection must send its
//     CONNECT within ten seconds (a deadline set at accept, which mochi replaces with the
//     keepalive's once connected), and Close gives up after two seconds anyway;
//   - Close can deadlock when a client disconnects at that moment (Clients.GetByListener takes
//     its read lock twice), and its wait group's Add races its Wait: the broker's own listener
//     disconnects the clients itself and orders every Add before the Wait;
//   - an MQTT 3.1.1 client whose QoS 1 publish the ACL denies is disconnected, and paho sends
//     it again after reconnecting (a poison message): the daemon publishes only where its role
//     may, and its start-up probe says so loudly otherwise;
//   - retained and in-flight messages expire after a day by default: expiry is turned off.
package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/sabot-tables/sabot/tablebus/access"
)

// Broker is a running embedded broker.
type Broker struct {
	s     *mqtt.Server
	addr  string
	log   *slog.Logger
	ln    *tcpListener
	route *routeHook
}

// Account is a broker account: a role's grants (package access) and a password hash.
type Account struct {
	access.Account
	Hash string // mosquitto "$7$" hash (access.HashPassword)
}

// Options configures the broker.
type Options struct {
	// Addr is the TCP address to listen on, e.g. "127.0.0.1:1883"; port 0 picks a free port.
	Addr   string
	Logger *slog.Logger
	// Accounts may connect with their password and get their role's grants.
	Accounts []Account
	// Anonymous are the roles of a client that gives no user name (none refuses such
	// clients). `make run` lets anonymous clients on loopback be surveillance and dealer: they
	// read everything and may send commands (which the daemon checks are signed), and, like
	// every account but the table's own, cannot publish the table's events.
	Anonymous []access.Role
	// ConnectTimeout is how long a new connection has to send CONNECT (default 10 s).
	ConnectTimeout time.Duration
}

// Start listens on o.Addr and serves MQTT until Close.
func Start(o Options) (*Broker, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("broker: cannot listen on %s: %w", o.Addr, err)
	}
	h := &aclHook{accounts: map[string]Account{}, anonymous: o.Anonymous, log: o.Logger}
	for _, a := range o.Accounts {
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("broker: %w", err)
		}
		h.accounts[a.Name] = a
	}
	for _, r := range o.Anonymous {
		if _, err := access.ParseRole(string(r)); err != nil || r == access.Table {
			return nil, fmt.Errorf("broker: anonymous clients cannot have the role %q", r)
		}
	}
	caps := mqtt.NewDefaultServerCapabilities()
	caps.MaximumMessageExpiryInterval = 0 // retained status must not expire after a day
	caps.MaximumInflight = 65535
	caps.MaximumClientWritesPending = 65536
	// A packet's claimed size is read before anything is authenticated: without a bound, one
	// connection could make the daemon allocate hundreds of MiB. The same bound as mosquitto's.
	caps.MaximumPacketSize = 131072
	// mochi logs every connection at INFO; the daemon's log keeps its warnings and errors.
	s := mqtt.New(&mqtt.Options{
		Capabilities: caps,
		Logger:       slog.New(levelHandler{o.Logger.Handler().WithAttrs([]slog.Attr{slog.String("component", "broker")}), slog.LevelWarn}),
	})
	if err := s.AddHook(h, nil); err != nil {
		ln.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	rh := &routeHook{busy: map[*mqtt.Client]bool{}}
	if err := s.AddHook(rh, nil); err != nil {
		ln.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	tl := &tcpListener{ln: ln, timeout: o.ConnectTimeout, srv: s}
	if err := s.AddListener(tl); err != nil {
		ln.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	if err := s.Serve(); err != nil {
		ln.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	return &Broker{s: s, addr: ln.Addr().String(), log: o.Logger, ln: tl, route: rh}, nil
}

// Addr returns the address the broker listens on.
func (b *Broker) Addr() string { return b.addr }

// URL returns the broker's URL for clients: tcp://host:port.
func (b *Broker) URL() string { return "tcp://" + b.addr }

// String describes the broker.
func (b *Broker) String() string { return "embedded MQTT broker on " + b.addr }

// Close stops the broker, waiting at most two seconds (mochi can hang on half-open connections).
func (b *Broker) Close() error {
	// The last messages published (a table's offline status, as its daemon stops) are queued
	// to each subscriber and written by its own goroutine: a QoS 1 delivery stays in flight
	// until the subscriber acknowledges it. Closing at once could drop them.
	b.settle(closeLinger)
	// Every connection's goroutine has entered mochi's wait group before its first read,
	// and took the gate there: taking it here orders those entries before Close's wait
	// (mochi's Add and Wait race otherwise, which the race detector reports).
	b.ln.gate.Lock()
	b.ln.gate.Unlock()
	done := make(chan error, 1)
	go func() { done <- b.s.Close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Second):
		return errors.New("broker: close timed out (a half-open connection); abandoned")
	}
}

// closeLinger bounds how long Close waits for the QoS 1 deliveries in flight to be
// acknowledged: a subscriber that does not answer within it is not waited for.
const closeLinger = time.Second

// settle waits, at most within, until no client has a publish being routed or a QoS 1
// delivery in flight.
func (b *Broker) settle(within time.Duration) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		busy := b.route.routing()
		for _, cl := range b.s.Clients.GetAll() {
			if !cl.Closed() && cl.State.Inflight.Len() > 0 {
				busy = true
				break
			}
		}
		if !busy {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// levelHandler drops records below a level.
type levelHandler struct {
	slog.Handler
	min slog.Level
}

func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h levelHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return levelHandler{h.Handler.WithAttrs(a), h.min}
}

func (h levelHandler) WithGroup(n string) slog.Handler {
	return levelHandler{h.Handler.WithGroup(n), h.min}
}

// tcpListener is the broker's listener: mochi's listeners.Net, with three changes.
//   - Each accepted connection gets a deadline, so one that never sends CONNECT cannot hold
//     the broker (mochi replaces it with the keepalive's once connected).
//   - Each connection's first read takes the gate, which Close takes too: mochi adds a
//     connection to its wait group before reading it, so this orders every Add before
//     Close's Wait (the race detector reports them otherwise).
//   - Close disconnects the clients itself: mochi's Clients.GetByListener takes its read
//     lock twice, and deadlocks when a client disconnects at that moment.
type tcpListener struct {
	srv     *mqtt.Server
	ln      net.Listener
	timeout time.Duration
	log     *slog.Logger
	gate    sync.Mutex
	mu      sync.Mutex
	end     atomic.Bool
}

func (l *tcpListener) ID() string       { return "sabot" }
func (l *tcpListener) Address() string  { return l.ln.Addr().String() }
func (l *tcpListener) Protocol() string { return l.ln.Addr().Network() }

func (l *tcpListener) Init(log *slog.Logger) error {
	l.log = log
	return nil
}

func (l *tcpListener) Serve(establish listeners.EstablishFn) {
	for !l.end.Load() {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		if l.end.Load() {
			c.Close()
			return
		}
		c.SetDeadline(time.Now().Add(l.timeout))
		go func() {
			if err := establish(l.ID(), &gatedConn{Conn: c, gate: &l.gate}); err != nil && l.log != nil {
				l.log.Warn("connection ended", "error", err)
			}
		}()
	}
}

func (l *tcpListener) Close(closeClients listeners.CloseFn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end.CompareAndSwap(false, true) {
		for _, cl := range l.srv.Clients.GetAll() {
			if cl.Net.Listener == l.ID() && !cl.Closed() {
				l.srv.DisconnectClient(cl, packets.ErrServerShuttingDown)
			}
		}
	}
	l.ln.Close()
}

// gatedConn takes the gate once, at its first read.
type gatedConn struct {
	net.Conn
	gate  *sync.Mutex
	gated bool
}

func (c *gatedConn) Read(p []byte) (int, error) {
	if !c.gated {
		c.gated = true
		c.gate.Lock()
		c.gate.Unlock()
	}
	return c.Conn.Read(p)
}

// routeHook tells which clients have a PUBLISH being processed. mochi v2.7.9 acknowledges a
// QoS 1 publish before it queues the message to the subscribers: a publisher holding its
// PUBACK (a daemon's offline status) may ask the broker to close while nothing is in flight
// yet, and the subscribers never get the message (TestStopOnSignal met it in CI).
// Each client's packets are read and processed one at a time, on its own goroutine.
type routeHook struct {
	mqtt.HookBase
	mu   sync.Mutex
	busy map[*mqtt.Client]bool
}

func (h *routeHook) ID() string { return "sabot-route" }

func (h *routeHook) Provides(b byte) bool {
	return b == mqtt.OnPacketRead || b == mqtt.OnPacketProcessed || b == mqtt.OnDisconnect
}

func (h *routeHook) OnPacketRead(cl *mqtt.Client, pk packets.Packet) (packets.Packet, error) {
	if pk.FixedHeader.Type == packets.Publish {
		h.mu.Lock()
		h.busy[cl] = true
		h.mu.Unlock()
	}
	return pk, nil
}

// OnPacketProcessed runs after the message was queued to every subscriber. A publish that
// fails validation is never processed, but then its connection ends (OnDisconnect).
func (h *routeHook) OnPacketProcessed(cl *mqtt.Client, pk packets.Packet, err error) {
	if pk.FixedHeader.Type == packets.Publish {
		h.mu.Lock()
		delete(h.busy, cl)
		h.mu.Unlock()
	}
}

func (h *routeHook) OnDisconnect(cl *mqtt.Client, err error, expire bool) {
	h.mu.Lock()
	delete(h.busy, cl)
	h.mu.Unlock()
}

// routing tells whether a publish is being processed, even on a connection closing: mochi
// calls OnDisconnect only after the connection's reading (and processing) has ended.
func (h *routeHook) routing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.busy) > 0
}

// aclHook authenticates accounts and applies their grants, denying the rest.
type aclHook struct {
	mqtt.HookBase
	accounts  map[string]Account
	anonymous []access.Role
	log       *slog.Logger
}

func (h *aclHook) ID() string { return "sabot-acl" }

func (h *aclHook) Provides(b byte) bool {
	return b == mqtt.OnConnectAuthenticate || b == mqtt.OnACLCheck
}

func (h *aclHook) OnConnectAuthenticate(cl *mqtt.Client, pk packets.Packet) bool {
	name := string(pk.Connect.Username)
	if name == "" {
		if len(h.anonymous) == 0 {
			h.log.Warn("broker: refused an anonymous client", "client", cl.ID, "remote", cl.Net.Remote)
		}
		return len(h.anonymous) > 0
	}
	a, ok := h.accounts[name]
	if !ok || !access.CheckPassword(a.Hash, string(pk.Connect.Password)) {
		h.log.Warn("broker: refused a client: unknown account or wrong password", "user", name, "remote", cl.Net.Remote)
		return false
	}
	return true
}

func (h *aclHook) OnACLCheck(cl *mqtt.Client, topic string, write bool) bool {
	name := string(cl.Properties.Username)
	ok := false
	if name == "" {
		for _, r := range h.anonymous {
			ok = ok || access.Account{Role: r}.Allowed(topic, write)
		}
	} else if a, known := h.accounts[name]; known {
		ok = a.Allowed(topic, write)
	}
	if !ok && write {
		h.log.Warn("broker: denied a publish", "user", name, "topic", topic)
	}
	return ok
}
