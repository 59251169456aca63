package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// feed keeps every event published on the table's secure feed, by sequence number, and every
// number published with two different payloads: a reused number.
type feed struct {
	mu     sync.Mutex
	bySeq  map[uint64][]byte
	events []tablebus.Event // the first payload of each number, in arrival order
	reused []string
	msgs   int
}

func (f *feed) add(m mqttbus.Message) {
	e, err := tablebus.Decode(m.Payload)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs++
	if err != nil {
		f.reused = append(f.reused, "undecodable: "+err.Error())
		return
	}
	if old, ok := f.bySeq[e.Seq]; ok {
		if !bytes.Equal(old, m.Payload) {
			f.reused = append(f.reused, fmt.Sprintf("#%d: %s then %s", e.Seq, describe(old), describe(m.Payload)))
		}
		return
	}
	f.bySeq[e.Seq] = m.Payload
	f.events = append(f.events, e)
}

func describe(p []byte) string {
	e, _ := tablebus.Decode(p)
	return fmt.Sprintf("%s (session %d, shoe %s, round %d)", e.Type, e.Session, e.Shoe, e.Round)
}

func (f *feed) max() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var m uint64
	for s := range f.bySeq {
		m = max(m, s)
	}
	return m
}

func (f *feed) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.msgs
}

// waitFor polls cond until it holds, or fails the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", d, what)
		}
	}
}

