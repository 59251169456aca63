package mqttbus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTLSFilesRefuses(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.crt")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	for _, tc := range []struct {
		ca, cert, key, want string
	}{
		{"", "c", "k", "needs the broker's CA"},
		{notPEM, "c", "", "needs both --mqtt-cert and --mqtt-key"},
		{filepath.Join(dir, "none.crt"), "", "", "no such file"},
		{notPEM, "", "", "no PEM certificate"},
	} {
		_, err := TLSFiles(tc.ca, tc.cert, tc.key)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("TLSFiles(%q, %q, %q) = %v, want %q", tc.ca, tc.cert, tc.key, err, tc.want)
		}
	}
	if c, err := TLSFiles("", "", ""); c != nil || err != nil {
		t.Fatalf("no files: %v %v", c, err)
	}
}
