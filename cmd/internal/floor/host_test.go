package floor

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// A page on another site whose name is rebound to this address (DNS rebinding) is same-origin
// for the browser: the Host header still names the other site, and is refused.
func TestHostAllowlist(t *testing.T) {
	ts, _ := testServer(t, ServerOptions{Hosts: []string{"floor.casino.example"}})
	for _, tc := range []struct {
		host string
		want int
	}{
		{"", http.StatusOK}, // the test server's own 127.0.0.1:port
		{"localhost:8080", http.StatusOK},
		{"[::1]:8080", http.StatusOK},
		{"10.1.2.3", http.StatusOK},
		{"floor.casino.example:8080", http.StatusOK},
		{"attacker.example:8080", http.StatusMisdirectedRequest},
		{"attacker.example", http.StatusMisdirectedRequest},
	} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/floor", nil)
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %q: %d, want %d", tc.host, resp.StatusCode, tc.want)
		}
	}
}

// The live streams are bounded.
func TestStreamLimit(t *testing.T) {
	ts, _ := testServer(t, ServerOptions{MaxStreams: 2})
	var open []*http.Response
	defer func() {
		for _, r := range open {
			r.Body.Close()
		}
	}()
	for i := range 3 {
		resp, err := http.Get(ts.URL + "/api/stream")
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, resp)
		if i < 2 {
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("stream %d: %d", i, resp.StatusCode)
			}
			line, _ := bufio.NewReader(resp.Body).ReadString('\n')
			if !strings.HasPrefix(line, "event: meta") {
				t.Fatalf("stream %d began %q", i, line)
			}
			continue
		}
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("a third stream: %d, want 503", resp.StatusCode)
		}
	}
}
