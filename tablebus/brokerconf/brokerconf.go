// Package brokerconf writes a site's mosquitto configuration for the table bus (`sabot
// broker-config`): mosquitto.conf with the queue limits raised and persistence on, the ACL file
// (package access), the password file, the account list the embedded broker reads, and a
// certificate authority with server and client certificates for mutual TLS (the certificate's
// common name is the account). It also checks, before mosquitto starts, that the persistence
// directory is writable by the user mosquitto runs as: mosquitto drops to that user and then
// fails every save with nothing but "Error: Permission denied." in its log (research/mqtt.md
// §3.1).
package brokerconf

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/sabot-tables/sabot/tablebus/access"
	"github.com/sabot-tables/sabot/tablebus/broker"
)

// File names in a broker-config directory.
const (
	ConfFile     = "mosquitto.conf"
	ACLFile      = "acl"
	PasswdFile   = "passwd"
	AccountsFile = "accounts"
)

// Config is what mosquitto.conf says.
type Config struct {
	Dir         string // where acl, passwd (and the certificates) live, as mosquitto will see them
	Listen      string // host:port of the listener, e.g. 0.0.0.0:1883 (8883 with TLS)
	TLS         bool   // mutual TLS: ca.crt, server.crt, server.key in Dir; the client CN is the account
	Persistence string // mosquitto's persistence directory (must end with '/')
	// QueueLimit is max_queued_messages per client: mosquitto's default, 1,000, silently
	// dropped a quarter of a 50,000-event burst (research/mqtt.md §5.2).
	QueueLimit int
}

