package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/driver/camerashoe"
	"github.com/sabot-tables/sabot/tablebus/brokerconf"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/vision/visiontest"
	"github.com/sabot-tables/sabot/vision/visiontest/simcam"
)

// TestCheckConfigMachine runs `sabotd --check-config` on configurations whose settings are
// well formed but name what this machine does not have: every problem is one line naming the
// setting, its value and the problem, and nothing is started or created. /dev/null stands for
// a serial port (a character device anyone may open).
func TestCheckConfigMachine(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("STATE_DIRECTORY", filepath.Join(dir, "state")) // made at start, not by the check
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notProfile := write("not-a-profile.json", `{"format": "a shopping list"}`)
	regular := write("regular", "")
	// A profile the loader accepts: a calibration of the anglo deck's rendered pass.
	r := visiontest.NeedArt(t, "anglo")
	prof, err := simcam.Calibrate(t.Context(), r, rand.New(rand.NewPCG(1, 17)), "check-camera")
	if err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "anglo.json")
	if err := calibration.SaveVision(profile, prof); err != nil {
		t.Fatal(err)
	}
	// Keys as `sabot keys` leaves them (here the development ones): T1's key, and the keyring.
	keys := filepath.Join(dir, "keys")
	if _, _, err := keystore.Dev(keys, "T1"); err != nil {
		t.Fatal(err)
	}
	key, keyring, root := filepath.Join(keys, keystore.TableKeyFile("T1")), filepath.Join(keys, keystore.DevKeyring), filepath.Join(keys, keystore.DevRootPub)
	brokerDir := filepath.Join(dir, "broker")
	if err := os.MkdirAll(brokerDir, 0o700); err != nil {
		t.Fatal(err)
	}
	write("broker/"+brokerconf.AccountsFile, "not accounts\n")
	write("broker/"+brokerconf.PasswdFile, "")

	// The camera shoe's GPIO: what this machine says of the default names (none here).
	var gpio []string
	for _, p := range camerashoe.CheckNames(camerashoe.Names{Exit: "GPIO17", Lid: "GPIO27", Confirm: "GPIO22", Manual: "GPIO23", Void: "GPIO24", LED: "GPIO25"}) {
		if p.What != "gpio" {
			t.Fatalf("the default names: %v", p)
		}
		gpio = append(gpio, `shoe "camera": `+p.Problem)
	}

	reader := "table = T1\nshuffler-port = /dev/null\nshoe-port = /dev/null\n"
	camera := "table = T1\nshuffler-port = /dev/null\nshoe = camera\ncamera = /dev/video63\nvision-profile = " + profile + "\n"
	tests := []struct {
		name, conf string
		want       []string // the problems, in order; none: "configuration OK"
	}{
		{"reading shoe", reader, nil},
		{"the issue's: no shuffler, no camera, no profile",
			"table = T1\nshuffler-port = /dev/ttyUSB7\nshoe = camera\ncamera = /dev/video63\nvision-profile = /etc/sabot/nonexistent.json\n",
			append([]string{
				`shuffler-port "/dev/ttyUSB7": no such device (unplugged? want a serial port, e.g. /dev/ttyUSB0 or /dev/serial/by-id/…)`,
				`camera "/dev/video63": no such device (unplugged? want a V4L2 capture device, /dev/videoN)`,
				`vision-profile "/etc/sabot/nonexistent.json": no such file`,
			}, gpio...)},
		{"a shoe port that is a file", "table = T1\nshuffler-port = /dev/null\nshoe-port = " + regular + "\n",
			[]string{`shoe-port "` + regular + `": not a character device (want a serial port, e.g. /dev/ttyUSB1 or /dev/serial/by-id/…)`}},
		{"a camera by number", strings.Replace(camera, "/dev/video63", "63", 1),
			append([]string{`camera "/dev/video63": no such device (unplugged? want a V4L2 capture device, /dev/videoN)`}, gpio...)},
		{"a camera that is no V4L2 device", strings.Replace(camera, "/dev/video63", "/dev/null", 1),
			append([]string{`camera "/dev/null": want /dev/videoN (a V4L2 capture device) or N`}, gpio...)},
		{"a good profile, the camera missing", camera,
			append([]string{`camera "/dev/video63": no such device (unplugged? want a V4L2 capture device, /dev/videoN)`}, gpio...)},
		{"not a profile", strings.Replace(camera, profile, notProfile, 1),
			append([]string{
				`camera "/dev/video63": no such device (unplugged? want a V4L2 capture device, /dev/videoN)`,
				`vision-profile "` + notProfile + `": bad profile: format is "a shopping list", want "sabot-vision-profile" (is this a vision profile?)`,
			}, gpio...)},
		{"one GPIO line twice", camera + "gpio-void = GPIO17\n",
			append([]string{
				`camera "/dev/video63": no such device (unplugged? want a V4L2 capture device, /dev/videoN)`,
				`gpio-void "GPIO17": also the exit pin: one line cannot serve two functions`,
			}, gpio...)},
		{"keys", reader + "key = " + key + "\nkeyring = " + keyring + "\nroot = " + root + "\n", nil},
		{"a key without its keyring", reader + "key = " + key + "\n",
			[]string{`key "` + key + `": give the keyring too (--keyring), or neither for development keys`}},
		{"a key file missing", reader + "key = " + dir + "/T1.key\nkeyring = " + keyring + "\n",
			[]string{`key "` + dir + `/T1.key": no such file`}},
		{"a keyring that is not one", reader + "key = " + key + "\nkeyring = " + regular + "\n",
			[]string{`keyring "` + regular + `": keyring: tablebus: unsigned payload (no signature trailer)`}},
		{"another table's key", strings.Replace(reader, "T1", "T2", 1) + "key = " + key + "\nkeyring = " + keyring + "\n",
			[]string{`key "` + key + `": cannot sign table T2's events with the keyring ` + keyring}},
		{"a root that is not a key", reader + "root = " + notProfile + "\n",
			[]string{`root "` + notProfile + `": not a PEM PUBLIC KEY`}},
		{"TLS files missing", reader + "mqtt = ssl://broker:8883\nmqtt-ca = " + dir + "/ca.crt\n",
			[]string{`mqtt-ca "` + dir + `/ca.crt": no such file`}},
		{"the embedded broker's accounts", reader + "broker-dir = " + brokerDir + "\n",
			[]string{`broker-dir "` + brokerDir + `": `}},
		{"a journal whose directory is a file", reader + "journal = " + regular + "/T1.db\n",
			[]string{`journal "` + regular + `/T1.db": ` + regular + ` is not a directory`}},
		{"a journal that is a directory", reader + "journal = " + keys + "\n",
			[]string{`journal "` + keys + `": not a regular file`}},
		{"a journal in directories made at start", reader + "journal = " + dir + "/a/b/T1.db\n", nil},
		{"simulated: an unknown card design", "sim = true\nsim-deck = bicycle-rider-back\n",
			[]string{`sim-deck "bicycle-rider-back": no such card design (sabot vision render --list shows those installed)`}},
		{"simulated: the devices are the simulator's", "sim = true\nshuffler-port = /dev/ttyUSB7\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.conf")
			if err := os.WriteFile(path, []byte(tc.conf), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"--config", path, "--check-config"}, &stdout, &stderr)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("%v", err)
				}
				if !strings.HasSuffix(stdout.String(), "# configuration OK\n") {
					t.Errorf("no OK:\n%s", stdout.String())
				}
				return
			}
			if err == nil {
				t.Fatalf("configuration OK; want %q", tc.want)
			}
			t.Logf("%v", err)
			got := strings.Split(err.Error(), "\n")
			ok := len(got) == len(tc.want)
			for i := 0; ok && i < len(got); i++ {
				// A loader's message may go on (a keyring's key ids, the decks installed).
				ok = got[i] == tc.want[i] || strings.HasSuffix(tc.want[i], " ") && strings.HasPrefix(got[i], tc.want[i]) ||
					strings.HasPrefix(got[i], tc.want[i]+" (")
			}
			if !ok {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		t.Errorf("--check-config made the state directory")
	}
}

// TestCheckConfigExit: the binary prints each problem on a line of its own and exits 1.
func TestCheckConfigExit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sabotd")
	}
	bin := buildSabotd(t)
	cmd := exec.Command(bin, "--table", "T1", "--shuffler-port", "/dev/ttyUSB7", "--shoe-port", "/dev/ttyUSB8",
		"--journal", filepath.Join(t.TempDir(), "T1.db"), "--check-config")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
	}
	want := []string{
		`sabotd: shuffler-port "/dev/ttyUSB7": no such device (unplugged? want a serial port, e.g. /dev/ttyUSB0 or /dev/serial/by-id/…)`,
		`sabotd: shoe-port "/dev/ttyUSB8": no such device (unplugged? want a serial port, e.g. /dev/ttyUSB1 or /dev/serial/by-id/…)`,
	}
	if got := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("stderr:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %s", stdout.String())
	}
}
