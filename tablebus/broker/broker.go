// Package broker embeds a real MQTT broker, mochi-mqtt/server v2, in the daemon: `make run` and
// a table without a site broker use it; a site runs mosquitto (README "Configuration").
//
// Known limits of mochi v2.7.9 (../../../shared/research/mqtt.md §3.3) and how Sabot lives with them:
//   - a subscriber more than 8,192 QoS 1 messages behind loses messages silently: the table's
//     sequence numbers reveal the gap and the consumer asks for a replay from the journal;
//   - Close can hang on a connection that never sent CONNECT: Close gives up after a deadline;
//   - its ACL ledger allows by default: any ACL configured here ends with a deny-all rule.
package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
)

// Broker is a running embedded broker.
type Broker struct {
	s    *mqtt.Server
	addr string
	log  *slog.Logger
}

// Options configures the broker.
type Options struct {
	// Addr is the TCP address to listen on, e.g. "127.0.0.1:1883"; port 0 picks a free port.
	Addr   string
	Logger *slog.Logger
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
	caps := mqtt.NewDefaultServerCapabilities()
	caps.MaximumMessageExpiryInterval = 0 // retained status must not expire after a day
	// mochi logs every connection at INFO; the daemon's log keeps its warnings and errors.
	s := mqtt.New(&mqtt.Options{
		Capabilities: caps,
		Logger:       slog.New(levelHandler{o.Logger.Handler().WithAttrs([]slog.Attr{slog.String("component", "broker")}), slog.LevelWarn}),
	})
	if err := s.AddHook(new(auth.AllowHook), nil); err != nil {
		ln.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	if err := s.AddListener(listeners.NewNet("sabot", ln)); err != nil {
		ln.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	if err := s.Serve(); err != nil {
		ln.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	return &Broker{s: s, addr: ln.Addr().String(), log: o.Logger}, nil
}

// Addr returns the address the broker listens on.
func (b *Broker) Addr() string { return b.addr }

// URL returns the broker's URL for clients: tcp://host:port.
func (b *Broker) URL() string { return "tcp://" + b.addr }

// String describes the broker.
func (b *Broker) String() string { return "embedded MQTT broker on " + b.addr }

// Close stops the broker, waiting at most two seconds (mochi can hang on half-open connections).
func (b *Broker) Close() error {
	done := make(chan error, 1)
	go func() { done <- b.s.Close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Second):
		return errors.New("broker: close timed out (a half-open connection); abandoned")
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
