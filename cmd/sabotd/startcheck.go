package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/tablebus/outbox"
)

// journalOptions are the settings of the journal's start-up check.
type journalOptions struct {
	acceptLoss uint64
	brokerWait time.Duration
}

func addJournalFlags(fs *flag.FlagSet, o *journalOptions) {
	fs.Uint64Var(&o.acceptLoss, "accept-journal-loss", 0, "start once on a journal that is behind what was published, giving at least the number the refusal names: the events beyond the journal are lost for good, and the sequence, session, shoe and round numbers jump past every one the outside may hold")
	fs.DurationVar(&o.brokerWait, "broker-check-wait", time.Second, "at start, how long to wait for the site broker's retained status and acknowledgements of the table, to check the journal against them")
}

// startedJournal is the journal opened for writing, in its new session.
type startedJournal struct {
	j       *journal.Journal
	session uint64
	loss    *journal.Loss // the loss the operator accepted (--accept-journal-loss), or nil
	kept    string        // where the journal's files were kept as found, when a loss was accepted
}

// openJournal checks, before anything is written, that the journal is not behind what the
// outside has seen of the table: its high-water mark, and on a site broker the table's retained
// status and the consumers' retained acknowledgements (journal.CheckStart: the files are read,
// never changed). A journal behind any of them would reuse sequence numbers: the daemon
// refuses to start, saying what is behind what, unless the operator accepts the loss. Then it
// opens the journal, keeps its high-water mark and starts a new session.
func openJournal(ctx context.Context, o *options, log *slog.Logger) (*startedJournal, error) {
	seen := brokerSeen(ctx, o, log)
	_, err := journal.CheckStart(o.journal, o.table, seen...)
	var be *journal.BehindError
	switch {
	case errors.As(err, &be) && o.jopt.acceptLoss >= be.Seq:
		log.Warn("the operator accepts the journal's loss (--accept-journal-loss)", "problem", be.Problem)
		be.Seq = o.jopt.acceptLoss
	case errors.As(err, &be) && o.jopt.acceptLoss != 0:
		return nil, fmt.Errorf("%w; --accept-journal-loss=%d does not go past it: it must be at least %d", err, o.jopt.acceptLoss, be.Seq)
	case errors.As(err, &be):
		return nil, fmt.Errorf("%w; or, to start anyway and lose those events for good (every number jumps past them: none is used again), start once with --accept-journal-loss=%d", err, be.Seq)
	case err != nil:
		return nil, err
	case o.jopt.acceptLoss != 0:
		return nil, fmt.Errorf("--accept-journal-loss=%d is set, but journal %s is not behind what was published: remove the setting (it is for one start only)", o.jopt.acceptLoss, o.journal)
	}
	sj := &startedJournal{}
	if be != nil && be.Journal.Exists {
		// SQLite drops what it cannot read of the log at its first write: keep the files as
		// they were found.
		if sj.kept, err = keepAside(o.journal); err != nil {
			return nil, err
		}
	}
	j, err := journal.Open(o.journal, o.table)
	if err != nil {
		return nil, err
	}
	sj.j = j
	if be != nil {
		l, err := j.AcceptLoss(ctx, be)
		if err != nil {
			j.Close()
			return nil, err
		}
		sj.loss = &l
	}
	if err := j.KeepHighWater(); err != nil {
		j.Close()
		return nil, err
	}
	if sj.session, err = j.NewSession(); err != nil {
		j.Close()
		return nil, err
	}
	return sj, nil
}

