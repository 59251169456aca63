package floor

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkApply measures the floor's model: events of a simulated punto banco shoe per second.
func BenchmarkApply(b *testing.B) {
	evs := simulate(b, "punto-banco", "T1", 7, 100000, 0, nil)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		fl := newFloor()
		for i := range evs {
			fl.Apply(Delivery{Event: &evs[i]})
		}
		n += len(evs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkStream measures what a surveillance room sees: the time from an event reaching the
// floor to 20 browsers' streams holding it, one event every 120 ms (a fast dealer), and the
// bytes of one update.
func BenchmarkStream(b *testing.B) {
	const viewers = 20
	evs := simulate(b, "punto-banco", "T1", 7, 2000, 0, nil)
	art, _ := parseArt("test.svg", []byte(testArt))
	fl := newFloor()
	srv, err := NewServer(ServerOptions{Floor: fl, Art: art})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type seen struct {
		seq   uint64
		bytes int
	}
	got := make([]chan seen, viewers)
	for i := range got {
		got[i] = make(chan seen, 1024)
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/stream", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		go func(ch chan seen) {
			sc := bufio.NewScanner(res.Body)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				data, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				var s struct {
					Tables []struct{ Seq uint64 } `json:"tables"`
				}
				json.Unmarshal([]byte(data), &s)
				for _, t := range s.Tables {
					ch <- seen{t.Seq, len(data)}
				}
			}
		}(got[i])
	}
	// The first 200 events set the table up.
	next := 0
	for ; next < 200; next++ {
		fl.Apply(Delivery{Event: &evs[next]})
	}
	var lat []time.Duration
	var bytes, updates int
	b.ResetTimer()
	pace := time.NewTicker(120 * time.Millisecond) // a fast dealer's, on an absolute schedule
	defer pace.Stop()
	for b.Loop() {
		// 30 events at a fast dealer's pace (one every 120 ms): one op is about 4 s.
		for range 30 {
			if next == len(evs) {
				b.Fatal("out of events")
			}
			e := evs[next]
			next++
			<-pace.C
			start := time.Now()
			fl.Apply(Delivery{Event: &e})
			for _, ch := range got {
				for s := range ch {
					bytes += s.bytes
					updates++
					if s.seq >= e.Seq {
						break
					}
				}
			}
			lat = append(lat, time.Since(start))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(bytes)/float64(updates), "bytes/update")
	b.ReportMetric(viewers, "viewers")
}
