package access_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus/access"
	"github.com/sabot-tables/sabot/tablebus/broker"
	"github.com/sabot-tables/sabot/tablebus/brokerconf"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

func TestAllowed(t *testing.T) {
	t1 := access.Account{Name: "T1", Role: access.Table}
	eng := access.Account{Name: "engine.E1", Role: access.Engine}
	sur := access.Account{Name: "surveillance.S1", Role: access.Surveillance}
	disp := access.Account{Name: "display.D1", Role: access.Display}
	dealer := access.Account{Name: "dealer.D1", Role: access.Dealer}
	anonDisp := access.Account{Role: access.Display}
	prog := access.Account{Name: "progressive.P1", Role: access.Progressive}
	tests := []struct {
		a     access.Account
		topic string
		write bool
		want  bool
	}{
		{t1, "sabot/v1/T1/secure/events", true, true},
		{t1, "sabot/v1/T1/public/status", true, true},
		{t1, "sabot/v1/T2/secure/events", true, false},
		{t1, "sabot/v1/T1/cmd", true, false},
		{t1, "sabot/v1/T1/cmd", false, true},
		{t1, "sabot/v1/T1/ack/engine.E1", false, true},
		{t1, "sabot/v1/T1/ack/engine.E1", true, false},
		{t1, "sabot/v1/T1/secure/probe", false, true},
		{t1, "sabot/v1/T1/public/status", false, true},
		{t1, "sabot/v1/T2/public/status", false, false},
		{t1, "sabot/v1/T1/secure/events", false, false},
		{t1, "sabot/v1/T2/cmd", false, false},
		{eng, "sabot/v1/T1/secure/events", false, true},
		{eng, "sabot/v1/+/secure/events", false, true},
		{eng, "sabot/v1/T1/secure/events", true, false},
		{eng, "sabot/v1/T1/public/events", true, false},
		{eng, "sabot/v1/T1/secure/engine/engine.E1", true, true},
		{eng, "sabot/v1/T1/secure/engine/engine.E2", true, false},
		{eng, "sabot/v1/T1/ack/engine.E1", true, true},
		{eng, "sabot/v1/T1/ack/engine.E2", true, false},
		{eng, "sabot/v1/T1/cmd", true, false},
		{sur, "sabot/v1/#", false, true},
		{sur, "sabot/v1/T1/secure/events", true, false},
		{disp, "sabot/v1/T1/public/events", false, true},
		{disp, "sabot/v1/+/public/#", false, true},
		{disp, "sabot/v1/T1/secure/events", false, false},
		{disp, "sabot/v1/+/secure/#", false, false}, // a display reads nothing secure
		{disp, "sabot/v1/T1/public/events", true, false},
		{disp, "sabot/v1/T1/secure/events", true, false},
		{disp, "sabot/v1/T1/replay/display.D1", true, true},
		{disp, "sabot/v1/display.D1/public/events", true, false}, // no feed-shaped topic under its own name (review finding)
		{dealer, "sabot/v1/T1/cmd", true, true},
		{dealer, "sabot/v1/T1/secure/events", false, false},
		{dealer, "sabot/v1/T1/public/events", true, false},
		{anonDisp, "sabot/v1/T1/public/events", false, true},
		{anonDisp, "sabot/v1/T1/replay/", true, false},
		{anonDisp, "sabot/v1/T1/public/events", true, false},
		{access.Account{Name: "T1/#", Role: access.Table}, "sabot/v1/T1/x/secure/events", true, false},
		{eng, "sabot/v1/T1/secure/#", true, false},
		// The progressive controller: reads the feeds, writes its tree, the awards, its acks;
		// never a table's events. The tables and the displays read the pools.
		{prog, "sabot/v1/+/secure/events", false, true},
		{prog, "sabot/v1/progressive/meter/arica", true, true},
		{prog, "sabot/v1/progressive/status/arica", true, true},
		{prog, "sabot/v1/T1/progressive/award", true, true},
		{prog, "sabot/v1/T1/ack/progressive.P1", true, true},
		{prog, "sabot/v1/T1/ack/engine.E1", true, false},
		{prog, "sabot/v1/T1/secure/events", true, false},
		{prog, "sabot/v1/T1/public/status", true, false},
		{prog, "sabot/v1/T1/cmd", true, false},
		{t1, "sabot/v1/T1/progressive/award", false, true},
		{t1, "sabot/v1/T2/progressive/award", false, false},
		{t1, "sabot/v1/T1/progressive/award", true, false},
		{t1, "sabot/v1/progressive/status/arica", false, true},
		{t1, "sabot/v1/progressive/meter/arica", true, false},
		{disp, "sabot/v1/progressive/meter/arica", false, true},
		{disp, "sabot/v1/progressive/meter/arica", true, false},
		{disp, "sabot/v1/T1/progressive/award", false, false},
		{eng, "", false, false},
	}
	for _, tc := range tests {
		if got := tc.a.Allowed(tc.topic, tc.write); got != tc.want {
			t.Errorf("%s %s write=%v: %v, want %v", tc.a.Name, tc.topic, tc.write, got, tc.want)
		}
	}
}