// keepAside copies the journal's database and log to <name>-lost-<time><ext> (and -wal),
// a journal `sabot replay` reads, and returns the copy's name.
func keepAside(path string) (string, error) {
	ext := filepath.Ext(path)
	dst := strings.TrimSuffix(path, ext) + "-lost-" + time.Now().UTC().Format("20060102T150405Z") + ext
	for _, s := range []string{"", "-wal"} {
		in, err := os.Open(path + s)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("journal: keeping %s as found: %w", path+s, err)
		}
		out, err := os.OpenFile(dst+s, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
		if err == nil {
			_, err = io.Copy(out, in)
			if err == nil {
				err = out.Sync()
			}
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		in.Close()
		if err != nil {
			return "", fmt.Errorf("journal: keeping %s as found: %w", path+s, err)
		}
	}
	return dst, nil
}

// recordLoss journals the loss the operator accepted as the first event of the session (a
// fault, published like any): the numbers skipped, the shoe abandoned, the files kept.
func recordLoss(ctx context.Context, ob *outbox.Outbox, sj *startedJournal, o *options) error {
	l := sj.loss
	if l == nil {
		return nil
	}
	p := fmt.Sprintf("started on a journal behind what was published, on the operator's --accept-journal-loss=%d: events #%d to #%d are not in the journal, which ended at #%d; numbering goes on from #%d in session %d, after shoe %d and round %d",
		o.jopt.acceptLoss, l.From, l.To, l.Journal, l.To+1, sj.session, l.Shoe, l.Round)
	if l.From > l.To {
		p = fmt.Sprintf("started on a journal that was not whole (its high-water mark or log), on the operator's --accept-journal-loss=%d: the journal ends at #%d; numbering goes on from #%d in session %d, after shoe %d and round %d",
			o.jopt.acceptLoss, l.Journal, l.To+1, sj.session, l.Shoe, l.Round)
	}
	if l.Abandoned != "" {
		p += "; shoe " + l.Abandoned + ", open, is abandoned: its cards are not where the journal says"
	}
	if sj.kept != "" {
		p += "; the journal's files as found are kept as " + sj.kept
	}
	return ob.Fault(ctx, "journal-loss", p)
}

// brokerSeen returns what a site broker holds of the table: its retained status and each
// consumer's retained acknowledgement, waited for at most --broker-check-wait. The embedded
// broker starts with
// this process and holds nothing from before. A broker that cannot be reached within a few
// seconds is said in the log and not waited for: the high-water mark is still checked, and a
// slow or absent broker never stops the table.
func brokerSeen(ctx context.Context, o *options, log *slog.Logger) []journal.Seen {
	if o.mqtt == "" {
		return nil
	}
	tlsConf, err := mqttbus.TLSFiles(o.mqttCA, o.mqttCert, o.mqttKey)
	if err != nil {
		return nil // the daemon's own connection says so
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := mqttbus.Connect(cctx, mqttbus.Options{URL: o.mqtt, ClientID: "sabotd-" + o.table + "-check", Username: o.user, Password: o.pass, TLS: tlsConf,
		Logger: slog.New(warnOnly{log.Handler()})})
	if err != nil {
		log.Warn("the broker cannot be reached to check the journal against the table's retained status and acknowledgements; checked against its high-water mark only", "err", err)
		return nil
	}
	defer c.Close()
	topics := tablebus.Topics{Table: o.table}
	got := make(chan mqttbus.Message, 1024)
	h := func(m mqttbus.Message) {
		if m.Retained && len(m.Payload) > 0 || m.Topic == topics.Probe("secure") {
			select {
			case got <- m:
			default:
			}
		}
	}
	for _, f := range []string{topics.Status(), topics.Acks(), topics.Probe("secure")} {
		if err := c.Subscribe(cctx, f, 1, h); err != nil {
			log.Warn("the journal is not checked against the broker's retained messages", "filter", f, "err", err)
			return nil
		}
	}
	// The broker sends a subscription's retained messages before it handles a later publish
	// of the same client: once a nonce published now comes back, they are here, give or take
	// the moment each subscription's handler takes.
	nonce := make([]byte, 16)
	rand.Read(nonce)
	if err := c.Publish(cctx, topics.Probe("secure"), []byte(hex.EncodeToString(nonce)), 1, false); err != nil {
		log.Warn("the journal is not checked against the broker's retained messages", "err", err)
		return nil
	}
	var seen []journal.Seen
	deadline := time.NewTimer(o.jopt.brokerWait)
	defer deadline.Stop()
	var quiet <-chan time.Time
	for {
		var m mqttbus.Message
		select {
		case <-ctx.Done():
			return seen
		case <-deadline.C:
			if quiet == nil {
				log.Warn("the broker's retained messages of the table did not all come within --broker-check-wait", "wait", o.jopt.brokerWait)
			}
			return seen
		case <-quiet:
			return seen
		case m = <-got:
		}
		switch {
		case m.Topic == topics.Probe("secure"):
			if string(m.Payload) == hex.EncodeToString(nonce) {
				quiet = time.After(100 * time.Millisecond)
			}
		case m.Topic == topics.Status():
			var st tablebus.Status
			if err := json.Unmarshal(m.Payload, &st); err != nil || st.Table != o.table {
				log.Warn("ignoring a retained status that is not this table's", "topic", m.Topic)
				continue
			}
			seen = addSeen(seen, journal.Seen{What: "the broker's retained status (" + m.Topic + ")", Seq: st.Seq, Session: st.Session})
		default:
			a, err := tablebus.DecodeAck(m.Topic, m.Payload)
			if err != nil {
				log.Warn("ignoring a retained acknowledgement", "topic", m.Topic, "err", err)
				continue
			}
			seen = addSeen(seen, journal.Seen{What: "consumer " + a.Consumer + "'s retained acknowledgement", Seq: a.Seq})
		}
	}
}

// warnOnly passes on warnings and errors only: the check's own connection is not news.
type warnOnly struct{ h slog.Handler }

func (w warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.h.Enabled(ctx, l)
}
func (w warnOnly) Handle(ctx context.Context, r slog.Record) error { return w.h.Handle(ctx, r) }
func (w warnOnly) WithAttrs(a []slog.Attr) slog.Handler            { return warnOnly{w.h.WithAttrs(a)} }
func (w warnOnly) WithGroup(n string) slog.Handler                 { return warnOnly{w.h.WithGroup(n)} }

// addSeen adds s, or raises the one of the same source (a retained message comes again when a
// reconnection renews the subscription).
func addSeen(seen []journal.Seen, s journal.Seen) []journal.Seen {
	for i, o := range seen {
		if o.What == s.What {
			seen[i].Seq, seen[i].Session = max(o.Seq, s.Seq), max(o.Session, s.Session)
			return seen
		}
	}
	return append(seen, s)
}
