package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/sdnotify"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/tablebus"
)

// flagNames lists sabotd's flags, from its usage.
func flagNames(t *testing.T) []string {
	t.Helper()
	var usage bytes.Buffer
	if _, err := parseOptions([]string{"-h"}, &usage); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("sabotd -h: %v", err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(usage.String(), -1) {
		names = append(names, m[1])
	}
	if len(names) < 20 {
		t.Fatalf("only %d flags in the usage:\n%s", len(names), usage.String())
	}
	return names
}

// TestConfigExample: the example configuration documents every setting sabotd has, names no
// setting it lacks, and is a configuration sabotd accepts.
func TestConfigExample(t *testing.T) {
	b, err := os.ReadFile("sabotd.conf.example")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#? ?([a-z][a-z-]*) =`).FindAllStringSubmatch(string(b), -1) {
		documented[m[1]] = true
	}
	flags := map[string]bool{}
	for _, n := range flagNames(t) {
		flags[n] = true
		if !documented[n] && n != "config" {
			t.Errorf("setting %q is not in sabotd.conf.example: document it there", n)
		}
	}
	for n := range documented {
		if !flags[n] {
			t.Errorf("sabotd.conf.example documents %q, which sabotd does not have", n)
		}
	}
	t.Setenv("STATE_DIRECTORY", t.TempDir())
	o, err := parseOptions([]string{"--config", "sabotd.conf.example"}, new(bytes.Buffer))
	if err != nil {
		t.Fatalf("the example is refused: %v", err)
	}
	if o.table != "T1" || o.ops.http != "127.0.0.1:8080" || o.ops.logFormat != "json" || !o.quiet || o.ops.art == nil {
		t.Errorf("the example gives %+v", o)
	}
}

