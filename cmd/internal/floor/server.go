package floor

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

//go:embed static
var static embed.FS

// Technician is what the technician pages ask of a table's daemon. The daemon implements it
// (cmd/sabotd); a floor that follows the broker has none.
type Technician interface {
	// Diagnostics returns the table's devices, counters, last faults and loops.
	Diagnostics(ctx context.Context, table string) (Diagnostics, error)
	// SelfTest runs the shuffler's self-test.
	SelfTest(ctx context.Context, table string) (SelfTestResult, error)
	// Inject makes a fault happen on a simulated table (one of Diagnostics.Injectable).
	Inject(ctx context.Context, table, fault string) error
}

// Fact is one line of a technician page: a name and its value.
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Bad   bool   `json:"bad,omitempty"` // shown in red
}

// DeviceDiag is one device on the technician page.
type DeviceDiag struct {
	Device
	Facts []Fact `json:"facts"`
}

// FaultRecord is one fault in a device's history.
type FaultRecord struct {
	At     time.Time `json:"at"`
	Device string    `json:"device"`
	Kind   string    `json:"kind"`
	Detail string    `json:"detail"`
}

// Loop is one of the daemon's loops as its watchdog sees it.
type Loop struct {
	Name     string    `json:"name"`
	State    string    `json:"state"` // "ok", "busy", "stalled"
	LastBeat time.Time `json:"last_beat,omitzero"`
	Detail   string    `json:"detail,omitempty"`
}

// Diagnostics is the technician page of one table.
type Diagnostics struct {
	Table      string        `json:"table"`
	Daemon     []Fact        `json:"daemon"`
	Devices    []DeviceDiag  `json:"devices"`
	Counters   []Fact        `json:"counters"`
	Faults     []FaultRecord `json:"faults"` // newest first
	Loops      []Loop        `json:"loops"`
	Injectable []string      `json:"injectable,omitempty"` // simulated tables only
}

// SelfTestResult is the answer of a device's self-test.
type SelfTestResult struct {
	Device string    `json:"device"`
	Passed bool      `json:"passed"`
	Detail string    `json:"detail"`
	At     time.Time `json:"at"`
}

// ErrNotSimulated is returned by Technician.Inject on a table with real devices.
var ErrNotSimulated = errors.New("floor: faults can only be injected into a simulated table")

// ServerOptions configure the web view.
type ServerOptions struct {
	Floor *Floor
	Art   *Art // the card art (LoadArt)
	// Journal returns a table's journal for the replay; nil or false: no replay for it.
	Journal func(table string) (Journal, bool)
	// Tech serves the technician pages; nil: none.
	Tech Technician
	// Reports is a directory of PNG reports (the vision calibration report, the camera report)
	// that the technician page lists and shows; "" for none.
	Reports string
	// Public makes the view show the public feed only: the replay reads the journal's public
	// payloads (face-down cards without their identity).
	Public bool
	// Title names the view in the page header: "Table T1", "Floor".
	Title string
	// Extra handlers mounted on the same server, by pattern ("/metrics").
	Extra  map[string]http.Handler
	Logger *slog.Logger
	// Throttle is the least time between two updates of one stream; default 100 ms.
	Throttle time.Duration
	// Hosts are the host names the view answers to, besides localhost and IP addresses: a
	// request naming any other host is refused (421), so that a page on another site cannot
	// reach the view through a DNS name rebound to this address.
	Hosts []string
	// MaxStreams bounds the live streams served at once; default 64.
	MaxStreams int
}

// Server is the web view: the floor page, the technician pages, their JSON API and the live
// stream of server-sent events.
type Server struct {
	streams atomic.Int64 // live streams open
	o       ServerOptions
	mux     *http.ServeMux
	csrf    http.Handler // the mux behind cross-origin protection
	log     *slog.Logger
}

