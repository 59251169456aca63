package broker_test

import (
	"context"
	"net"
	"testing"
	"time"

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
