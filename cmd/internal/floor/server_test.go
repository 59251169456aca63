package floor

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

// testArt is a minimal sheet in the Aisleriot layout: 13 × 5 cells of 200 × 300.
const testArt = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="2600" height="1500"><rect width="10" height="10"/></svg>`

func TestLoadArt(t *testing.T) {
	tests := []struct {
		name, svg string
		gz        bool
		err       string
		cardW     float64
	}{
		{"plain", testArt, false, "", 200},
		{"compressed", testArt, true, "", 200},
		{"viewBox only", `<svg viewBox="0 0 1885 975" xmlns="http://www.w3.org/2000/svg"></svg>`, false, "", 145},
		{"units", `<svg width="2600px" height="1500px"></svg>`, false, "", 200},
		{"not a deck", `<svg width="1000" height="1000"></svg>`, false, "is not 13 × 5 cards", 0},
		{"no size", `<svg></svg>`, false, "no usable width, height or viewBox", 0},
		{"not svg", `hello`, false, "no <svg> element", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "deck.svg")
			b := []byte(tc.svg)
			if tc.gz {
				var buf strings.Builder
				zw := gzip.NewWriter(&buf)
				zw.Write(b)
				zw.Close()
				b = []byte(buf.String())
			}
			os.WriteFile(path, b, 0o644)
			a, err := LoadArt(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.CardW != tc.cardW || string(a.plain) != tc.svg {
				t.Errorf("card width %g (want %g), plain %q", a.CardW, tc.cardW, a.plain)
			}
		})
	}
	if _, err := LoadArt(filepath.Join(t.TempDir(), "none.svgz")); err == nil || !strings.Contains(err.Error(), "install gnome-cards-data") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestDebianArt checks the deck the view uses by default (gnome-cards-data, in .ci/deps).
func TestDebianArt(t *testing.T) {
	a, err := LoadArt(DefaultCardArt)
	if err != nil {
		t.Fatalf("%v (make deps installs gnome-cards-data)", err)
	}
	if a.Width != 2632.5 || a.Height != 1575 || a.CardW != 202.5 || a.CardH != 315 {
		t.Errorf("anglo: %+v", a)
	}
}

type testTech struct{ sim bool }

func (tt testTech) Diagnostics(ctx context.Context, table string) (Diagnostics, error) {
	return Diagnostics{Table: table, Daemon: []Fact{{Name: "session", Value: "3"}}}, nil
}
func (tt testTech) SelfTest(ctx context.Context, table string) (SelfTestResult, error) {
	return SelfTestResult{Device: "shuffler", Passed: true, Detail: "OK"}, nil
}
func (tt testTech) Inject(ctx context.Context, table, fault string) error {
	if !tt.sim {
		return ErrNotSimulated
	}
	return nil
}

func testServer(t *testing.T, o ServerOptions) (*httptest.Server, *Floor) {
	t.Helper()
	art, err := parseArt("test.svg", []byte(testArt))
	if err != nil {
		t.Fatal(err)
	}
	if o.Floor == nil {
		o.Floor = newFloor()
	}
	o.Art = art
	o.Throttle = time.Millisecond
	s, err := NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts, o.Floor
}

func call(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.TrimSpace(string(b))
}

// TestServerAPI exercises each endpoint with its exact answers, the refusals included.
func TestServerAPI(t *testing.T) {
	j, err := journal.Open(filepath.Join(t.TempDir(), "T1.db"), "T1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	simulate(t, "punto-banco", "T1", 7, 60, 0, j)
	reports := t.TempDir()
	os.WriteFile(filepath.Join(reports, "camera-2026-11-29.png"), []byte("\x89PNG"), 0o644)
	os.WriteFile(filepath.Join(reports, "notes.txt"), []byte("x"), 0o644)
	ts, fl := testServer(t, ServerOptions{
		Journal: func(table string) (Journal, bool) { return j, table == "T1" },
		Tech:    testTech{sim: false},
		Reports: reports,
	})
	fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T1", Online: false, TS: t0}})

	tests := []struct {
		name, method, path, body string
		code                     int
		want                     string // a part of the answer
	}{
		{"page", "GET", "/", "", 200, `<main id="tables"`},
		{"technician page", "GET", "/tech/T1", "", 200, `<main class="tech"`},
		{"script", "GET", "/static/app.js", "", 200, "new EventSource('/api/stream')"},
		{"floor", "GET", "/api/floor", "", 200, `"kind":"daemon-offline"`},
		{"ack without a name", "POST", "/api/alerts/1/ack", `{"by":" "}`, 400, `needs the name of who acknowledges`},
		{"ack with bad json", "POST", "/api/alerts/1/ack", `{"who":"x"}`, 400, `want {\"by\":\"operator id\"}`},
		{"ack of a bad id", "POST", "/api/alerts/x/ack", `{"by":"s-1"}`, 400, `alert id \"x\" is not a number`},
		{"ack of an unknown alert", "POST", "/api/alerts/9/ack", `{"by":"s-1"}`, 404, `no such alert 9`},
		{"ack", "POST", "/api/alerts/1/ack", `{"by":"s-1"}`, 200, `{"by":"s-1","id":1,"ok":true}`},
		{"shoes", "GET", "/api/tables/T1/shoes", "", 200, `["T1-000001"]`},
		{"shoes of another table", "GET", "/api/tables/T2/shoes", "", 404, `no journal for table \"T2\"`},
		{"rounds", "GET", "/api/tables/T1/shoes/T1-000001/rounds", "", 200, `"round":2,"at":"2026-01-01T12:00:10Z","result":"player","summary":"player · player 9 · banker 0","cards":6`},
		{"rounds of an unknown shoe", "GET", "/api/tables/T1/shoes/T1-000009/rounds", "", 404, `no shoe \"T1-000009\"`},
		{"replay", "GET", "/api/tables/T1/shoes/T1-000001/rounds/2", "", 200, `"caption":"round 2: RESULT PLAYER`},
		{"replay of round 0", "GET", "/api/tables/T1/shoes/T1-000001/rounds/0", "", 400, `not a round number`},
		{"replay of a round not there", "GET", "/api/tables/T1/shoes/T1-000001/rounds/77", "", 404, `no such round 77`},
		{"diagnostics", "GET", "/api/tables/T1/diag", "", 200, `"daemon":[{"name":"session","value":"3"}]`},
		{"self-test", "POST", "/api/tables/T1/selftest", "", 200, `"passed":true`},
		{"inject on real devices", "POST", "/api/tables/T1/inject/misread", "", 403, `only be injected into a simulated table`},
		{"reports", "GET", "/api/reports", "", 200, `"name":"camera-2026-11-29.png","kind":"camera"`},
		{"a report", "GET", "/reports/camera-2026-11-29.png", "", 200, "\x89PNG"},
		{"not a png", "GET", "/reports/notes.txt", "", 404, "404 page not found"},
		{"outside the directory", "GET", "/reports/..%2f..%2fetc%2fpasswd.png", "", 404, "404 page not found"},
		{"wrong method", "GET", "/api/alerts/1/ack", "", 405, "Method Not Allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := call(t, tc.method, ts.URL+tc.path, tc.body)
			if code != tc.code || !strings.Contains(body, tc.want) {
				t.Errorf("%s %s: %d %.300s\nwant %d with %q", tc.method, tc.path, code, body, tc.code, tc.want)
			}
		})
	}
	// Another site's page cannot make a browser acknowledge or run the self-test.
	for _, path := range []string{"/api/alerts/1/ack", "/api/tables/T1/selftest"} {
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(`{"by":"evil"}`))
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("cross-site POST %s: %d, want 403", path, res.StatusCode)
		}
	}
	if s := fl.Snapshot(0); len(s.Alerts) != 1 || s.Alerts[0].AckBy != "s-1" {
		t.Errorf("alerts after the acknowledgement: %+v", s.Alerts)
	}
}