// treeBytes returns every file under dir with its bytes.
func treeBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyTree copies the files of src (the journal's, the mark, the development keys) into a new
// directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for name, b := range treeBytes(t, src) {
		p := filepath.Join(dst, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestJournalBehind is issue 16's fifth fault against the real daemon and a real mosquitto: a
// daemon killed in the middle of a shoe leaves its journal with its write-ahead log; with that
// log cut short, a byte of it flipped or the log deleted, or with an old copy of the journal,
// sabotd refuses to start, changes no byte of any file and publishes nothing; the intact
// journal starts where it stood. With the high-water mark old too, the broker's retained
// status and a consumer's retained acknowledgement catch the old copy; started anyway on the
// operator's word, the daemon goes on past every number published: over the whole run, no
// sequence number is published with two payloads, and no round or shoe number is used twice.
func TestJournalBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	sabotd, _ := buildBinaries(t)
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 100000\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rec := &feed{bySeq: map[uint64][]byte{}}
	watcher, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "journal-watcher"})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if err := watcher.Subscribe(ctx, "sabot/v1/T1/secure/events", 1, rec.add); err != nil {
		t.Fatal(err)
	}

	type daemon struct {
		cmd    *exec.Cmd
		stderr *bytes.Buffer
	}
	start := func(dir string, extra ...string) daemon {
		t.Helper()
		args := append([]string{"--sim", "--shoe", "reader", "--sim-seed", "5", "--sim-pace", "5ms", "--quiet",
			"--mqtt", br.URL(), "--journal", filepath.Join(dir, "T1.db"), "--table", "T1", "--game", "punto-banco"}, extra...)
		d := daemon{cmd: exec.CommandContext(ctx, sabotd, args...), stderr: &bytes.Buffer{}}
		d.cmd.Stderr = d.stderr
		if err := d.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return d
	}
	kill := func(d daemon) {
		d.cmd.Process.Signal(syscall.SIGKILL)
		d.cmd.Wait()
	}
	// refused runs sabotd on dir and requires it to refuse, saying want, without changing a
	// byte of any file or publishing anything.
	refused := func(dir string, want ...string) string {
		t.Helper()
		before, msgs := treeBytes(t, dir), rec.count()
		// The broker check's wait ends when its marker comes back; a loaded machine gets time.
		d := start(dir, "--broker-check-wait", "10s")
		err := d.cmd.Wait()
		if err == nil {
			t.Fatalf("sabotd started on a journal behind what was published:\n%s", d.stderr)
		}
		msg := strings.TrimSpace(d.stderr.String())
		if strings.Count(msg, "\n") > 0 || !strings.HasPrefix(msg, "sabotd: journal ") {
			t.Errorf("not one clear message:\n%s", msg)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("the message lacks %q:\n%s", w, msg)
			}
		}
		after := treeBytes(t, dir)
		if len(after) != len(before) {
			t.Errorf("files before %d, after %d", len(before), len(after))
		}
		for name, b := range before {
			if after[name] != b {
				t.Errorf("%s changed (%d bytes, now %d)", name, len(b), len(after[name]))
			}
		}
		if n := rec.count(); n != msgs {
			t.Errorf("%d messages published by a refused start", n-msgs)
		}
		return msg
	}
	walPath := func(dir string) string { return filepath.Join(dir, "T1.db-wal") }

	// A: a fresh table, killed after about 60 events: an old copy of its journal is kept. The
	// dealer is paced and the runs short so that SQLite's automatic checkpoint (at 1,000 pages
	// of log, about 300 events) has not yet copied the log into T1.db: with the log lost, T1.db
	// must be behind what was published.
	dir := t.TempDir()
	d := start(dir)
	waitFor(t, time.Minute, "60 events", func() bool { return rec.max() >= 60 })
	kill(d)
	old := copyTree(t, dir)
	inA, err := journal.Inspect(filepath.Join(old, "T1.db"))
	if err != nil {
		t.Fatal(err)
	}
	lastA := inA.Last

	// B: the restart goes on from the crash (the normal restart works), and is killed too.
	d = start(dir)
	waitFor(t, time.Minute, "60 events more", func() bool { return rec.max() >= lastA+60 })
	kill(d)
	published := rec.max()
	if rec.events[0].Session != 1 || rec.bySeq[lastA+1] == nil {
		t.Fatalf("the restart after the crash did not go on from #%d", lastA+1)
	}
	wal, err := os.ReadFile(walPath(dir))
	if err != nil {
		t.Fatalf("no write-ahead log after the crash: %v", err)
	}
	scan := journal.ScanWAL(wal)
	frame := int64(24 + scan.PageSize)
	t.Logf("killed at #%d published, #%d journaled before; the log holds %d frames", published, lastA, scan.Read)

	for _, tc := range []struct {
		name   string
		damage func(dir string)
		want   []string
	}{
		{"log cut short", func(dir string) {
			os.Truncate(walPath(dir), 32+int64(scan.Read/3)*frame)
		}, []string{"cut short, or this is an old copy"}},
		{"a byte of the log flipped", func(dir string) {
			b, _ := os.ReadFile(walPath(dir))
			b[32+int64(scan.Read/3)*frame+100] ^= 0x20
			os.WriteFile(walPath(dir), b, 0o600)
		}, []string{"is damaged", "fails its checksum"}},
		{"log deleted", func(dir string) {
			os.Remove(walPath(dir))
			os.Remove(filepath.Join(dir, "T1.db-shm"))
		}, []string{"There is no write-ahead log", "only T1.db was copied"}},
		{"an old copy of the journal", func(dir string) {
			for _, f := range []string{"T1.db", "T1.db-wal", "T1.db-shm"} {
				b, _ := os.ReadFile(filepath.Join(old, f))
				os.WriteFile(filepath.Join(dir, f), b, 0o600)
			}
		}, []string{fmt.Sprintf("ends at event #%d", lastA)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := copyTree(t, dir)
			tc.damage(v)
			in, err := journal.Inspect(filepath.Join(v, "T1.db"))
			if err != nil || in.Last >= published {
				t.Fatalf("the damaged journal reads to #%d of #%d published (%v): checkpointed?", in.Last, published, err)
			}
			want := append(tc.want, fmt.Sprintf("the high-water mark %s says #", filepath.Join(v, "T1.hwm")), "(session 2)",
				"nothing was started and no file was changed", "--accept-journal-loss=")
			refused(v, want...)
		})
	}

	// C: the intact journal starts where it stood, in a new session, and stops cleanly (its
	// retained status says how far it went); a consumer acknowledges everything.
	d = start(dir)
	waitFor(t, time.Minute, "50 events more", func() bool { return rec.max() >= published+50 })
	d.cmd.Process.Signal(os.Interrupt)
	if err := d.cmd.Wait(); err != nil {
		t.Fatalf("sabotd: %v\n%s", err, d.stderr)
	}
	inC, err := journal.Inspect(filepath.Join(dir, "T1.db"))
	if err != nil {
		t.Fatal(err)
	}
	lastC, acked := inC.Last, rec.max()
	var nextC, sessionC uint64
	if _, err := fmt.Sscanf(d.stderr.String()[strings.Index(d.stderr.String(), "session="):], "session=%d next_seq=%d", &sessionC, &nextC); err != nil || sessionC != 3 {
		t.Fatalf("the third start: session %d next %d (%v)\n%s", sessionC, nextC, err, d.stderr)
	}
	ack, _ := json.Marshal(tablebus.Ack{V: tablebus.SchemaVersion, Table: "T1", Consumer: "engine.E1", Seq: acked, TS: time.Now().UTC()})
	if err := watcher.Publish(ctx, tablebus.Topics{Table: "T1"}.Ack("engine.E1"), ack, 1, true); err != nil {
		t.Fatal(err)
	}
	for _, e := range rec.events {
		if e.Seq >= nextC && e.Session != 3 {
			t.Fatalf("#%d in session %d after two starts", e.Seq, e.Session)
		}
	}

	// The old copy of everything, its high-water mark too: the broker catches it.
	stale := copyTree(t, old)
	msg := refused(stale, fmt.Sprintf("ends at event #%d (session 1)", lastA),
		fmt.Sprintf("the broker's retained status (sabot/v1/T1/public/status) says #%d (session 3)", lastC),
		fmt.Sprintf("consumer engine.E1's retained acknowledgement says #%d", acked),
		fmt.Sprintf("--accept-journal-loss=%d", lastC))
	if strings.Count(msg, "retained status") != 1 {
		t.Errorf("the status said twice: %s", msg)
	}

	// Started anyway, on the operator's word: on past every number published.
	d = start(stale, fmt.Sprintf("--accept-journal-loss=%d", lastC))
	waitFor(t, time.Minute, "a round settled after the loss", func() bool {
		if d.cmd.ProcessState != nil {
			t.Fatalf("sabotd stopped: %s", d.stderr)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, e := range rec.events {
			if e.Seq > lastC && e.Type == tablebus.RoundSettled {
				return true
			}
		}
		return false
	})
	d.cmd.Process.Signal(os.Interrupt)
	if err := d.cmd.Wait(); err != nil {
		t.Fatalf("sabotd: %v\n%s", err, d.stderr)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reused) > 0 {
		t.Fatalf("%d sequence numbers published twice with different events, e.g. %s", len(rec.reused), rec.reused[0])
	}
	first, err := tablebus.Decode(rec.bySeq[lastC+1])
	if err != nil || first.Type != tablebus.Fault || first.Code != "journal-loss" || first.Session != 4 ||
		!strings.Contains(first.Problem, fmt.Sprintf("events #%d to #%d are not in the journal", lastA+1, lastC)) {
		t.Fatalf("the first event after the loss: %+v %v", first, err)
	}
	rounds, shoes := map[uint64]uint64{}, map[string]uint64{}
	for _, e := range rec.events {
		if e.Type == tablebus.RoundSettled {
			if s, dup := rounds[e.Round]; dup {
				t.Errorf("round %d settled at #%d and #%d", e.Round, s, e.Seq)
			}
			rounds[e.Round] = e.Seq
		}
		if e.Type == tablebus.ShoeLoaded {
			if s, dup := shoes[e.Shoe]; dup {
				t.Errorf("shoe %s loaded at #%d and #%d", e.Shoe, s, e.Seq)
			}
			shoes[e.Shoe] = e.Seq
		}
		if e.Seq > lastC && e.Session != 4 {
			t.Errorf("#%d in session %d after the loss", e.Seq, e.Session)
		}
	}
}