// NewServer returns the web view for o.Floor.
func NewServer(o ServerOptions) (*Server, error) {
	if o.Floor == nil || o.Art == nil {
		return nil, fmt.Errorf("floor: a server needs a floor and card art")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Throttle <= 0 {
		o.Throttle = 100 * time.Millisecond
	}
	if o.Title == "" {
		o.Title = "Floor"
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = 64
	}
	s := &Server{o: o, mux: http.NewServeMux(), log: o.Logger}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	files := http.FileServerFS(sub)
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", noCache(files)))
	s.mux.HandleFunc("GET /{$}", s.page("index.html"))
	s.mux.HandleFunc("GET /tech/{table}", s.page("tech.html"))
	s.mux.HandleFunc("GET /art/cards.svg", s.art)
	s.mux.HandleFunc("GET /api/floor", s.floorJSON)
	s.mux.HandleFunc("GET /api/stream", s.stream)
	s.mux.HandleFunc("POST /api/alerts/{id}/ack", s.ack)
	s.mux.HandleFunc("GET /api/tables/{table}/shoes", s.shoes)
	s.mux.HandleFunc("GET /api/tables/{table}/shoes/{shoe}/rounds", s.rounds)
	s.mux.HandleFunc("GET /api/tables/{table}/shoes/{shoe}/rounds/{round}", s.replay)
	s.mux.HandleFunc("GET /api/tables/{table}/diag", s.diag)
	s.mux.HandleFunc("POST /api/tables/{table}/selftest", s.selftest)
	s.mux.HandleFunc("POST /api/tables/{table}/inject/{fault}", s.inject)
	s.mux.HandleFunc("GET /api/reports", s.reports)
	s.mux.HandleFunc("GET /reports/{name}", s.report)
	s.mux.HandleFunc("GET /api/pit", s.pitJSON)     // the pit's figures (server_pit.go)
	s.mux.HandleFunc("GET /pit/{day}", s.pitReport) // a day's table report: printable, or .csv
	for p, h := range o.Extra {
		s.mux.Handle(p, h)
	}
	// Acknowledging, the self-test and injection change things: a page from another site must
	// not make an operator's browser do them (CSRF; Sec-Fetch-Site and Origin).
	s.csrf = http.NewCrossOriginProtection().Handler(s.mux)
	return s, nil
}

// ServeHTTP serves the view.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		// DNS rebinding: a page from another site, its name now pointing here, is same-origin
		// for the browser; its Host header still names the other site.
		http.Error(w, "floor: this view does not answer for host "+r.Host, http.StatusMisdirectedRequest)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'")
	s.csrf.ServeHTTP(w, r)
}

// hostAllowed reports whether a request's Host names this view: an IP address, localhost, or
// one of ServerOptions.Hosts.
func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "" || net.ParseIP(host) != nil || strings.EqualFold(host, "localhost") {
		return true
	}
	for _, h := range s.o.Hosts {
		if strings.EqualFold(host, strings.TrimSpace(h)) {
			return true
		}
	}
	return false
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

func (s *Server) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(b)
	}
}

func (s *Server) art(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(s.o.Art.gz)
		return
	}
	w.Write(s.o.Art.plain)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

// meta is what the page learns about the view on connecting.
type meta struct {
	Title  string `json:"title"`
	Public bool   `json:"public"`
	Replay bool   `json:"replay"`
	Tech   bool   `json:"tech"`
	Art    *Art   `json:"art"`
}

func (s *Server) meta() meta {
	return meta{Title: s.o.Title, Public: s.o.Public, Replay: s.o.Journal != nil, Tech: s.o.Tech != nil, Art: s.o.Art}
}

func (s *Server) floorJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Meta meta `json:"meta"`
		Snapshot
	}{s.meta(), s.o.Floor.Snapshot(0)})
}

// stream sends the floor as server-sent events: "meta" and a full "snapshot" at once, then an
// "update" with the tables and alerts that changed, at most one per Throttle (the first change
// after a quiet spell at once), and a comment line every 15 s so that proxies keep the
// connection open.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	if n := s.streams.Add(1); n > int64(s.o.MaxStreams) {
		s.streams.Add(-1)
		http.Error(w, "floor: too many live views open", http.StatusServiceUnavailable)
		return
	}
	defer s.streams.Add(-1)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	ctx := r.Context()
	send := func(event string, v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			s.log.Error("stream: encoding", "err", err)
			return false
		}
		// A client that stops reading must not hold this goroutine for ever.
		rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	changed := s.o.Floor.Changed()
	snap := s.o.Floor.Snapshot(0)
	if !send("meta", s.meta()) || !send("snapshot", snap) {
		return
	}
	last, sent := snap.Version, time.Now()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			continue
		case <-changed:
		}
		// At most one update per Throttle: an event after a quiet spell goes out at once, a
		// burst of events makes one update.
		if wait := s.o.Throttle - time.Since(sent); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		sent = time.Now()
		changed = s.o.Floor.Changed()
		snap := s.o.Floor.Snapshot(last)
		if snap.Version == last {
			continue
		}
		if !send("update", snap) {
			return
		}
		last = snap.Version
	}
}

func (s *Server) ack(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("floor: alert id %q is not a number", r.PathValue("id")))
		return
	}
	var body struct {
		By string `json:"by"`
	}
	if err := strict(readBody(r), &body); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("floor: acknowledgement: want {\"by\":\"operator id\"}: %w", err))
		return
	}
	switch err := s.o.Floor.Ack(id, body.By); {
	case errors.Is(err, ErrNoAlert):
		writeError(w, http.StatusNotFound, err)
	case err != nil:
		writeError(w, http.StatusBadRequest, err)
	default:
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "id": id, "by": strings.TrimSpace(body.By)})
	}
}

