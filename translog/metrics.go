package translog

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the integrator's own figures: how long integrations take and how they end. They
// count the integrations of this instance only; the log's state (its size, its queue) is read
// from the database at each scrape by the server, so every instance reports the same.
type Metrics struct {
	duration *prometheus.HistogramVec
	leaves   prometheus.Counter
	witness  *prometheus.CounterVec
	rollback prometheus.Gauge
}

// NewMetrics returns unregistered metrics; register Collectors() where /metrics is served.
func NewMetrics() *Metrics {
	return &Metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "svc_log_integration_duration_seconds",
			Help:    "Time of one transparency-log integration (take a batch, extend the tiles, sign, commit), by outcome: integrated, idle (nothing waited), failed.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"outcome"}),
		leaves: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "svc_log_integrated_leaves_total", Help: "Leaves this instance integrated into the transparency log.",
		}),
		witness: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_log_witness_requests_total",
			Help: "add-checkpoint requests to the log's witnesses by witness and outcome: cosigned, conflict (409, retried from the witness's size), refused (another 4xx), bad_response (no valid cosignature), unreachable (no answer or a 5xx).",
		}, []string{"witness", "outcome"}),
		rollback: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "svc_log_rolled_back",
			Help: "1 when this instance found the transparency log rolled back (behind a checkpoint signed before, or marked so in the database) and refuses to sign until svc log restart.",
		}),
	}
}

// Collectors are the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.duration, m.leaves, m.witness, m.rollback}
}

// observe records one integration of n leaves that took d and ended with err.
func (m *Metrics) observe(n int, d time.Duration, err error) {
	if m == nil {
		return
	}
	outcome := "integrated"
	switch {
	case err != nil:
		outcome = "failed"
	case n == 0:
		outcome = "idle"
	}
	m.duration.WithLabelValues(outcome).Observe(d.Seconds())
	m.leaves.Add(float64(n))
}

// witnessed counts one add-checkpoint request to witness that ended with outcome.
func (m *Metrics) witnessed(witness, outcome string) {
	if m == nil {
		return
	}
	m.witness.WithLabelValues(witness, outcome).Inc()
}

// rolledBack records whether the integrator refuses to sign a rolled-back log.
func (m *Metrics) rolledBack(yes bool) {
	if m == nil {
		return
	}
	v := 0.0
	if yes {
		v = 1
	}
	m.rollback.Set(v)
}