// TestCheckConfig runs `sabotd --check-config` on good and bad files: one clear line per problem.
func TestCheckConfig(t *testing.T) {
	t.Setenv("STATE_DIRECTORY", t.TempDir())
	t.Setenv("SABOT_MQTT_PASSWORD", "secret")
	tests := []struct {
		name, conf, err string
	}{
		{"good", "table = T7\ngame = blackjack\nrules = retiro\nsim = true\nhttp = :0\n", ""},
		{"unknown setting", "table = T7\nhtp = :8080\n", `config %s:2: unknown setting "htp" (see sabotd -h)`},
		{"bad duration", "sim = true\nwatchdog-stall = soon\n", `config %s:2: watchdog-stall: parse error`},
		{"short stall", "sim = true\nwatchdog-stall = 10ms\n", `watchdog-stall 10ms: want at least 1s`},
		{"http without a port", "sim = true\nhttp = 8080\n", `http "8080": want host:port, e.g. 127.0.0.1:8080 or :8080`},
		{"public without http", "sim = true\nhttp-public = true\n", `http-public without http`},
		{"log format", "sim = true\nlog-format = xml\n", `log format "xml": want text or json`},
		{"card art", "sim = true\nhttp = :0\ncard-art = /nonexistent.svgz\n", `floor: card art /nonexistent.svgz: no such file (install gnome-cards-data, or give another Aisleriot deck)`},
		{"unknown game", "sim = true\ngame = snap\n", `unknown game "snap"`},
		{"bad limits", "sim = true\nlimits = player=100\n", `limits: "player=100": want spot=min-max in cents`},
		{"no devices", "table = T7\n", `no shuffler: give --shuffler-port, or --sim`},
		{"camera shoe without its camera", "table = T7\nshuffler-port = /dev/ttyUSB0\nshoe = camera\n", `camera shoe: give --camera`},
		{"unknown shoe", "table = T7\nshoe = magic\n", `shoe "magic": reader or camera`},
		{"not name = value", "sim = true\nhttp\n", `config %s:2: want ` + "`name = value`" + `, got "http"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.conf")
			os.WriteFile(path, []byte(tc.conf), 0o600)
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"--config", path, "--check-config"}, &stdout, &stderr)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				out := stdout.String()
				for _, want := range []string{"table = T7\n", "game = blackjack\n", "rules = retiro\n", "mqtt-password = (set)\n", "# configuration OK\n"} {
					if !strings.Contains(out, want) {
						t.Errorf("--check-config printed no %q:\n%s", want, out)
					}
				}
				if strings.Contains(out, "secret") {
					t.Errorf("--check-config printed the password:\n%s", out)
				}
				return
			}
			want := tc.err
			if strings.Contains(want, "%s") {
				want = strings.ReplaceAll(want, "%s", path)
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err %v\nwant %q", err, want)
			}
		})
	}
}

// unitSettings reads a systemd unit's key=value lines by section.
func unitSettings(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
		default:
			k, v, _ := strings.Cut(line, "=")
			out[section+"."+k] = append(out[section+"."+k], v)
		}
	}
	return out
}

// TestSystemdUnit: the unit is a notify service with a watchdog that restarts the daemon, and
// systemd's own checker finds nothing wrong in it.
func TestSystemdUnit(t *testing.T) {
	u := unitSettings(t, "sabotd@.service")
	want := map[string]string{
		"Service.Type":                "notify",
		"Service.NotifyAccess":        "main",
		"Service.WatchdogSec":         "30s",
		"Service.WatchdogSignal":      "SIGABRT",
		"Service.Restart":             "on-failure",
		"Service.ExecStart":           "/usr/local/bin/sabotd --config /etc/sabot/%i.conf --table %i",
		"Service.ExecStartPre":        "/usr/local/bin/sabotd --config /etc/sabot/%i.conf --table %i --check-config",
		"Service.StateDirectory":      "sabot",
		"Service.KillSignal":          "SIGTERM",
		"Service.EnvironmentFile":     "-/etc/sabot/%i.env",
		"Install.WantedBy":            "multi-user.target",
		"Service.NoNewPrivileges":     "yes",
		"Service.DevicePolicy":        "closed",
		"Service.TimeoutStopSec":      "20s",
		"Service.TimeoutStartSec":     "5min",
		"Service.RestartSec":          "2s",
		"Unit.StartLimitBurst":        "10",
		"Service.SupplementaryGroups": "dialout",
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got := u[k]; len(got) != 1 || got[0] != want[k] {
			t.Errorf("%s = %q, want %q", k, got, want[k])
		}
	}
	// The watchdog pings every WatchdogSec/3 (newOps); a stall is detected after
	// --watchdog-stall, which must leave systemd's watchdog the last word on a hung process.
	ws, _ := time.ParseDuration(u["Service.WatchdogSec"][0])
	if ws < 3*time.Second {
		t.Errorf("WatchdogSec %v is too short for pings every third of it", ws)
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze: the unit's syntax is not checked by systemd here")
	}
	sabotd, _ := buildBinaries(t)
	dir := t.TempDir()
	b, _ := os.ReadFile("sabotd@.service")
	os.WriteFile(filepath.Join(dir, "sabotd@.service"), bytes.ReplaceAll(b, []byte("/usr/local/bin/sabotd"), []byte(sabotd)), 0o644)
	cmd := exec.Command(analyze, "verify", "./sabotd@T1.service")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestNotify runs the daemon as systemd would, with a notify socket and a watchdog: it says
// READY=1 once it runs, what the table does in STATUS=, pings the watchdog, and STOPPING=1 when
// told to stop.
func TestNotify(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	sabotd, _ := buildBinaries(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cmd := exec.Command(sabotd, "--sim", "--shoe", "reader", "--sim-pace", "50ms", "--listen", "127.0.0.1:0", "--quiet",
		"--journal", filepath.Join(dir, "T1.db"), "--log-format", "json")
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock, "WATCHDOG_USEC=900000") // pings every 300 ms
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var got []string
	read := func(until string, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		buf := make([]byte, 4096)
		for time.Now().Before(deadline) {
			conn.SetReadDeadline(deadline)
			n, err := conn.Read(buf)
			if err != nil {
				break
			}
			msg := string(buf[:n])
			got = append(got, msg)
			if strings.Contains(msg, until) {
				return
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no %s within %v; got %q\n%s", until, within, got, stderr.String())
	}
	read("READY=1", 30*time.Second)
	if !strings.Contains(got[len(got)-1], "STATUS=table T1, punto-banco") {
		t.Errorf("READY=1 came without the table's status: %q", got[len(got)-1])
	}
	pings := 0
	for pings < 3 {
		read("WATCHDOG=1", 5*time.Second)
		pings++
	}
	read("STATUS=table T1, punto-banco: in-round", 30*time.Second)
	cmd.Process.Signal(os.Interrupt)
	read("STOPPING=1", 10*time.Second)
	if err := cmd.Wait(); err != nil {
		t.Errorf("sabotd: %v\n%s", err, stderr.String())
	}
	// JSON logs: every line is one object.
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if !strings.HasPrefix(line, "{") || !strings.HasSuffix(line, "}") {
			t.Errorf("not a JSON log line: %s", line)
			break
		}
	}
}

// nopSink journals nothing.
type nopSink struct{}

func (nopSink) Emit(context.Context, []byte, []tablebus.Event) error { return nil }

// TestWatchdogStall: the prober keeps the shoe loop's heartbeat fresh while the loop answers;
// when the loop stops answering, the watchdog stops pinging and asks systemd for the restart.
func TestWatchdogStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng, err := catalog.New(games.Config{Game: "punto-banco"})
		if err != nil {
			t.Fatal(err)
		}
		proc, _ := shoe.ProcedureFor(shoe.Baccarat, 0)
		m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: "T1"})
		if err != nil {
			t.Fatal(err)
		}
		loop := shoe.NewLoop(m, nil, nopSink{}, nil)
		rec := &notes{}
		wd := sdnotify.NewWatchdog(10*time.Second, rec, nil)
		hb := wd.Heartbeat("shoe loop", 30*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		loopCtx, stopLoop := context.WithCancel(ctx)
		done := make(chan struct{}, 3)
		go func() { loop.Run(loopCtx); done <- struct{}{} }()
		go func() { probe(ctx, loop, hb); done <- struct{}{} }()
		go func() { wd.Run(ctx); done <- struct{}{} }()

		time.Sleep(time.Minute)
		synctest.Wait()
		if got := rec.take(); len(got) != 7 || got[6] != "WATCHDOG=1" {
			t.Fatalf("a live loop: %q", got)
		}
		stopLoop() // the loop stops taking inputs: a stall
		time.Sleep(time.Minute)
		synctest.Wait()
		got := rec.take()
		last := got[len(got)-1]
		if !strings.HasPrefix(last, "STATUS=stalled: shoe loop: no sign of life for ") || !strings.HasSuffix(last, "|WATCHDOG=trigger") {
			t.Errorf("a stalled loop: %q", got)
		}
		cancel()
		for range 3 {
			<-done
		}
	})
}

// notes keeps the notifications sent.
type notes struct {
	mu   sync.Mutex
	sent []string
}

func (n *notes) Notify(states ...string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, strings.Join(states, "|"))
	return nil
}

func (n *notes) take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.sent
	n.sent = nil
	return out
}
