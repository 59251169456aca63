package broker_test

import (
	"context"
	"net"
	"testing"
	"time"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/sabot-tables/sabot/tablebus/access"
	"github.com/sabot-tables/sabot/tablebus/broker"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// TestHalfOpenConnection: a connection that never sends CONNECT is closed by the broker after
// the connect timeout, so it cannot hold Close (mochi v2.7.9 waits for it forever), while a
// real client stays connected past it.
func TestHalfOpenConnection(t *testing.T) {
	b, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", ConnectTimeout: 300 * time.Millisecond, Anonymous: []access.Role{access.Display}})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := net.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mqttbus.Connect(ctx, mqttbus.Options{URL: b.URL(), ClientID: "display", FailFast: true})
	if err != nil {
		t.Fatal(err)
	}
	raw.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := raw.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("the half-open connection was not closed by the broker: %v", err)
	}
	if !c.Connected() {
		t.Fatal("a real client was cut at the connect timeout")
	}
	c.Close()
	done := make(chan error, 1)
	go func() { done <- b.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestAnonymousRefused: with no anonymous roles, a client without an account is refused.
func TestAnonymousRefused(t *testing.T) {
	b, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := mqttbus.Connect(ctx, mqttbus.Options{URL: b.URL(), ClientID: "anon", FailFast: true}); err == nil {
		t.Fatal("an anonymous client connected")
	}
}

// slowRouting sleeps between a QoS 1 publish's PUBACK and its routing to the subscribers,
// which mochi v2.7.9 does in that order: it makes the race below happen every time.
type slowRouting struct{ mqtt.HookBase }

func (slowRouting) ID() string                                 { return "slow-routing" }
func (slowRouting) Provides(b byte) bool                       { return b == mqtt.OnQosComplete }
func (slowRouting) OnQosComplete(*mqtt.Client, packets.Packet) { time.Sleep(200 * time.Millisecond) }

// TestCloseDeliversLastPublish: a message whose PUBACK the publisher holds when the broker is
// closed reaches the subscribers before the broker closes (a stopping daemon's offline status:
// TestStopOnSignal saw it lost in CI).
func TestCloseDeliversLastPublish(t *testing.T) {
	b, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", Anonymous: []access.Role{access.Surveillance, access.Dealer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.AddHook(&slowRouting{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub, err := mqttbus.Connect(ctx, mqttbus.Options{URL: b.URL(), ClientID: "surveillance", FailFast: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	got := make(chan string, 1)
	if err := sub.Subscribe(ctx, "sabot/v1/T1/cmd", 1, func(m mqttbus.Message) { got <- string(m.Payload) }); err != nil {
		t.Fatal(err)
	}
	pub, err := mqttbus.Connect(ctx, mqttbus.Options{URL: b.URL(), ClientID: "dealer", FailFast: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if err := pub.Publish(ctx, "sabot/v1/T1/cmd", []byte("last"), 1, false); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != "last" {
			t.Fatalf("the subscriber got %q, want %q", m, "last")
		}
	default:
		t.Fatal("the broker closed before the last message reached its subscriber")
	}
}
