package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A '#' inside a value (a password) is the value's; ' #' after it starts a comment.
func TestConfigHashInValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "T1.conf")
	os.WriteFile(path, []byte("# the table\nmqtt-password = s3cr#t   # not in the value\ntable = T9\n"), 0o600)
	var errb bytes.Buffer
	o, err := parseOptions([]string{"--config", path, "--sim"}, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if o.pass != "s3cr#t" || o.table != "T9" {
		t.Fatalf("password %q, table %q", o.pass, o.table)
	}
}
