package terminal

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
	"strings"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
)

//go:embed static
var static embed.FS

// cookie is the session cookie's name: HttpOnly, SameSite=Strict, the terminal's own.
const cookie = "sabot_terminal"

// ServerOptions configure the terminal's web server.
type ServerOptions struct {
	Terminal *Terminal
	Art      *floor.Art
	// Hosts are host names the page answers to besides localhost and IP addresses (a page
	// elsewhere cannot reach it by rebinding its own name to this address).
	Hosts  []string
	Logger *slog.Logger
}

// Server is the dealer terminal's web server.
type Server struct {
	o    ServerOptions
	t    *Terminal
	log  *slog.Logger
	mux  *http.ServeMux
	csrf http.Handler
}

// NewServer returns the terminal's handler.
func NewServer(o ServerOptions) (*Server, error) {
	if o.Terminal == nil || o.Art == nil {
		return nil, errors.New("terminal: a server needs its terminal and the card art")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, t: o.Terminal, log: o.Logger, mux: http.NewServeMux()}
	files, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", noCache(http.FileServerFS(files))))
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := fs.ReadFile(files, "index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
	s.mux.Handle("GET /art/cards.svg", o.Art)
	s.mux.HandleFunc("GET /api/ui", s.ui)
	s.mux.HandleFunc("GET /api/view", s.view)
	s.mux.HandleFunc("GET /api/stream", s.stream)
	s.mux.HandleFunc("POST /api/sign-in", s.signIn)
	s.mux.HandleFunc("POST /api/sign-out", s.signOut)
	s.mux.HandleFunc("POST /api/lang", s.lang)
	s.mux.HandleFunc("POST /api/act", s.act)
	s.csrf = http.NewCrossOriginProtection().Handler(s.mux)
	return s, nil
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP answers requests naming this terminal's host, with the page's security headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		http.Error(w, "terminal: this page does not answer for host "+r.Host, http.StatusMisdirectedRequest)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'")
	w.Header().Set("Referrer-Policy", "no-referrer")
	s.csrf.ServeHTTP(w, r)
}

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

func token(r *http.Request) string {
	if c, err := r.Cookie(cookie); err == nil {
		return c.Value
	}
	return ""
}

// lang is the language the request is answered in: the signed-in dealer's, else ?lang=.
func (s *Server) langOf(r *http.Request) string {
	if v := s.t.View(token(r)); v.Signed != nil {
		return v.Signed.Lang
	}
	if l := r.URL.Query().Get("lang"); l != "" {
		return l
	}
	return English
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// reply is every POST's answer.
type reply struct {
	OK       bool   `json:"ok"`
	Error    string `json:"error,omitempty"`
	Code     string `json:"code,omitempty"`
	Approval bool   `json:"approval,omitempty"`
}

// fail answers an error in the dealer's language: one clear message.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, lang string, err error) {
	var rf *Refusal
	if !errors.As(err, &rf) {
		s.log.Error("terminal", "path", r.URL.Path, "err", err)
		writeJSON(w, http.StatusInternalServerError, reply{Error: err.Error(), Code: "err.internal"})
		return
	}
	text := Say(lang, rf.Code, rf.Args)
	if rf.Code == "err.table" {
		text = Say(lang, rf.Code, map[string]string{"detail": rf.Table})
	}
	writeJSON(w, rf.Status, reply{Error: text, Code: rf.Code, Approval: rf.Approval})
}

func decode(r *http.Request, v any) error {
	d := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return refuse(400, "err.internal", "detail", "bad request: "+err.Error())
	}
	return nil
}

func (s *Server) ui(w http.ResponseWriter, r *http.Request) {
	c, err := UI(s.langOf(r))
	if err != nil {
		writeJSON(w, 500, reply{Error: err.Error()})
		return
	}
	writeJSON(w, 200, c)
}

func (s *Server) view(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, s.t.View(token(r)))
}

// stream sends the view at once and at every change, as server-sent events, and a heartbeat
// every 15 s so that the page knows the table is there.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	ctx := r.Context()
	tok := token(r)
	send := func(event string, v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	beat := time.NewTicker(15 * time.Second)
	defer beat.Stop()
	var last uint64
	for {
		changed := s.t.Changed()
		v := s.t.View(tok)
		if v.Version != last || last == 0 {
			if !send("view", v) {
				return
			}
			last = v.Version
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-beat.C:
			if !send("beat", map[string]int{"idle_in": v.IdleIn}) {
				return
			}
		}
	}
}

func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID  string `json:"id"`
		PIN string `json:"pin"`
	}
	lang := s.langOf(r)
	if err := decode(r, &in); err != nil {
		s.fail(w, r, lang, err)
		return
	}
	tok, err := s.t.SignIn(r.Context(), strings.TrimSpace(in.ID), in.PIN)
	if err != nil {
		s.fail(w, r, lang, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	writeJSON(w, 200, reply{OK: true})
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if err := s.t.SignOut(r.Context(), token(r)); err != nil {
		s.fail(w, r, s.langOf(r), err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	writeJSON(w, 200, reply{OK: true})
}

func (s *Server) lang(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Lang string `json:"lang"`
	}
	if err := decode(r, &in); err != nil {
		s.fail(w, r, s.langOf(r), err)
		return
	}
	if err := s.t.SetLang(token(r), in.Lang); err != nil {
		s.fail(w, r, s.langOf(r), err)
		return
	}
	writeJSON(w, 200, reply{OK: true})
}

func (s *Server) act(w http.ResponseWriter, r *http.Request) {
	var a Action
	lang := s.langOf(r)
	if err := decode(r, &a); err != nil {
		s.fail(w, r, lang, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	if err := s.t.Act(ctx, token(r), a); err != nil {
		s.fail(w, r, lang, err)
		return
	}
	writeJSON(w, 200, reply{OK: true})
}
