package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/tablebus"
)

func addScoreboardFlags(fs *flag.FlagSet, o *opsOptions) {
	fs.StringVar(&o.scoreboard, "scoreboard", "", "address of the baccarat scoreboard, the public page for the table's screen, e.g. :8081 (empty: off)")
	fs.StringVar(&o.boardLang, "scoreboard-lang", "en", "the scoreboard's language when the page does not ask for one (?lang=): zh-Hans, zh-Hant, en or es")
}

// scoreboard is the table's scoreboard on its own address: a screen for the players, fed the
// public form of every event, beside nothing of the surveillance view.
type scoreboard struct {
	b   *floor.Scoreboard
	ln  net.Listener
	srv *http.Server
	log *slog.Logger
}

// newScoreboard binds the scoreboard's address, or returns nil when it is off.
func newScoreboard(o *options, eng games.Engine, log *slog.Logger) (*scoreboard, error) {
	if o.ops.scoreboard == "" {
		return nil, nil
	}
	if !slices.Contains(floor.ScoreboardLanguages, o.ops.boardLang) {
		return nil, fmt.Errorf("scoreboard-lang %q: want one of %v", o.ops.boardLang, floor.ScoreboardLanguages)
	}
	c, ok := tableConfig(eng)
	if !ok {
		return nil, fmt.Errorf("scoreboard: %s has no roads: the scoreboard is for the baccarat family", o.game)
	}
	b, err := floor.NewScoreboard(floor.ScoreboardOptions{Table: o.table, Config: c, Lang: o.ops.boardLang, Logger: log})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.ops.scoreboard)
	if err != nil {
		return nil, fmt.Errorf("scoreboard: %w (use another --scoreboard address)", err)
	}
	log = log.With("component", "scoreboard")
	log.Info("scoreboard listening", "url", "http://"+ln.Addr().String()+"/", "lang", o.ops.boardLang)
	return &scoreboard{b: b, ln: ln, log: log, srv: &http.Server{Handler: b, ReadHeaderTimeout: 5 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}}, nil
}

func (s *scoreboard) prime(e tablebus.Event) {
	if s != nil {
		s.b.Prime(e)
	}
}

func (s *scoreboard) apply(e tablebus.Event) {
	if s != nil {
		s.b.Apply(e)
	}
}

// run serves the scoreboard until ctx is done, in a goroutine of start's.
func (s *scoreboard) run(ctx context.Context, start func(string, func(context.Context))) {
	if s == nil {
		return
	}
	s.srv.BaseContext = func(net.Listener) context.Context { return ctx } // streams end with the daemon
	start("scoreboard", func(ctx context.Context) {
		done := make(chan error, 1)
		go func() { done <- s.srv.Serve(s.ln) }()
		select {
		case err := <-done:
			if !errors.Is(err, http.ErrServerClosed) {
				s.log.Error("scoreboard stopped", "err", err)
			}
			return
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.srv.Shutdown(sctx)
		<-done
	})
}
