package brokerconf_test

import (
	"context"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus/access"
	"github.com/sabot-tables/sabot/tablebus/brokerconf"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// TestMutualTLS runs mosquitto with the configuration and certificates sabot broker-config
// makes: the client certificate's common name is the account, and the ACL follows it.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	pers := filepath.Join(dir, "db")
	os.Mkdir(pers, 0o777)
	accts := []brokerconf.Spec{
		{Account: access.Account{Name: "T1", Role: access.Table}},
		{Account: access.Account{Name: "engine.E1", Role: access.Engine}},
		{Account: access.Account{Name: "display.D1", Role: access.Display}},
	}
	if err := brokerconf.Write(dir, brokerconf.Config{Dir: dir, Listen: "127.0.0.1:8883", TLS: true, Persistence: pers}, accts); err != nil {
		t.Fatal(err)
	}
	if err := brokerconf.MakeCA(dir, "Sabot test CA"); err != nil {
		t.Fatal(err)
	}
	if err := brokerconf.MakeCert(dir, "server", "broker", true, []string{"127.0.0.1", "localhost"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range accts {
		if err := brokerconf.MakeCert(dir, a.Name, a.Name, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(dir, "server.key"), 0o644) // mosquitto reads it as its own user, in a test
	conf, _ := os.ReadFile(filepath.Join(dir, brokerconf.ConfFile))
	br := mosquittotest.Start(t, mosquittotest.Options{Config: strings.Replace(string(conf), "listener 8883 127.0.0.1", "listener {{port}} 127.0.0.1", 1)})
	url := "ssl://" + br.Addr

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn := func(name string) *mqttbus.Client {
		tc, err := brokerconf.ClientTLS(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := mqttbus.Connect(ctx, mqttbus.Options{URL: url, ClientID: "tls-" + name, TLS: tc, FailFast: true})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, br.Log())
		}
		t.Cleanup(c.Close)
		return c
	}
	var mu sync.Mutex
	got := map[string][]string{}
	marked := map[string]chan struct{}{}
	for _, name := range []string{"engine.E1", "display.D1"} {
		marked[name] = make(chan struct{})
		err := conn(name).Subscribe(ctx, "sabot/v1/+/+/events", 1, func(m mqttbus.Message) {
			if string(m.Payload) == "marker" {
				close(marked[name])
				return
			}
			mu.Lock()
			got[name] = append(got[name], m.Topic)
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// One connection's messages are delivered in order: once the marker, which both may read,
	// has arrived, so has whatever of the two events each was let read.
	t1 := conn("T1")
	for _, m := range []struct{ topic, payload string }{
		{"sabot/v1/T1/secure/events", "x"}, {"sabot/v1/T1/public/events", "x"}, {"sabot/v1/T1/public/events", "marker"},
	} {
		if err := t1.Publish(ctx, m.topic, []byte(m.payload), 1, false); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range marked {
		select {
		case <-c:
		case <-ctx.Done():
			t.Fatalf("%s never received the marker", name)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got["engine.E1"])
	if !slices.Equal(got["engine.E1"], []string{"sabot/v1/T1/public/events", "sabot/v1/T1/secure/events"}) || !slices.Equal(got["display.D1"], []string{"sabot/v1/T1/public/events"}) {
		t.Fatalf("received %v", got)
	}
	// Without a certificate: refused.
	if _, err := mqttbus.Connect(ctx, mqttbus.Options{URL: url, ClientID: "nocert", FailFast: true}); err == nil {
		t.Fatal("a client without a certificate connected")
	}
}

func TestCheckPersistence(t *testing.T) {
	conf := []byte("persistence true\npersistence_location /var/lib/sabot-mqtt/\n")
	if got := brokerconf.Persistence(conf); got != "/var/lib/sabot-mqtt/" {
		t.Fatalf("persistence location %q", got)
	}
	if got := brokerconf.Persistence([]byte("persistence false\n")); got != "" {
		t.Fatalf("persistence off: %q", got)
	}
	if err := brokerconf.CheckPersistence("/nonexistent/sabot", "mosquitto"); err == nil {
		t.Fatal("a missing directory passed")
	}
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		if err := brokerconf.CheckPersistence(dir, "mosquitto"); err != nil {
			t.Fatal(err)
		}
		return
	}
	u, err := user.Lookup("mosquitto")
	if err != nil {
		t.Skip("no mosquitto user to check against")
	}
	os.Chmod(dir, 0o755) // root's, not writable by mosquitto: every save would fail
	if err := brokerconf.CheckPersistence(dir, "mosquitto"); err == nil || !strings.Contains(err.Error(), "not writable by mosquitto") {
		t.Fatalf("a root-owned directory: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	if err := os.Chown(dir, uid, -1); err != nil {
		t.Fatal(err)
	}
	if err := brokerconf.CheckPersistence(dir, "mosquitto"); err != nil {
		t.Fatalf("mosquitto's own directory: %v", err)
	}
}