// Conf returns mosquitto.conf.
func Conf(c Config) (string, error) {
	host, port, ok := strings.Cut(c.Listen, ":")
	if !ok || port == "" {
		return "", fmt.Errorf("brokerconf: listen %q: want host:port", c.Listen)
	}
	if _, err := strconv.Atoi(port); err != nil {
		return "", fmt.Errorf("brokerconf: listen %q: bad port", c.Listen)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	if c.QueueLimit <= 0 {
		c.QueueLimit = 1_000_000
	}
	if !strings.HasSuffix(c.Persistence, "/") {
		c.Persistence += "/"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# Sabot table bus: mosquitto 2.0 (sabot broker-config). Check before starting:
#   sabot broker-config check %s
per_listener_settings false
allow_anonymous false
acl_file %s
`, filepath.Join(c.Dir, ConfFile), filepath.Join(c.Dir, ACLFile))
	fmt.Fprintf(&b, "listener %s %s\n", port, host)
	if c.TLS {
		fmt.Fprintf(&b, `cafile %s
certfile %s
keyfile %s
require_certificate true
use_identity_as_username true
tls_version tlsv1.2
`, filepath.Join(c.Dir, "ca.crt"), filepath.Join(c.Dir, "server.crt"), filepath.Join(c.Dir, "server.key"))
	} else {
		fmt.Fprintf(&b, "password_file %s\n", filepath.Join(c.Dir, PasswdFile))
	}
	fmt.Fprintf(&b, `
# Persistence: the broker's queues for persistent sessions survive a restart. The directory
# must be writable by the user mosquitto runs as (sabot broker-config check says so).
persistence true
persistence_location %s
autosave_interval 10

# Queues: never drop silently under a burst (the outbox re-publishes after an outage). In-order
# delivery is the consumers' job (sequence numbers), so more than one message may be in flight.
max_queued_messages %d
max_queued_bytes 0
max_inflight_messages 100
max_packet_size 131072

# Latency: without TCP_NODELAY, mosquitto's second PUBACK of a pair waits for the client's
# delayed ACK (Nagle): a 23 ms mean publish round trip instead of 0.5 ms (BenchmarkFloor50Tables).
set_tcp_nodelay true
`, c.Persistence, c.QueueLimit)
	return b.String(), nil
}

// Spec is an account to create, with its password (empty for TLS-only accounts).
type Spec struct {
	access.Account
	Password string
}

// Write writes mosquitto.conf, acl, passwd and accounts to dir for the given accounts.
func Write(dir string, c Config, specs []Spec) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("brokerconf: %w", err)
	}
	var accts []access.Account
	var pw, ac strings.Builder
	pw.WriteString("# mosquitto password file (sabot broker-config): name:$7$ PBKDF2-SHA512 hash\n")
	ac.WriteString("# Sabot accounts and their roles (sabot broker-config): name role\n")
	seen := map[string]bool{}
	for _, s := range specs {
		if err := s.Check(); err != nil {
			return err
		}
		if seen[s.Name] {
			return fmt.Errorf("brokerconf: account %s given twice", s.Name)
		}
		seen[s.Name] = true
		accts = append(accts, s.Account)
		fmt.Fprintf(&ac, "%s %s\n", s.Name, s.Role)
		if s.Password != "" {
			h, err := access.HashPassword(s.Password)
			if err != nil {
				return err
			}
			fmt.Fprintf(&pw, "%s:%s\n", s.Name, h)
		}
	}
	acl, err := access.MosquittoACL(accts)
	if err != nil {
		return err
	}
	conf, err := Conf(c)
	if err != nil {
		return err
	}
	for name, body := range map[string]string{ConfFile: conf, ACLFile: acl, PasswdFile: pw.String(), AccountsFile: ac.String()} {
		mode := os.FileMode(0o644)
		if name == PasswdFile {
			mode = 0o640
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			return fmt.Errorf("brokerconf: %w", err)
		}
	}
	return nil
}

// ReadAccounts reads a broker-config directory's accounts and password hashes for the
// embedded broker.
func ReadAccounts(dir string) ([]broker.Account, error) {
	b, err := os.ReadFile(filepath.Join(dir, AccountsFile))
	if err != nil {
		return nil, fmt.Errorf("brokerconf: %w", err)
	}
	pb, err := os.ReadFile(filepath.Join(dir, PasswdFile))
	if err != nil {
		return nil, fmt.Errorf("brokerconf: %w", err)
	}
	hashes, err := access.ParsePasswd(pb)
	if err != nil {
		return nil, err
	}
	var out []broker.Account
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("brokerconf: %s line %d: want `name role`", AccountsFile, n)
		}
		role, err := access.ParseRole(f[1])
		if err != nil {
			return nil, fmt.Errorf("brokerconf: %s line %d: %w", AccountsFile, n, err)
		}
		a := broker.Account{Account: access.Account{Name: f[0], Role: role}, Hash: hashes[f[0]]}
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("brokerconf: %s line %d: %w", AccountsFile, n, err)
		}
		out = append(out, a)
	}
	return out, sc.Err()
}

// Persistence returns the persistence_location a mosquitto.conf names ("" if persistence is
// off).
func Persistence(conf []byte) string {
	loc, on := "", false
	sc := bufio.NewScanner(bytes.NewReader(conf))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "persistence" {
			on = f[1] == "true"
		}
		if len(f) == 2 && f[0] == "persistence_location" {
			loc = f[1]
		}
	}
	if !on {
		return ""
	}
	if loc == "" {
		loc = "./"
	}
	return loc
}

// CheckPersistence checks that dir exists and that the account name may create files in it
// (mosquitto writes mosquitto.db there as that user). Run as root, it reads the directory's
// owner and mode; otherwise it creates and removes a file.
func CheckPersistence(dir, account string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("brokerconf: persistence directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("brokerconf: persistence location %s is not a directory", dir)
	}
	if os.Geteuid() != 0 {
		f, err := os.CreateTemp(dir, ".sabot-check-*")
		if err != nil {
			return fmt.Errorf("brokerconf: persistence directory %s is not writable: %w", dir, err)
		}
		name := f.Name()
		werr := f.Sync()
		f.Close()
		os.Remove(name)
		if werr != nil {
			return fmt.Errorf("brokerconf: persistence directory %s: %w", dir, werr)
		}
		return nil
	}
	u, err := user.Lookup(account)
	if err != nil {
		return fmt.Errorf("brokerconf: the user mosquitto runs as: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("brokerconf: cannot read the owner of %s", dir)
	}
	uid, _ := strconv.Atoi(u.Uid)
	groups, _ := u.GroupIds()
	mode := fi.Mode().Perm()
	switch {
	case uid == 0:
		return nil
	case int(st.Uid) == uid:
		if mode&0o300 == 0o300 {
			return nil
		}
	case slices.Contains(groups, strconv.Itoa(int(st.Gid))):
		if mode&0o030 == 0o030 {
			return nil
		}
	default:
		if mode&0o003 == 0o003 {
			return nil
		}
	}
	return fmt.Errorf("brokerconf: persistence directory %s (owner %d:%d, mode %v) is not writable by %s (uid %s): mosquitto would fail every save; run: chown %s %s",
		dir, st.Uid, st.Gid, mode, account, u.Uid, account, dir)
}
