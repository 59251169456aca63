// Package mqttbus connects Sabot to an MQTT broker through paho.mqtt.golang. It is the only
// package that imports paho: everything else sees a context-first Client.
//
// paho's publish token completes when the message is handed over, even after a reconnect that
// merely queued it again, so a completed Publish is not proof of delivery (see
// ../../../shared/research/mqtt.md §2); delivery is made certain by the journal and the
// consumers' sequence numbers, above this package.
package mqttbus

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// Message is one received message.
type Message struct {
	Topic    string
	Payload  []byte
	Retained bool
}

// Will is the message the broker publishes when the connection dies (the daemon's death).
type Will struct {
	Topic   string
	Payload []byte
	Retain  bool
}

// Options configures a Client.
type Options struct {
	URL      string // tcp://host:port, ssl://host:port
	ClientID string
	Username string
	Password string
	TLS      *tls.Config
	Will     *Will
	// NextWill, when set, gives the will of each connection attempt (it replaces Will): the
	// daemon's death message names the connection it belongs to (Sparkplug's bdSeq).
	NextWill func() *Will
	// OnConnect runs after every (re)connection, after subscriptions are renewed; the daemon
	// publishes its birth message there. It must not block.
	OnConnect func(*Client)
	// FailFast makes Connect return the first failure instead of retrying (command-line
	// tools that should say at once that the broker is not there).
	FailFast bool
	Logger   *slog.Logger
}

// Client is a connection to a broker that reconnects by itself.
type Client struct {
	c    paho.Client
	opts Options
	log  *slog.Logger

	mu   sync.Mutex
	subs map[string]*sub
}

type sub struct {
	qos byte
	h   func(Message)
	q   chan Message
}

// queueLen bounds each subscription's queue between paho's callback and the handler.
const queueLen = 4096

// Connect connects to the broker, retrying with backoff (and saying so in the log) until it
// succeeds or ctx is done. Once connected, the client reconnects by itself.
func Connect(ctx context.Context, o Options) (*Client, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	cl := &Client{opts: o, log: o.Logger.With("broker", o.URL), subs: map[string]*sub{}}
	po := paho.NewClientOptions().
		AddBroker(o.URL).
		SetClientID(o.ClientID).
		SetUsername(o.Username).
		SetPassword(o.Password).
		SetCleanSession(true).
		SetOrderMatters(true).
		SetKeepAlive(10 * time.Second).
		SetConnectTimeout(5 * time.Second).
		SetAutoReconnect(true).
		SetMaxReconnectInterval(10 * time.Second).
		SetConnectRetry(false)
	if o.TLS != nil {
		po.SetTLSConfig(o.TLS)
	}
	if o.NextWill != nil {
		o.Will = o.NextWill()
	}
	if o.Will != nil {
		po.SetBinaryWill(o.Will.Topic, o.Will.Payload, 1, o.Will.Retain)
	}
	po.SetOnConnectHandler(func(paho.Client) { cl.onConnect() })
	po.SetConnectionLostHandler(func(_ paho.Client, err error) {
		cl.log.Warn("mqtt connection lost; reconnecting", "err", err)
	})
	po.SetReconnectingHandler(func(_ paho.Client, po *paho.ClientOptions) {
		cl.log.Info("mqtt reconnecting")
		if o.NextWill != nil {
			if w := o.NextWill(); w != nil {
				po.SetBinaryWill(w.Topic, w.Payload, 1, w.Retain)
			}
		}
	})
	cl.c = paho.NewClient(po)
	backoff := 500 * time.Millisecond
	for {
		tok := cl.c.Connect()
		err := wait(ctx, tok, 10*time.Second)
		if err == nil {
			return cl, nil
		}
		if ctx.Err() != nil {
			cl.c.Disconnect(0) // paho's attempt goes on without us (and reconnects) otherwise
			return nil, fmt.Errorf("mqtt: connecting to %s: %w", o.URL, ctx.Err())
		}
		if o.FailFast {
			cl.c.Disconnect(0)
			return nil, fmt.Errorf("mqtt: cannot connect to %s: %w", o.URL, err)
		}
		cl.log.Warn(fmt.Sprintf("mqtt: cannot connect to %s: %v; retrying in %v", o.URL, err, backoff))
		select {
		case <-ctx.Done():
			cl.c.Disconnect(0)
			return nil, fmt.Errorf("mqtt: connecting to %s: %w (last error: %v)", o.URL, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 15*time.Second)
	}
}

func (c *Client) onConnect() {
	c.mu.Lock()
	for filter, s := range c.subs {
		c.c.Subscribe(filter, s.qos, c.deliver(s))
	}
	c.mu.Unlock()
	c.log.Info("mqtt connected")
	if c.opts.OnConnect != nil {
		c.opts.OnConnect(c)
	}
}

// wait waits for a token, the context, or the timeout.
func wait(ctx context.Context, tok paho.Token, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-tok.Done():
		return tok.Error()
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errors.New("timed out")
	}
}

