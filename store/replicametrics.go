package store

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ReplicaMetrics are the replica reads' figures (replicas.go): each replica's health and lag
// at its last probe, the reads each database served, how long reads with a consistency token
// waited for a replica, and the reads that fell back to the primary.
type ReplicaMetrics struct {
	up, lag   *prometheus.GaugeVec
	reads     *prometheus.CounterVec
	tokenWait prometheus.Histogram
	fallbacks *prometheus.CounterVec
	failovers *prometheus.CounterVec
	// The primary (primary.go): whether it answers, and the failovers the probes have seen.
	primaryUp        prometheus.Gauge
	primaryFailovers prometheus.Counter
}

// NewReplicaMetrics returns unregistered metrics; register Collectors() where /metrics is
// served.
func NewReplicaMetrics() *ReplicaMetrics {
	return &ReplicaMetrics{
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "svc_db_replica_up", Help: "1 when the replica answered its last probe as a streaming replica, else 0.",
		}, []string{"replica"}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "svc_db_replica_lag_seconds", Help: "How far the replica's replay was behind the primary at its last probe.",
		}, []string{"replica"}),
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_db_read_queries_total",
			Help: "Queries of requests whose reads may go to a replica, by the database that served them (primary or the replica's host:port).",
		}, []string{"target"}),
		tokenWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "svc_db_consistency_token_wait_seconds",
			Help:    "How long a read with a consistency token waited for a replica to replay past it (0: one already had); reads the primary served instead are counted in svc_db_consistency_fallbacks_total.",
			Buckets: []float64{0, .0005, .001, .0025, .005, .01, .02, .03, .05, .075, .1, .15, .2, .25},
		}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_db_consistency_fallbacks_total",
			Help: "Requests that may read from a replica but went to the primary, by reason: no_replica (none usable), timeout (none replayed past the token in time; token reads only).",
		}, []string{"reason"}),
		failovers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_db_replica_failovers_total", Help: "Reads a replica failed under, run again on the primary.",
		}, []string{"replica"}),
		primaryUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "svc_db_primary_up", Help: "1 when the primary database answered its last probe (writes can be served), else 0.",
		}),
		primaryFailovers: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "svc_db_primary_failovers_total", Help: "Times the probes found the primary database on another node than before (a promotion).",
		}),
	}
}

// Collectors are the metrics to register.
func (m *ReplicaMetrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.up, m.lag, m.reads, m.tokenWait, m.fallbacks, m.failovers, m.primaryUp, m.primaryFailovers}
}

func (m *ReplicaMetrics) probed(replica string, up bool, lag time.Duration) {
	if m == nil {
		return
	}
	if up {
		m.up.WithLabelValues(replica).Set(1)
		m.lag.WithLabelValues(replica).Set(lag.Seconds())
		return
	}
	m.up.WithLabelValues(replica).Set(0)
}

func (m *ReplicaMetrics) read(target string) {
	if m != nil {
		m.reads.WithLabelValues(target).Inc()
	}
}

func (m *ReplicaMetrics) tokenWaited(tok ConsistencyToken, d time.Duration) {
	if m != nil && tok != 0 {
		m.tokenWait.Observe(d.Seconds())
	}
}

func (m *ReplicaMetrics) fellBack(reason string) {
	if m != nil {
		m.fallbacks.WithLabelValues(reason).Inc()
	}
}

func (m *ReplicaMetrics) failedOver(replica string) {
	if m != nil {
		m.failovers.WithLabelValues(replica).Inc()
	}
}

func (m *ReplicaMetrics) primary(up bool) {
	if m == nil {
		return
	}
	if up {
		m.primaryUp.Set(1)
		return
	}
	m.primaryUp.Set(0)
}

func (m *ReplicaMetrics) failover() {
	if m != nil {
		m.primaryFailovers.Inc()
	}
}
