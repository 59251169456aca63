package cv

import (
	"fmt"
	"os"
	"testing"
)

// TestMain fails the run when a test leaves Mats open. With -tags matprofile (as make test runs
// this package) every Mat is counted; without it the count stays 0 and the check is moot.
func TestMain(m *testing.M) {
	code := m.Run()
	if n, stacks := openMats(); n > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "%d Mats left open:\n%s", n, stacks)
		code = 1
	}
	os.Exit(code)
}
