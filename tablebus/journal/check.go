package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/tablebus"
)

// Inspection is what a journal's files hold, read without changing any of them.
type Inspection struct {
	Path    string
	Exists  bool // the journal file exists
	Table   string
	Session uint64
	Last    uint64 // the last event's seq (0: no event)
	// KeptMark is the name of the high-water mark file the journal says it kept ("" for a
	// journal that never kept one: a new one, or one from before).
	KeptMark string
	WAL      *WALScan // the write-ahead log, nil when there is none
	hashes   map[uint64][2]tablebus.Hash
}

// Inspect reads the journal at path as SQLite would open it, without changing a byte of its
// files: SQLite in read-only mode still creates or rewrites the -shm index (and an empty -wal),
// so it reads a private copy in a directory beside the journal (the database hard-linked and
// opened read-only, the -wal copied), removed afterwards. It returns the hashes of the
// payloads of the events at seqs as well.
func Inspect(path string, seqs ...uint64) (*Inspection, error) {
	in := &Inspection{Path: path, hashes: map[uint64][2]tablebus.Hash{}}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return in, nil
	} else if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	in.Exists = true
	wal, err := os.ReadFile(path + "-wal")
	switch {
	case err == nil:
		s := ScanWAL(wal)
		in.WAL = &s
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("journal: %w", err)
	}
	priv, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".inspect-")
	if err != nil {
		return nil, fmt.Errorf("journal: inspecting %s: %w", path, err)
	}
	defer os.RemoveAll(priv)
	cp := filepath.Join(priv, "journal.db")
	if err := os.Link(path, cp); err != nil {
		if err := copyFile(path, cp); err != nil {
			return nil, fmt.Errorf("journal: inspecting %s: %w", path, err)
		}
	}
	if wal != nil {
		if err := os.WriteFile(cp+"-wal", wal, 0o600); err != nil {
			return nil, fmt.Errorf("journal: inspecting %s: %w", path, err)
		}
	}
	q := url.Values{}
	q.Add("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+cp+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := in.read(db, seqs); err != nil {
		return nil, fmt.Errorf("journal: %s: not a readable journal: %w", path, err)
	}
	return in, nil
}