// String names the connection.
func (c *Client) String() string { return "mqtt " + c.opts.URL + " as " + c.opts.ClientID }

// Connected reports whether the connection is up now.
func (c *Client) Connected() bool { return c.c.IsConnectionOpen() }

// Publish publishes one message and waits until paho has handed it to the broker (QoS 1: the
// broker's PUBACK, or a requeue across a reconnect; see the package comment).
func (c *Client) Publish(ctx context.Context, topic string, payload []byte, qos byte, retain bool) error {
	tok := c.c.Publish(topic, qos, retain, payload)
	if err := wait(ctx, tok, 30*time.Second); err != nil {
		return fmt.Errorf("mqtt: publish %s: %w", topic, err)
	}
	return nil
}

// Pending is a publish in flight (PublishAsync).
type Pending struct {
	tok   paho.Token
	topic string
}

// PublishAsync starts publishing one message and returns at once; messages started one after
// the other leave in that order on the connection.
func (c *Client) PublishAsync(topic string, payload []byte, qos byte, retain bool) *Pending {
	return &Pending{tok: c.c.Publish(topic, qos, retain, payload), topic: topic}
}

// Wait waits until paho has handed the message to the broker (see Publish).
func (p *Pending) Wait(ctx context.Context) error {
	if err := wait(ctx, p.tok, 30*time.Second); err != nil {
		return fmt.Errorf("mqtt: publish %s: %w", p.topic, err)
	}
	return nil
}

// Subscribe calls h for every message on filter, one at a time and in arrival order, until ctx
// is done or the client closes. paho's callback only queues the message; if h falls more than
// 4096 messages behind, messages are dropped and logged (the sequence numbers reveal the gap).
func (c *Client) Subscribe(ctx context.Context, filter string, qos byte, h func(Message)) error {
	s := &sub{qos: qos, h: h, q: make(chan Message, queueLen)}
	c.mu.Lock()
	if _, dup := c.subs[filter]; dup {
		c.mu.Unlock()
		return fmt.Errorf("mqtt: already subscribed to %s", filter)
	}
	c.subs[filter] = s
	c.mu.Unlock()
	if err := wait(ctx, c.c.Subscribe(filter, qos, c.deliver(s)), 10*time.Second); err != nil {
		c.mu.Lock()
		delete(c.subs, filter)
		c.mu.Unlock()
		return fmt.Errorf("mqtt: subscribe %s: %w", filter, err)
	}
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.subs, filter)
			c.mu.Unlock()
			c.c.Unsubscribe(filter)
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case m := <-s.q:
				h(m)
			}
		}
	}()
	return nil
}

func (c *Client) deliver(s *sub) paho.MessageHandler {
	return func(_ paho.Client, m paho.Message) {
		msg := Message{Topic: m.Topic(), Payload: append([]byte(nil), m.Payload()...), Retained: m.Retained()}
		select {
		case s.q <- msg:
		default:
			c.log.Error("mqtt: subscriber queue full; message dropped", "topic", msg.Topic)
		}
	}
}

// Close disconnects, waiting at most a quarter of a second for work in flight.
func (c *Client) Close() {
	c.c.Disconnect(250)
}
