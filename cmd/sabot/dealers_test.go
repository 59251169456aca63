package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestDealersCommand(t *testing.T) {
	dir := t.TempDir()
	key, file := filepath.Join(dir, "dealer.D7.key"), filepath.Join(dir, "dealers.json")
	sabot := func(stdin string, args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
		return out.String(), err
	}
	if _, err := sabot("", "keys", "new", "--out", key); err != nil {
		t.Fatal(err)
	}
	if _, err := sabot("4711\n4712\n", "dealers", "add", "--file", file, "--key", key, "--id", "dealer.D7"); err == nil || !strings.Contains(err.Error(), "the two PINs differ") {
		t.Fatalf("two PINs: %v", err)
	}
	out, err := sabot("4711\n4711\n", "dealers", "add", "--file", file, "--key", key, "--id", "dealer.D7", "--lang", "es")
	if err != nil || !regexp.MustCompile(`^dealer\.D7 \(dealer, es\) added to .*, key [0-9a-f]{16}\n$`).MatchString(out) {
		t.Fatalf("add: %q %v", out, err)
	}
	if out, _ = sabot("", "dealers", "list", "--file", file); !regexp.MustCompile(`^dealer\.D7 +dealer +es  key [0-9a-f]{16}  ok\n$`).MatchString(out) {
		t.Fatalf("list: %q", out)
	}
	if out, err = sabot("", "dealers", "unlock", "--file", file, "--id", "dealer.D7"); err != nil || out != "dealer.D7 unlocked\n" {
		t.Fatalf("unlock: %q %v", out, err)
	}
	if _, err = sabot("", "dealers", "unlock", "--file", file, "--id", "dealer.D9"); err == nil || !strings.Contains(err.Error(), `no such dealer or supervisor: "dealer.D9"`) {
		t.Fatalf("unlock of nobody: %v", err)
	}
}
