package tablebus

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteWhole: a new file is written with its mode; without replace an existing file is refused
// and kept; with replace it is replaced; no temporary file is left either way.
func TestWriteWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "k.key")
	if err := WriteWhole(p, []byte("one"), 0o600, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteWhole(p, []byte("two"), 0o600, false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("overwriting without replace: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("after the refused write: %q", b)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}
	if err := WriteWhole(p, []byte("three"), 0o644, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "three" {
		t.Fatalf("after the replacing write: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	if err := WriteWhole(filepath.Join(dir, "no", "such"), nil, 0o644, true); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("into a missing directory: %v", err)
	}
}
