// Package pgtest starts a real, throw-away PostgreSQL server for tests: Debian's package
// (postgresql, in .ci/deps), a cluster made by initdb in a temporary directory, on a free
// loopback port, stopped and removed when the test ends. PostgreSQL refuses to run as root, so
// under root the server runs as the postgres user (runuser).
//
// Tests that need it are skipped, saying so, only under -short; a machine without PostgreSQL
// fails them, naming the package to install.
package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is one running PostgreSQL cluster.
type Server struct {
	dir      string // the data directory
	sock     string // the socket directory
	port     int
	bin      string
	as       string // "" or the user it runs as (root runs it as postgres)
	uid, gid uint32

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	logs *tail
}

// Start starts a new cluster for t and stops it (and removes its files) when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("pgtest: needs a real PostgreSQL server (Debian's postgresql): skipped under -short")
	}
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// New makes and starts a cluster; Close stops it and removes it.
func New() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	if os.Geteuid() == 0 {
		s.as = "postgres"
	}
	base, err := os.MkdirTemp("", "sabot-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s.dir, s.sock = filepath.Join(base, "data"), filepath.Join(base, "sock")
	for _, d := range []string{s.dir, s.sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, fmt.Errorf("pgtest: %w", err)
		}
	}
	if s.as != "" {
		u, err := user.Lookup(s.as)
		if err != nil {
			return nil, fmt.Errorf("pgtest: running as root needs the %s user (Debian's postgresql package makes it): %w", s.as, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.uid, s.gid = uint32(uid), uint32(gid)
		for _, d := range []string{base, s.dir, s.sock} {
			if err := os.Chown(d, uid, gid); err != nil {
				return nil, fmt.Errorf("pgtest: %w", err)
			}
		}
	}
	init := s.command("initdb", "-D", s.dir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	if out, err := init.CombinedOutput(); err != nil {
		os.RemoveAll(base)
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	if s.port, err = freePort(); err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	if err := s.Start(); err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	return s, nil
}

// binDir finds the newest installed PostgreSQL's binaries.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("pgtest: no PostgreSQL server under /usr/lib/postgresql/*/bin: install Debian's postgresql (make deps)")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if s.as == "" {
		return exec.Command(path, args...)
	}
	return exec.Command("runuser", append([]string{"-u", s.as, "--", path}, args...)...)
}

// DSN returns the URL of the server's postgres database, as pgx reads it.
func (s *Server) DSN() string { return s.DSNFor("postgres") }

// DSNFor returns the URL of database db on the server.
func (s *Server) DSNFor(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// Port returns the server's TCP port (on 127.0.0.1), the same across restarts.
func (s *Server) Port() int { return s.port }

// String names the server for logs.
func (s *Server) String() string {
	return fmt.Sprintf("PostgreSQL test server 127.0.0.1:%d (%s)", s.port, s.dir)
}

// Start starts the server (again) on the same directory and port, and returns once it accepts
// connections (its log says so), or with the log's end if it exits first.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("pgtest: already running")
	}
	// The server itself runs as the postgres user (what runuser does for initdb and psql), so
	// that the signals of Stop and Kill reach the postmaster; in a process group of its own,
	// so that Kill takes its backends with it.
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), "-D", s.dir, "-p", strconv.Itoa(s.port), "-k", s.sock,
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "shared_buffers=64MB")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.as != "" {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: s.uid, Gid: s.gid}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	s.logs = &tail{}
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			s.logs.add(sc.Text())
			if strings.Contains(sc.Text(), "database system is ready to accept connections") {
				once.Do(func() { close(ready) })
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-ready:
	case <-done:
		return fmt.Errorf("pgtest: postgres exited at start:\n%s", s.logs)
	case <-time.After(60 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return fmt.Errorf("pgtest: postgres not ready after 60 s:\n%s", s.logs)
	}
	s.cmd, s.done = cmd, done
	return nil
}

// Stop stops the server: fast shutdown (SIGINT: clients are disconnected, every committed
// transaction is on disk). Kill stops it the hard way (SIGKILL: a crash, recovered from the
// WAL at the next Start).
func (s *Server) Stop() error { return s.stop(syscall.SIGINT) }

// Kill stops the server with SIGKILL, as a crash would.
func (s *Server) Kill() error { return s.stop(syscall.SIGKILL) }

func (s *Server) stop(sig syscall.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	pid := s.cmd.Process.Pid
	if sig == syscall.SIGKILL {
		// A crash: the postmaster's children first (each backend calls setsid, so the process
		// group does not reach them, and a backend outliving its postmaster still answers its
		// open connection for a moment), then the postmaster, stopped first so that it forks
		// no new child meanwhile.
		syscall.Kill(pid, syscall.SIGSTOP)
		for _, c := range children(pid) {
			syscall.Kill(c, sig)
		}
		syscall.Kill(-pid, sig)
	} else {
		syscall.Kill(pid, sig)
	}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		<-s.done
	}
	s.cmd = nil
	return nil
}

// children lists the processes whose parent is pid (from /proc).
func children(pid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses; it ends at the last ')'.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b)[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if c, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// Restart stops the server (fast shutdown) and starts it again.
func (s *Server) Restart() error {
	if err := s.Stop(); err != nil {
		return err
	}
	return s.Start()
}

// Close stops the server and removes its files.
func (s *Server) Close() {
	s.Stop()
	os.RemoveAll(filepath.Dir(s.dir))
}

// CreateDB creates database name, run by psql over the socket.
func (s *Server) CreateDB(ctx context.Context, name string) error {
	cmd := s.command("psql", "-h", s.sock, "-p", strconv.Itoa(s.port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1",
		"-c", "CREATE DATABASE "+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: create database %s: %w\n%s", name, err, out)
	}
	return nil
}

// tail keeps the server's last log lines, for an error message.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(l string) {
	t.mu.Lock()
	t.lines = append(t.lines, l)
	if len(t.lines) > 40 {
		t.lines = t.lines[len(t.lines)-40:]
	}
	t.mu.Unlock()
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// The package's shared server: Main starts none; the first DB call starts it, and Main stops it
// when the tests are done.
var shared struct {
	mu  sync.Mutex
	srv *Server
	err error
	n   int
}

// Main runs a package's tests and stops the shared server after them: a test package that calls
// DB has `func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }`.
func Main(m *testing.M) int {
	code := m.Run()
	shared.mu.Lock()
	if shared.srv != nil {
		shared.srv.Close()
	}
	shared.mu.Unlock()
	return code
}

// DB returns the URL of a new, empty database on the package's shared server (started at the
// first call), for one test.
func DB(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("pgtest: needs a real PostgreSQL server (Debian's postgresql): skipped under -short")
	}
	shared.mu.Lock()
	if shared.srv == nil && shared.err == nil {
		shared.srv, shared.err = New()
	}
	srv, err := shared.srv, shared.err
	shared.n++
	name := fmt.Sprintf("t%d", shared.n)
	shared.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.CreateDB(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	return srv.DSNFor(name)
}

// CPU returns the CPU time the server's processes (the postmaster and its children now) have
// used, from /proc: for a test that measures the database's share of a load.
func (s *Server) CPU() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	pid := s.cmd.Process.Pid
	var ticks int64
	for _, p := range append(children(pid), pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b)[i+1:])
		if len(f) > 14 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			cu, _ := strconv.ParseInt(f[13], 10, 64)
			cs, _ := strconv.ParseInt(f[14], 10, 64)
			ticks += u + st + cu + cs
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}
