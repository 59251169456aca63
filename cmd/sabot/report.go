package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

func init() {
	addCommand(command{name: "report", summary: "a day's table report from the tables' journals (CSV or a printable page)", run: runReport})
}

// runReport computes the pit's figures of one day from the tables' journals, with the code the
// floor view computes them with from the feed (the two reconcile to the cent: TestPitReconciles).
func runReport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("report", "--journal T1=var/T1.db [--journal …] --day YYYY-MM-DD [--html]", stderr)
	var js stringList
	fs.Var(&js, "journal", "a table's journal, TABLE=PATH (repeatable)")
	dayFlag := fs.String("day", "", "the day (UTC), YYYY-MM-DD (default: today)")
	html := fs.Bool("html", false, "a printable page instead of CSV")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(js) == 0 {
		fs.Usage()
		return errUsage
	}
	day := time.Now().UTC()
	if *dayFlag != "" {
		var err error
		if day, err = time.Parse(time.DateOnly, *dayFlag); err != nil {
			return fmt.Errorf("report: --day %q: want YYYY-MM-DD", *dayFlag)
		}
	}
	pit := floor.NewPit()
	for _, spec := range js {
		table, path, ok := strings.Cut(spec, "=")
		if !ok {
			return fmt.Errorf("report: --journal %q: want TABLE=PATH", spec)
		}
		j, err := journal.OpenReadOnly(path)
		if err != nil {
			return err
		}
		if j.Table() != table {
			j.Close()
			return fmt.Errorf("report: %s is table %s's journal, not %s's", path, j.Table(), table)
		}
		err = pit.ApplyJournal(ctx, j)
		j.Close()
		if err != nil {
			return err
		}
	}
	if *html {
		return floor.WriteReportHTML(stdout, day, pit.Rows(day))
	}
	return floor.WriteCSV(stdout, pit.Rows(day))
}
