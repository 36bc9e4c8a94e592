package ingest_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestIngestMetrics: fetches are counted by document and outcome, publishers by status.
func TestIngestMetrics(t *testing.T) {
	s := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	c := &clock{t: t0}
	o := newOrigin(t)
	p := newPublisher(t, o, "pub.test", c.Now())
	p.registry("keys", rec("a", map[string]any{"id": "a"}))
	p.publish(t, c.Now())
	_, _ = s.AddDediPublisher(ctx, "pub.test")
	_, _ = s.AddDediPublisher(ctx, "dark.test")
	o.dns.SetAddrs("dark.test", "127.0.0.1")
	m := ingest.NewMetrics(s)
	svc := ingest.New(ingest.Config{Store: s, Fetcher: o.fetcher(nil), Now: c.Now, Logger: slog.New(slog.DiscardHandler), Interval: time.Hour, Metrics: m, CreatorDID: testDID})
	for _, d := range []string{"pub.test", "dark.test"} {
		if _, err := svc.Crawl(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.Collectors()...)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		for _, mt := range f.Metric {
			key := f.GetName()
			for _, l := range mt.Label {
				key += "," + l.GetValue()
			}
			if mt.Counter != nil {
				got[key] = mt.Counter.GetValue()
			} else {
				got[key] = mt.Gauge.GetValue()
			}
		}
	}
	for k, want := range map[string]float64{
		"svc_dedi_fetches_total,manifest,authentic":             1,
		"svc_dedi_fetches_total,file,authentic":                 1,
		"svc_dedi_fetches_total,manifest,unavailable_authority": 1,
		"svc_dedi_publishers,ok":                                1,
		"svc_dedi_publishers,failed":                            1,
		"svc_dedi_publishers,pending":                           0,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], want, got)
		}
	}
}
