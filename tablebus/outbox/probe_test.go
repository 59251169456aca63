package outbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus/access"
	"github.com/sabot-tables/sabot/tablebus/brokerconf"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// TestProbe runs the start-up probe on a mosquitto with the site's ACL: the table's own account
// passes; a daemon given another account (the ACL denies its publishes, and MQTT 3.1.1 still
// acknowledges them) is told so.
func TestProbe(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	specs := []brokerconf.Spec{
		{Account: access.Account{Name: "T1", Role: access.Table}, Password: "t1"},
		{Account: access.Account{Name: "display.D1", Role: access.Display}, Password: "d1"},
	}
	if err := brokerconf.Write(dir, brokerconf.Config{Dir: dir, Listen: "127.0.0.1:1883", Persistence: dir}, specs); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{brokerconf.ACLFile, brokerconf.PasswdFile} {
		os.Chmod(filepath.Join(dir, f), 0o644)
	}
	conf, _ := os.ReadFile(filepath.Join(dir, brokerconf.ConfFile))
	cfg := strings.Replace(string(conf), "listener 1883 127.0.0.1", "listener {{port}} 127.0.0.1", 1)
	cfg = strings.Replace(cfg, "persistence true", "persistence false", 1)
	br := mosquittotest.Start(t, mosquittotest.Options{Config: cfg})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, c := range []struct {
		user, pw string
		ok       bool
	}{{"T1", "t1", true}, {"display.D1", "d1", false}} {
		j, err := journal.Open(filepath.Join(t.TempDir(), "T1.db"), "T1")
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		ob := outbox.New(j, 1, nil)
		cl, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "sabotd-" + c.user, Username: c.user, Password: c.pw})
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		// The good accounts' round trips get time on a loaded machine; the refused fail at once.
		wait := time.Second
		if c.ok {
			wait = 10 * time.Second
		}
		err = ob.Probe(ctx, cl, wait)
		if c.ok && err != nil {
			t.Errorf("%s: %v", c.user, err)
		}
		if !c.ok && !errors.Is(err, outbox.ErrProbe) {
			t.Errorf("%s: the probe passed an account that may not publish the table's feed: %v", c.user, err)
		}
	}
}
