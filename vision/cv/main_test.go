package cv

import (
	"fmt"
	"os"
	"testing"
)

// AtExit is run after the tests: what outlives one test (the rendered fixture's directory) is
// removed there.
var AtExit []func()

// TestMain fails the run when a test leaves Mats open. With -tags matprofile (as make test runs
// this package) every Mat is counted; without it the count stays 0 and the check is moot.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, f := range AtExit {
		f()
	}
	if n, stacks := openMats(); n > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "%d Mats left open:\n%s", n, stacks)
		code = 1
	}
	os.Exit(code)
}