// TestServerArt: the sheet is served compressed to a browser, as it is to anything else.
func TestServerArt(t *testing.T) {
	ts, _ := testServer(t, ServerOptions{})
	tr := &http.Transport{DisableCompression: true}
	for _, gz := range []bool{true, false} {
		req, _ := http.NewRequest("GET", ts.URL+"/art/cards.svg", nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		res, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = res.Body
		if enc := res.Header.Get("Content-Encoding"); gz != (enc == "gzip") {
			t.Errorf("gzip %v: Content-Encoding %q", gz, enc)
		} else if gz {
			r, _ = gzip.NewReader(res.Body)
		}
		b, _ := io.ReadAll(r)
		res.Body.Close()
		if string(b) != testArt || res.Header.Get("Content-Type") != "image/svg+xml" {
			t.Errorf("gzip %v: %s %q", gz, res.Header.Get("Content-Type"), b)
		}
	}
	code, body := call(t, "GET", ts.URL+"/api/tables/T1/diag", "")
	if code != 404 || !strings.Contains(body, "served by the table's daemon") {
		t.Errorf("diagnostics without a technician: %d %s", code, body)
	}
	code, body = call(t, "GET", ts.URL+"/api/tables/T1/shoes", "")
	if code != 404 || !strings.Contains(body, "no journal to replay from") {
		t.Errorf("replay without a journal: %d %s", code, body)
	}
}

// TestStream reads the server-sent events: meta and a snapshot at once, then an update with
// only what changed.
func TestStream(t *testing.T) {
	ts, fl := testServer(t, ServerOptions{})
	fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T1", Online: true, TS: t0}})
	fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T2", Online: true, TS: t0}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/stream", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	next := func() (string, Snapshot) {
		var event string
		for sc.Scan() {
			line := sc.Text()
			if ev, ok := strings.CutPrefix(line, "event: "); ok {
				event = ev
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var s Snapshot
				json.Unmarshal([]byte(data), &s)
				return event, s
			}
		}
		t.Fatalf("stream ended: %v", sc.Err())
		return "", Snapshot{}
	}
	if ev, _ := next(); ev != "meta" {
		t.Fatalf("first event %q", ev)
	}
	ev, s := next()
	if ev != "snapshot" || len(s.Tables) != 2 || s.Alerts == nil {
		t.Fatalf("%s: %d tables, alerts %v", ev, len(s.Tables), s.Alerts)
	}
	fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "T2", Online: false, TS: t0}})
	ev, s = next()
	if ev != "update" || len(s.Tables) != 1 || s.Tables[0].Table != "T2" || len(s.Alerts) != 1 || s.Alerts[0].Kind != KindOffline {
		t.Fatalf("%s: %+v", ev, s)
	}
}
