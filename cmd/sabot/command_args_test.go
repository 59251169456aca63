package main

import "testing"

func TestParseCommandArgs(t *testing.T) {
	c, err := parseCommandArgs([]string{"void", "reason=42", "dealer=d-7"})
	if err != nil || c.Reason != "42" || c.Cmd != "void" {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = parseCommandArgs([]string{"cut", "at=120"})
	if err != nil || c.At != 120 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := parseCommandArgs([]string{"cut", "at=many"}); err == nil {
		t.Fatal("a cut at words")
	}
	if _, err := parseCommandArgs([]string{"dance"}); err == nil {
		t.Fatal("an unknown command")
	}
}
