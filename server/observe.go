package server

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the service's Prometheus metrics, on a registry of its own.
type metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	verifications *prometheus.CounterVec
	reverify      *prometheus.CounterVec
	resolved      sync.Map // childKey -> *child
}

// newMetrics makes the service's metrics, with the extra collectors of other parts (the log
// integrator's).
func newMetrics(s *Server, extra []prometheus.Collector) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_http_requests_total", Help: "HTTP requests by route template, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "svc_http_request_duration_seconds", Help: "HTTP request latency by route template and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route", "method"}),
		verifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_lookup_verifications_total", Help: "Lookup verification attempts by kind and result.",
		}, []string{"kind", "result"}),
		reverify: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_reverification_checks_total", Help: "Re-verification checks of domain sources by outcome.",
		}, []string{"outcome"}),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		// The connection pool: go_sql_* with db_name "sqlite" or "postgres".
		collectors.NewDBStatsCollector(s.store.Pool(), s.store.Dialect()),
		m.requests, m.latency, m.verifications, m.reverify,
	)
	m.reg.MustRegister(logGauges(s.store, s.now)...)
	m.reg.MustRegister(extra...)
	return m
}

// record counts and times a request (Server.observe). Every label has a bounded set of
// values, whatever clients send: the route is the template echo matched (never the raw path;
// "unmatched" when none did), the method one of the standard ones or "other", and the status a
// three-digit code.
func (m *metrics) record(c echo.Context, route string, status int, elapsed time.Duration) {
	o := m.children(route, methodLabel(c.Request().Method), status)
	o.requests.Inc()
	o.latency.Observe(elapsed.Seconds())
}

// childKey names the metrics' children of one route, method and status.
type childKey struct {
	route, method string
	status        int
}

// child holds the resolved children of one childKey: WithLabelValues hashes and looks up its
// labels on every call, which the request path does once per key instead.
type child struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// children returns the resolved children of a route, method and status (every label bounded,
// so the map is too).
func (m *metrics) children(route, method string, status int) *child {
	k := childKey{route, method, status}
	if o, ok := m.resolved.Load(k); ok {
		return o.(*child)
	}
	o := &child{requests: m.requests.WithLabelValues(route, method, statusLabel(status)),
		latency: m.latency.WithLabelValues(route, method)}
	v, _ := m.resolved.LoadOrStore(k, o)
	return v.(*child)
}

// methodLabel is the method as a metric label: the methods of RFC 9110 and PATCH as they are,
// any other token (clients may send any) as "other".
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

// statusLabel is the status as a metric label ("other" outside 100–599).
func statusLabel(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
