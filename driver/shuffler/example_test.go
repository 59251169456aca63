package shuffler_test

import (
	"fmt"

	"github.com/sabot-tables/sabot/driver/shuffler"
)

// A STATUS command with sequence number 1, as it goes on the line, and back.
func ExampleAppendFrame() {
	b, _ := shuffler.AppendFrame(nil, shuffler.Frame{Seq: 1, Cmd: shuffler.CmdStatus})
	fmt.Printf("% x\n", b)
	f, n, err := shuffler.Decode(b)
	fmt.Println(f, n, err)
	// Output:
	// 02 00 02 01 01 c9 b0 03
	// seq=1 STATUS 0 bytes 8 <nil>
}
