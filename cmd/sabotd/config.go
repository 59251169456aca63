package main

import (
	"bufio"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/driver/camerashoe"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/brokerconf"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
	"github.com/sabot-tables/sabot/vision/visiontest"
)

// loadConfig applies a configuration file to fs: one `name = value` per line, where name is a
// flag of sabotd (without dashes), `#` starts a comment. Flags given on the command line win
// over the file. Every problem names the file and the line.
func loadConfig(fs *flag.FlagSet, path string, explicit map[string]bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		// A comment is a line starting with '#', or ' #' after a value: a '#' inside a value
		// (a password) stays.
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if i := strings.Index(line, "\t#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return fmt.Errorf("config %s:%d: want `name = value`, got %q", path, n, line)
		}
		name, value = strings.TrimSpace(name), strings.Trim(strings.TrimSpace(value), `"`)
		if name == "config" || fs.Lookup(name) == nil {
			return fmt.Errorf("config %s:%d: unknown setting %q (see sabotd -h)", path, n, name)
		}
		if explicit[name] {
			continue
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("config %s:%d: %s: %w", path, n, name, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// checkConfig checks what the start would need of this machine, without starting anything
// (sabotd --check-config): the files it would read load and verify (the vision profile with
// the calibration package's loader, the keys and the keyring, the TLS files, the embedded
// broker's accounts), the serial ports and the camera are character devices this user can
// open, the camera shoe's GPIO names are usable, and the journal's directory is writable. It
// returns every problem, one a line, each naming the setting, its value and the problem.
func checkConfig(o *options) error {
	var errs []error
	bad := func(setting, value, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s %q: %s", setting, value, fmt.Sprintf(format, a...)))
	}
	// file reports a file's problem from its loader's error, without repeating its path.
	file := func(setting, path string, err error) {
		if err != nil {
			bad(setting, path, "%s", fileProblem(path, err))
		}
	}

	if !o.sim {
		checkDevice(bad, "shuffler-port", o.shufflerPort, "a serial port, e.g. /dev/ttyUSB0 or /dev/serial/by-id/…")
		switch o.shoeKind {
		case "reader":
			checkDevice(bad, "shoe-port", o.shoePort, "a serial port, e.g. /dev/ttyUSB1 or /dev/serial/by-id/…")
		case "camera":
			cam := o.camera
			if n, err := strconv.Atoi(cam); err == nil && n >= 0 {
				cam = fmt.Sprintf("/dev/video%d", n) // cv.OpenDevice takes N for /dev/videoN
			}
			if !strings.HasPrefix(cam, "/dev/video") {
				bad("camera", o.camera, "want /dev/videoN (a V4L2 capture device) or N")
			} else {
				checkDevice(bad, "camera", cam, "a V4L2 capture device, /dev/videoN")
			}
			_, err := calibration.LoadVision(o.visionProfile)
			file("vision-profile", o.visionProfile, err)
			for _, p := range camerashoe.CheckNames(camerashoe.Names{Exit: o.gpio.exit, Lid: o.gpio.lid, Confirm: o.gpio.confirm,
				Manual: o.gpio.manual, Void: o.gpio.void, LED: o.gpio.led}) {
				if p.What == "gpio" {
					errs = append(errs, fmt.Errorf("shoe %q: %s", o.shoeKind, p.Problem))
					continue
				}
				bad("gpio-"+p.What, p.Name, "%s", p.Problem)
			}
		}
	} else if o.shoeKind == "camera" {
		if _, err := visiontest.LookupDeck(o.simDeck); err != nil && len(visiontest.Decks()) > 0 {
			bad("sim-deck", o.simDeck, "no such card design (sabot vision render --list shows those installed)")
		} else if err != nil {
			bad("sim-deck", o.simDeck, "%s", fileProblem("", err))
		}
	}

	// The table's keys: each file on its own, then whether the key may sign this table's events.
	var root ed25519.PublicKey
	if o.root != "" {
		var err error
		root, err = tablebus.ReadPublicKey(o.root)
		file("root", o.root, err)
	}
	switch {
	case o.key != "" && o.keyring == "":
		bad("key", o.key, "give the keyring too (--keyring), or neither for development keys")
	case o.key == "" && o.keyring != "":
		bad("keyring", o.keyring, "give the table's key too (--key), or neither for development keys")
	case o.key != "":
		priv, kerr := tablebus.ReadPrivateKey(o.key)
		file("key", o.key, kerr)
		kr, rerr := keystore.ReadKeyring(o.keyring, root)
		file("keyring", o.keyring, rerr)
		if kerr == nil && rerr == nil {
			s := tablebus.NewSigner(priv)
			if _, err := kr.TableKey(s.KeyID(), o.table, time.Now()); err != nil {
				bad("key", o.key, "cannot sign table %s's events with the keyring %s (%s): %v", o.table, o.keyring, kr, err)
			}
		}
	}

	// The broker: TLS files, or the embedded broker's accounts.
	tlsRead := true
	for _, f := range []struct{ setting, path string }{{"mqtt-ca", o.mqttCA}, {"mqtt-cert", o.mqttCert}, {"mqtt-key", o.mqttKey}} {
		if f.path != "" {
			_, err := os.ReadFile(f.path)
			file(f.setting, f.path, err)
			tlsRead = tlsRead && err == nil
		}
	}
	if tlsRead {
		if _, err := mqttbus.TLSFiles(o.mqttCA, o.mqttCert, o.mqttKey); err != nil {
			errs = append(errs, err)
		}
	}
	if o.mqtt == "" && o.brokerDir != "" {
		_, err := brokerconf.ReadAccounts(o.brokerDir)
		file("broker-dir", o.brokerDir, err)
	}

	checkJournal(bad, o.journal)
	return errors.Join(errs...)
}

// checkDevice reports a device path that does not exist, is not a character device, or that
// this user cannot open for reading and writing. The device is not opened: opening a serial
// port can reset the device behind it.
func checkDevice(bad func(setting, value, format string, a ...any), setting, path, want string) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		bad(setting, path, "no such device (unplugged? want %s)", want)
	case err != nil:
		bad(setting, path, "%s", fileProblem(path, err))
	case fi.Mode()&fs.ModeCharDevice == 0:
		bad(setting, path, "not a character device (want %s)", want)
	case syscall.Access(path, accessRW) != nil:
		bad(setting, path, "this user cannot read and write it (for a serial port: is the user in group dialout? for a camera: in group video?)")
	}
}

// accessRW is access(2)'s R_OK|W_OK.
const accessRW = 0x4 | 0x2

// checkJournal reports a journal that could not be created or written: its directory (or the
// nearest existing parent, the rest is created at start) must be a writable directory, and an
// existing journal a regular file.
func checkJournal(bad func(setting, value, format string, a ...any), path string) {
	if fi, err := os.Stat(path); err == nil {
		switch {
		case !fi.Mode().IsRegular():
			bad("journal", path, "not a regular file")
		case syscall.Access(path, accessRW) != nil:
			bad("journal", path, "this user cannot read and write it")
		}
		return
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) { // ENOTDIR: said of the directory below
		bad("journal", path, "%s", fileProblem(path, err))
		return
	}
	dir := filepath.Dir(path)
	for {
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist) && filepath.Dir(dir) != dir:
			dir = filepath.Dir(dir) // created at start
			continue
		case err != nil:
			bad("journal", path, "%s: %s", dir, fileProblem(dir, err))
		case !fi.IsDir():
			bad("journal", path, "%s is not a directory", dir)
		case syscall.Access(dir, 0x2|0x1) != nil: // W_OK|X_OK
			bad("journal", path, "this user cannot write in %s", dir)
		}
		return
	}
}

// fileProblem says what is wrong with a file from the error reading it gave.
func fileProblem(path string, err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "this user cannot read it"
	case errors.As(err, &pe):
		return pe.Err.Error() // "is a directory", …
	}
	// The loaders name the file, and their package: the setting's line already says which.
	msg := err.Error()
	if path != "" {
		msg = strings.ReplaceAll(msg, path+": ", "")
	}
	for {
		i := strings.Index(msg, ": ")
		if i < 0 || !slices.Contains(loaders, msg[:i]) {
			return msg
		}
		msg = msg[i+2:]
	}
}

// loaders are the packages whose prefix fileProblem drops.
var loaders = []string{"calibration", "keystore", "tablebus", "brokerconf", "visiontest", "mqtt"}
