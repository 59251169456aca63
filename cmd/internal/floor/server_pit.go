package floor

import (
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strings"
	"time"
)

// pitJSON serves the pit's figures: ?day=2026-11-29 (UTC) for one day's hours, else each
// table's totals since the view started.
func (s *Server) pitJSON(w http.ResponseWriter, r *http.Request) {
	pit := s.o.Floor.Pit()
	if d := r.URL.Query().Get("day"); d != "" {
		day, err := time.Parse(time.DateOnly, d)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("floor: day %q: want YYYY-MM-DD", d))
			return
		}
		writeJSON(w, http.StatusOK, pit.Rows(day))
		return
	}
	writeJSON(w, http.StatusOK, pit.Totals())
}

// pitReport serves a day's table report: /pit/2026-11-29.csv, or /pit/2026-11-29 to print.
func (s *Server) pitReport(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("day")
	d, isCSV := strings.CutSuffix(name, ".csv")
	day, err := time.Parse(time.DateOnly, d)
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("floor: report %q: want /pit/YYYY-MM-DD or /pit/YYYY-MM-DD.csv", name))
		return
	}
	rows := s.o.Floor.Pit().Rows(day)
	if isCSV {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=\"tables-%s.csv\"", d))
		WriteCSV(w, rows)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	WriteReportHTML(w, day, rows)
}

var reportPage = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Table report {{.Day}}</title>
<style>
body{font:12px/1.4 system-ui,sans-serif;margin:2em;color:#111}
h1{font-size:18px;margin:0 0 .2em}p{margin:0 0 1em;color:#444}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #999;padding:3px 6px;text-align:right}
th{background:#eee}td.l,th.l{text-align:left}tr.day td{font-weight:bold;background:#f5f5f5}
tr.floor td{font-weight:bold;background:#ddd}
@media print{body{margin:0}a{display:none}}
</style></head><body>
<h1>Table report, {{.Day}} (UTC)</h1>
<p>Drop: the bets placed and settled; win: the house's; hold: win ÷ drop. The progressive's bets
feed the floor's pools and are apart. Computed from the tables' feeds; <a href="{{.Day}}.csv">CSV</a>.</p>
<table><tr><th class="l">Table</th><th class="l">Hour</th><th>Rounds</th><th>Voided</th><th>Drop</th><th>Win</th><th>Hold %</th>
<th>Prog. bets</th><th>Prog. drop</th><th>Prog. prizes</th><th>Prog. paid</th><th class="l">Dealers</th></tr>
{{range .Lines}}<tr class="{{.Class}}"><td class="l">{{.Table}}</td><td class="l">{{.Hour}}</td><td>{{.Rounds}}</td><td>{{.Voided}}</td>
<td>{{.Drop}}</td><td>{{.Win}}</td><td>{{.Hold}}</td><td>{{.ProgBets}}</td><td>{{.ProgDrop}}</td><td>{{.ProgPrize}}</td><td>{{.ProgPaid}}</td>
<td class="l">{{.Dealers}}</td></tr>
{{end}}</table></body></html>
`))

type reportLine struct {
	Class, Table, Hour, Drop, Win, Hold, ProgDrop, ProgPaid, Dealers string
	Rounds, Voided, ProgBets, ProgPrize                              int
}

// WriteReportHTML writes a day's table report as a printable page: the same lines as WriteCSV.
func WriteReportHTML(w io.Writer, day time.Time, rows []PitRow) error {
	var lines []reportLine
	for _, l := range reportLines(rows) {
		cls := ""
		switch {
		case l.Table == "ALL":
			cls = "floor"
		case l.Hour == "day":
			cls = "day"
		}
		lines = append(lines, reportLine{Class: cls, Table: l.Table, Hour: l.Hour, Rounds: l.r.Rounds, Voided: l.r.Voided, Drop: cents(l.r.Drop),
			Win: cents(l.r.Win), Hold: l.r.Hold(), ProgBets: l.r.ProgBets, ProgDrop: cents(l.r.ProgDrop), ProgPrize: l.r.ProgPrize,
			ProgPaid: cents(l.r.ProgPaid), Dealers: l.dealers})
	}
	return reportPage.Execute(w, struct {
		Day   string
		Lines []reportLine
	}{day.Format(time.DateOnly), lines})
}
