package ingest

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/svc-directory/svc/store"
)

// PublisherLister is what the publishers' gauge reads at each scrape.
type PublisherLister interface {
	DediPublishers(ctx context.Context) ([]store.DediPublisher, error)
}

// Metrics are the crawler's: fetches by outcome (this instance's), and publishers by status
// (read from the store at each scrape; every instance reports the same).
type Metrics struct {
	fetches    *prometheus.CounterVec
	publishers prometheus.Collector
}

// NewMetrics makes the crawler's metrics.
func NewMetrics(s PublisherLister) *Metrics {
	return &Metrics{
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_dedi_fetches_total",
			Help: "DeDi documents crawled by this instance, by document (manifest, digests, file) and outcome (an outcome word of docs/dedi-files.md, unreachable or conflict).",
		}, []string{"document", "outcome"}),
		publishers: &publisherGauge{s: s, desc: prometheus.NewDesc("svc_dedi_publishers",
			"DeDi publishers by the status of their last crawl (pending, ok, failed, conflict).", []string{"status"}, nil)},
	}
}

// Collectors are the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.fetches, m.publishers}
}

// crawled counts a crawl's documents.
func (m *Metrics) crawled(rep Report) {
	if m == nil {
		return
	}
	m.fetches.WithLabelValues("manifest", rep.Manifest).Inc()
	if rep.Digests != "" {
		m.fetches.WithLabelValues("digests", rep.Digests).Inc()
	}
	for _, f := range rep.Files {
		m.fetches.WithLabelValues("file", f.Outcome).Inc()
	}
}

type publisherGauge struct {
	s    PublisherLister
	desc *prometheus.Desc
}

func (g *publisherGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

func (g *publisherGauge) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	pubs, err := g.s.DediPublishers(ctx)
	if err != nil {
		return
	}
	counts := map[string]float64{store.DediPending: 0, store.DediOK: 0, store.DediFailed: 0, store.DediConflict: 0}
	for _, p := range pubs {
		counts[p.Status]++
	}
	for status, n := range counts {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, n, status)
	}
}