func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
	return b
}

func (s *Server) journal(w http.ResponseWriter, r *http.Request) (Journal, bool) {
	if s.o.Journal == nil {
		writeError(w, http.StatusNotFound, fmt.Errorf("floor: this view has no journal to replay from"))
		return nil, false
	}
	j, ok := s.o.Journal(r.PathValue("table"))
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Errorf("floor: no journal for table %q", r.PathValue("table")))
		return nil, false
	}
	return j, true
}

func (s *Server) shoes(w http.ResponseWriter, r *http.Request) {
	j, ok := s.journal(w, r)
	if !ok {
		return
	}
	shoes, err := j.Shoes(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	sort.Sort(sort.Reverse(sort.StringSlice(shoes))) // newest first
	if shoes == nil {
		shoes = []string{}
	}
	writeJSON(w, http.StatusOK, shoes)
}

func (s *Server) rounds(w http.ResponseWriter, r *http.Request) {
	j, ok := s.journal(w, r)
	if !ok {
		return
	}
	rs, err := Rounds(r.Context(), j, r.PathValue("shoe"))
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	writeJSON(w, http.StatusOK, rs)
}

func (s *Server) replay(w http.ResponseWriter, r *http.Request) {
	j, ok := s.journal(w, r)
	if !ok {
		return
	}
	round, err := strconv.ParseUint(r.PathValue("round"), 10, 64)
	if err != nil || round == 0 {
		writeError(w, http.StatusBadRequest, fmt.Errorf("floor: round %q is not a round number", r.PathValue("round")))
		return
	}
	rp, err := ReplayRound(r.Context(), j, r.PathValue("table"), r.PathValue("shoe"), round, s.o.Public)
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	writeJSON(w, http.StatusOK, rp)
}

func (s *Server) tech(w http.ResponseWriter) bool {
	if s.o.Tech == nil {
		writeError(w, http.StatusNotFound, fmt.Errorf("floor: technician pages are served by the table's daemon (sabotd --http)"))
		return false
	}
	return true
}

func (s *Server) diag(w http.ResponseWriter, r *http.Request) {
	if !s.tech(w) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	d, err := s.o.Tech.Diagnostics(ctx, r.PathValue("table"))
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) selftest(w http.ResponseWriter, r *http.Request) {
	if !s.tech(w) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	res, err := s.o.Tech.SelfTest(ctx, r.PathValue("table"))
	if err != nil {
		writeError(w, http.StatusConflict, err)
		return
	}
	s.log.Info("self-test", "table", r.PathValue("table"), "device", res.Device, "passed", res.Passed, "detail", res.Detail)
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) inject(w http.ResponseWriter, r *http.Request) {
	if !s.tech(w) {
		return
	}
	err := s.o.Tech.Inject(r.Context(), r.PathValue("table"), r.PathValue("fault"))
	switch {
	case errors.Is(err, ErrNotSimulated):
		writeError(w, http.StatusForbidden, err)
	case err != nil:
		writeError(w, http.StatusBadRequest, err)
	default:
		s.log.Warn("simulated fault injected", "table", r.PathValue("table"), "fault", r.PathValue("fault"))
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	}
}

// Report is one PNG report in the reports directory.
type Report struct {
	Name string    `json:"name"`
	Kind string    `json:"kind"` // "calibration", "camera" or "report", from the file name
	At   time.Time `json:"at"`
	Size int64     `json:"size"`
}

func (s *Server) reports(w http.ResponseWriter, r *http.Request) {
	out := []Report{}
	if s.o.Reports != "" {
		ents, err := os.ReadDir(s.o.Reports)
		if err != nil && !os.IsNotExist(err) {
			writeError(w, http.StatusInternalServerError, fmt.Errorf("floor: reports: %w", err))
			return
		}
		for _, e := range ents {
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() || !strings.EqualFold(filepath.Ext(e.Name()), ".png") {
				continue
			}
			kind := "report"
			switch n := strings.ToLower(e.Name()); {
			case strings.Contains(n, "camera"):
				kind = "camera"
			case strings.Contains(n, "calib") || strings.Contains(n, "eval") || strings.Contains(n, "contact"):
				kind = "calibration"
			}
			out = append(out, Report{Name: e.Name(), Kind: kind, At: info.ModTime().UTC(), Size: info.Size()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	writeJSON(w, http.StatusOK, map[string]any{"dir": s.o.Reports, "reports": out})
}

func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if s.o.Reports == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") || !strings.EqualFold(filepath.Ext(name), ".png") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	http.ServeFile(w, r, filepath.Join(s.o.Reports, name))
}
