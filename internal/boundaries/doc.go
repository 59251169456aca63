// Package boundaries holds no code: its test is the module's import rules, the idea of
// golangci-lint's depguard written as a Go test so that `go test ./...` enforces it. It reads
// the import block of every .go file of the module (go/parser, build tags ignored, tests
// included) and fails on an import that breaks the shape of STYLE.md:
//
//   - each third-party library is imported only where it lives (gocv under vision/, paho in
//     tablebus/mqttbus, go.bug.st/serial and periph under driver/, …);
//   - the card type, shoe/card, imports nothing else of the module;
//   - the layers of the data flow, driver → shoe → tablebus → games, with vision and
//     calibration beside them, meet only in cmd/, which wires them: a package imports another
//     layer only where an exception listed in the test, with its reason, allows it.
//
// A known exception that no longer occurs fails too, so that the list stays the truth.
package boundaries
