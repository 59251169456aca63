package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
)

// loadConfig applies a configuration file to fs: one `name = value` per line, where name is a
// flag of sabotd (without dashes), `#` starts a comment. Flags given on the command line win
// over the file. Every problem names the file and the line.
func loadConfig(fs *flag.FlagSet, path string, explicit map[string]bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		// A comment is a line starting with '#', or ' #' after a value: a '#' inside a value
		// (a password) stays.
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if i := strings.Index(line, "\t#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return fmt.Errorf("config %s:%d: want `name = value`, got %q", path, n, line)
		}
		name, value = strings.TrimSpace(name), strings.Trim(strings.TrimSpace(value), `"`)
		if name == "config" || fs.Lookup(name) == nil {
			return fmt.Errorf("config %s:%d: unknown setting %q (see sabotd -h)", path, n, name)
		}
		if explicit[name] {
			continue
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("config %s:%d: %s: %w", path, n, name, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}