func (in *Inspection) read(db *sql.DB, seqs []uint64) error {
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('meta', 'events')").Scan(&n); err != nil {
		return err
	}
	if n < 2 {
		return nil // an empty database: what a journal is before its schema, or with its log lost
	}
	rows, err := db.Query("SELECT key, value FROM meta WHERE key IN ('table', 'session', 'hwm')")
	if err != nil {
		return err
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return err
		}
		switch k {
		case "table":
			in.Table = v
		case "session":
			if in.Session, err = strconv.ParseUint(v, 10, 64); err != nil {
				rows.Close()
				return fmt.Errorf("damaged session counter %q", v)
			}
		case "hwm":
			in.KeptMark = v
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var last sql.NullInt64
	if err := db.QueryRow("SELECT MAX(seq) FROM events").Scan(&last); err != nil {
		return err
	}
	in.Last = uint64(last.Int64)
	j := &Journal{db: db}
	for _, s := range seqs {
		if s == 0 || s > in.Last {
			continue
		}
		q := "SELECT secure, public, NULL, NULL FROM events WHERE seq = ?"
		if j.wire() {
			q = "SELECT secure, public, secure_wire, public_wire FROM events WHERE seq = ?"
		}
		var sec, pub, secW, pubW []byte
		err := db.QueryRow(q, int64(s)).Scan(&sec, &pub, &secW, &pubW)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		in.hashes[s] = [2]tablebus.Hash{tablebus.HashOf(orBody(secW, sec)), tablebus.HashOf(orBody(pubW, pub))}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Seen is how far something outside the journal has seen the table's feed: the broker's
// retained status, a consumer's retained acknowledgement.
type Seen struct {
	What    string // "the broker's retained status", "consumer engine.E1's acknowledgement"
	Seq     uint64
	Session uint64 // 0: not known
}

func (s Seen) String() string {
	if s.Session == 0 {
		return fmt.Sprintf("%s says #%d", s.What, s.Seq)
	}
	return fmt.Sprintf("%s says #%d (session %d)", s.What, s.Seq, s.Session)
}

// ErrBehind is what CheckStart's error wraps when the journal is behind what the outside has
// seen: starting on it would publish other events under sequence numbers already given out.
var ErrBehind = errors.New("journal: the journal is behind what this table has published")

// BehindError says what the journal is behind, and by how much.
type BehindError struct {
	Journal *Inspection
	Mark    *Mark  // the high-water mark, if there is one
	Ahead   []Seen // everything ahead of the journal
	Problem string // what is wrong, in words
	// Seq and Session are the highest the outside may have seen: a start that accepts the
	// loss must go past both.
	Seq, Session uint64
}

func (e *BehindError) Error() string { return e.Problem }
func (e *BehindError) Unwrap() error { return ErrBehind }

// CheckStart checks, before the journal at path is opened for writing, that it is not behind
// what the outside has seen of table's feed: its high-water mark (HighWaterPath) and seen
// (the broker's retained status, the consumers' acknowledgements). It changes no file. A journal
// that is behind, whose high-water mark is missing or damaged, or whose write-ahead log holds
// committed transactions SQLite would drop, is a *BehindError naming what is behind what.
func CheckStart(path, table string, seen ...Seen) (*Inspection, error) {
	hwmPath := HighWaterPath(path)
	mark, hasMark, merr := ReadHighWater(hwmPath)
	var at []uint64
	if hasMark && merr == nil {
		at = append(at, mark.Seq)
	}
	in, err := Inspect(path, at...)
	if err != nil {
		return nil, err
	}
	if in.Exists && in.Table != "" && in.Table != table {
		return nil, fmt.Errorf("%w: %s is table %q's, not %q's", ErrOtherTable, path, in.Table, table)
	}
	if hasMark && merr == nil && mark.Table != table {
		return nil, fmt.Errorf("%w: the high-water mark %s is table %q's, not %q's", ErrOtherTable, hwmPath, mark.Table, table)
	}
	be := &BehindError{Journal: in}
	var ahead []string
	note := func(s Seen) {
		be.Ahead = append(be.Ahead, s)
		ahead = append(ahead, s.String())
	}
	for _, s := range seen {
		be.Seq, be.Session = max(be.Seq, s.Seq), max(be.Session, s.Session)
		if s.Seq > in.Last || s.Session > in.Session {
			note(s)
		}
	}
	var why []string
	markOnly := true // only the mark is missing or damaged: the journal itself may be whole
	if hasMark && merr == nil {
		be.Mark = &mark
		be.Seq, be.Session = max(be.Seq, mark.Seq), max(be.Session, mark.Session)
		s := Seen{What: "the high-water mark " + hwmPath, Seq: mark.Seq, Session: mark.Session}
		switch h, ok := in.hashes[mark.Seq]; {
		case mark.Seq > in.Last || mark.Session > in.Session:
			note(s)
		case mark.Seq > 0 && (!ok || h != [2]tablebus.Hash{mark.Secure, mark.Public}):
			why = append(why, fmt.Sprintf("its event #%d is not the one %s records as published: it is another journal of the table", mark.Seq, hwmPath))
			be.Ahead = append(be.Ahead, s)
			markOnly = false
		}
	}
	be.Seq, be.Session = max(be.Seq, in.Last), max(be.Session, in.Session)
	switch {
	case merr != nil:
		why = append(why, strings.TrimPrefix(merr.Error(), "journal: ")+", so how far the feed went is not known")
	case !hasMark && in.KeptMark != "":
		why = append(why, fmt.Sprintf("its high-water mark %s is missing (the journal kept one)", hwmPath))
	}
	if in.WAL != nil && in.WAL.Damaged() {
		why = append(why, fmt.Sprintf("its write-ahead log %s-wal is damaged: %s", path, in.WAL))
		markOnly = false
	}
	if len(ahead) == 0 && len(why) == 0 {
		return in, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "journal %s ", path)
	switch {
	case !in.Exists:
		b.WriteString("does not exist")
	case in.Table == "":
		b.WriteString("holds no event")
	default:
		fmt.Fprintf(&b, "ends at event #%d (session %d)", in.Last, in.Session)
	}
	if len(ahead) > 0 {
		fmt.Fprintf(&b, ", but %s", strings.Join(ahead, ", "))
		markOnly = false
	}
	if len(why) > 0 {
		fmt.Fprintf(&b, "; %s", strings.Join(why, "; "))
	}
	b.WriteString(".")
	if c := cause(in); len(ahead) > 0 && c != "" {
		b.WriteString(" " + c + ".")
	}
	if be.Seq > in.Last {
		fmt.Fprintf(&b, " Events #%d to #%d are not in it, and starting on it would publish other events under their numbers", in.Last+1, be.Seq)
	} else {
		b.WriteString(" Starting on it could publish other events under numbers consumers already hold")
	}
	b.WriteString(": nothing was started and no file was changed. Put back ")
	if markOnly {
		fmt.Fprintf(&b, "the high-water mark %s that was beside it", hwmPath)
	} else {
		base := filepath.Base(path)
		fmt.Fprintf(&b, "the journal files that match (%s with its %s-wal, as they were when the daemon stopped)", base, base)
	}
	be.Problem = b.String()
	return in, be
}

// cause guesses, from the files, how the journal came to be behind.
func cause(in *Inspection) string {
	switch {
	case !in.Exists:
		return "The journal was moved or deleted, or --journal names another file"
	case in.WAL == nil:
		return fmt.Sprintf("There is no write-ahead log %s-wal beside it: it was deleted, or only %s was copied", in.Path, filepath.Base(in.Path))
	case in.WAL.Damaged():
		return "" // said already
	case in.WAL.Partial > 0:
		return fmt.Sprintf("Its write-ahead log %s-wal ends in the middle of a frame: it was cut short, or this is an old copy", in.Path)
	}
	return fmt.Sprintf("Its write-ahead log %s-wal (%s) was cut short, or this is an old copy of the journal", in.Path, in.WAL)
}