func TestPassword(t *testing.T) {
	// Written by mosquitto_passwd 2.0.11 for alice:secret.
	const line = "alice:$7$101$B6PBop5w8gewfBC+$HdXNb9cusMCHPdufINc/4qCX0LM4MOWGqF9/QL2v1I81OxIM0OZOJXsOFaf/F2lpsscFVBtLO5Yd+8K34gbGww=="
	m, err := access.ParsePasswd([]byte("# comment\n" + line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !access.CheckPassword(m["alice"], "secret") || access.CheckPassword(m["alice"], "Secret") {
		t.Fatal("mosquitto's hash not checked right")
	}
	h, err := access.HashPassword("pw")
	if err != nil || !strings.HasPrefix(h, "$7$101$") || !access.CheckPassword(h, "pw") || access.CheckPassword(h, "px") {
		t.Fatalf("hash %q %v", h, err)
	}
}

// The accounts of the broker tests, with their passwords.
var specs = []brokerconf.Spec{
	{Account: access.Account{Name: "T1", Role: access.Table}, Password: "t1pw"},
	{Account: access.Account{Name: "T2", Role: access.Table}, Password: "t2pw"},
	{Account: access.Account{Name: "engine.E1", Role: access.Engine}, Password: "e1pw"},
	{Account: access.Account{Name: "surveillance.S1", Role: access.Surveillance}, Password: "s1pw"},
	{Account: access.Account{Name: "display.D1", Role: access.Display}, Password: "d1pw"},
	{Account: access.Account{Name: "dealer.D1", Role: access.Dealer}, Password: "dealerpw"},
}

func password(name string) string {
	for _, s := range specs {
		if s.Name == name {
			return s.Password
		}
	}
	return ""
}

// received collects what an account receives.
type received struct {
	mu   sync.Mutex
	got  []string
	more chan struct{} // a message since the last look
}

func (r *received) add(m mqttbus.Message) {
	r.mu.Lock()
	r.got = append(r.got, m.Topic+" "+string(m.Payload))
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

// list returns what was received, sorted, without the test's markers.
func (r *received) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, g := range r.got {
		if !strings.HasSuffix(g, " "+marker) {
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

// marker is the payload of the messages that say what came before them has arrived.
const marker = "marker"

// waitMarker waits until r has received the marker on topic, or fails.
func (r *received) waitMarker(t *testing.T, ctx context.Context, who, topic string) {
	t.Helper()
	for {
		r.mu.Lock()
		ok := slices.Contains(r.got, topic+" "+marker)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.more:
		case <-ctx.Done():
			t.Fatalf("%s never received the marker on %s", who, topic)
		}
	}
}

// checkBroker runs the same scenario against a broker at url: who receives what, and which
// publishes are dropped.
func checkBroker(t *testing.T, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := 0
	connect := func(name string) *mqttbus.Client {
		n++
		c, err := mqttbus.Connect(ctx, mqttbus.Options{URL: url, ClientID: fmt.Sprintf("test-%s-%d", name, n), Username: name, Password: password(name), FailFast: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(c.Close)
		return c
	}
	watchers := map[string]*received{}
	for _, w := range []struct{ name, filter string }{
		{"surveillance.S1", "sabot/v1/#"},
		{"display.D1", "sabot/v1/#"}, // asks for everything, gets the public feed only
		{"engine.E1", "sabot/v1/+/secure/events"},
		{"T1", "sabot/v1/T1/ack/+"},
	} {
		r := &received{more: make(chan struct{}, 1)}
		watchers[w.name] = r
		// Subscribe returns once the broker has acknowledged the subscription.
		if err := connect(w.name).Subscribe(ctx, w.filter, 1, r.add); err != nil {
			// The embedded broker refuses a subscription no grant overlaps; mosquitto accepts
			// it and delivers nothing.
			t.Logf("%s: subscribe %s: %v", w.name, w.filter, err)
		}
	}
	// Each account publishes on one connection of its own: the broker takes one connection's
	// messages in order.
	publishers := map[string]*mqttbus.Client{}
	publish := func(name, topic, payload string) {
		if publishers[name] == nil {
			publishers[name] = connect(name)
		}
		if err := publishers[name].Publish(ctx, topic, []byte(payload), 0, false); err != nil {
			t.Fatalf("%s publishing %s: %v", name, topic, err)
		}
	}
	publish("T1", "sabot/v1/T1/secure/events", "card")
	publish("T1", "sabot/v1/T1/public/events", "hidden")
	publish("T1", "sabot/v1/T2/secure/events", "T1 forging T2")
	publish("display.D1", "sabot/v1/T1/secure/events", "display forging a card")
	publish("display.D1", "sabot/v1/T1/public/events", "display forging a public card")
	publish("engine.E1", "sabot/v1/T1/secure/events", "engine forging a card")
	publish("engine.E1", "sabot/v1/T1/ack/engine.E1", "ack")
	publish("engine.E1", "sabot/v1/T1/ack/surveillance.S1", "engine forging another's ack")
	publish("dealer.D1", "sabot/v1/T1/cmd", "cut")
	// Nothing more to wait for once the broker has routed every message and each watcher has
	// received what was routed to it: first each publisher's marker on a topic it may write and
	// surveillance reads (the broker has then routed all that publisher sent before it), then a
	// marker to each other watcher (which then has what was routed to it before).
	for name, topic := range map[string]string{"T1": "sabot/v1/T1/public/status", "display.D1": "sabot/v1/T1/replay/display.D1",
		"engine.E1": "sabot/v1/T1/replay/engine.E1", "dealer.D1": "sabot/v1/T1/cmd"} {
		publish(name, topic, marker)
		watchers["surveillance.S1"].waitMarker(t, ctx, "surveillance.S1", topic)
	}
	for _, m := range []struct{ watcher, from, topic string }{
		{"display.D1", "T1", "sabot/v1/T1/public/events"},
		{"engine.E1", "T1", "sabot/v1/T1/secure/events"},
		{"T1", "engine.E1", "sabot/v1/T1/ack/engine.E1"},
	} {
		publish(m.from, m.topic, marker)
		watchers[m.watcher].waitMarker(t, ctx, m.watcher, m.topic)
	}
	want := map[string][]string{
		"surveillance.S1": {"sabot/v1/T1/ack/engine.E1 ack", "sabot/v1/T1/cmd cut", "sabot/v1/T1/public/events hidden", "sabot/v1/T1/secure/events card"},
		"display.D1":      {"sabot/v1/T1/public/events hidden"},
		"engine.E1":       {"sabot/v1/T1/secure/events card"},
		"T1":              {"sabot/v1/T1/ack/engine.E1 ack"},
	}
	for name, w := range want {
		if got := watchers[name].list(); !slices.Equal(got, w) {
			t.Errorf("%s received %q, want %q", name, got, w)
		}
	}
	// A wrong password is refused.
	if _, err := mqttbus.Connect(ctx, mqttbus.Options{URL: url, ClientID: "bad", Username: "display.D1", Password: "nope", FailFast: true}); err == nil {
		t.Error("a wrong password was accepted")
	}
}

// TestMosquittoACL runs the accounts and ACLs sabot broker-config writes on a real mosquitto.
func TestMosquittoACL(t *testing.T) {
	dir := t.TempDir()
	pers := filepath.Join(dir, "db")
	if err := os.Mkdir(pers, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755) // mosquitto reads its files as the user mosquitto
	if err := brokerconf.Write(dir, brokerconf.Config{Dir: dir, Listen: "127.0.0.1:1883", Persistence: pers}, specs); err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile(filepath.Join(dir, brokerconf.ConfFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{brokerconf.ACLFile, brokerconf.PasswdFile} {
		os.Chmod(filepath.Join(dir, f), 0o644) // mosquitto reads them as its own user
	}
	test := strings.Replace(string(conf), "listener 1883 127.0.0.1", "listener {{port}} 127.0.0.1", 1)
	br := mosquittotest.Start(t, mosquittotest.Options{Config: test})
	checkBroker(t, br.URL())
	if t.Failed() {
		t.Logf("mosquitto.conf:\n%s\nlog:\n%s", test, br.Log())
	}
}

// TestEmbeddedACL runs the same accounts on the embedded broker.
func TestEmbeddedACL(t *testing.T) {
	var accts []broker.Account
	for _, s := range specs {
		h, err := access.HashPassword(s.Password)
		if err != nil {
			t.Fatal(err)
		}
		accts = append(accts, broker.Account{Account: s.Account, Hash: h})
	}
	b, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", Accounts: accts})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	checkBroker(t, b.URL())
}

func TestMosquittoACLFile(t *testing.T) {
	var accts []access.Account
	for _, s := range specs {
		accts = append(accts, s.Account)
	}
	got, err := access.MosquittoACL(accts)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "acl.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the ACL file changed (go test -update to accept):\n%s", got)
	}
	if _, err := access.MosquittoACL([]access.Account{{Name: "E1", Role: access.Engine}}); err == nil {
		t.Error("an engine account without the engine. prefix was accepted")
	}

}

var update = flag.Bool("update", false, "rewrite the golden files")
