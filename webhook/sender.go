package webhook

import (
	"context"
	"log/slog"
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/svc-directory/svc/store"
)

// Queue is the outbox the sender works from (store.Store).
type Queue interface {
	ClaimWebhookEvents(ctx context.Context, now, leaseUntil time.Time, limit int) ([]store.WebhookEvent, error)
	RecordDelivery(ctx context.Context, e store.WebhookEvent, a store.DeliveryAttempt) error
	WebhookQueue(ctx context.Context) (depth int64, oldest time.Time, err error)
}

// Config tunes a Sender; the zero value takes the defaults.
type Config struct {
	Poster *Poster
	Logger *slog.Logger
	Now    func() time.Time
	// Window is how long after its version an event is retried before it is given up and its
	// subscription marked failing (default 24h).
	Window time.Duration
	// FirstRetry is the wait after the first failed attempt; each further failure doubles it,
	// up to MaxRetry (defaults 5s and 1h).
	FirstRetry, MaxRetry time.Duration
	// Batch is how many events one claim takes (default 20); each is leased for Lease (default
	// a minute, longer than an attempt's timeout), so that another instance takes it only if
	// this one died while sending.
	Batch int
	Lease time.Duration
	// Parallel is how many events of a batch are sent at once (default 8).
	Parallel int
}

// Sender delivers the outbox's due events. Several senders (one per instance) on one
// database share the work: each event is claimed by one of them at a time.
type Sender struct {
	q       Queue
	cfg     Config
	metrics *Metrics
}

// NewSender builds a sender over q.
func NewSender(q Queue, cfg Config) *Sender {
	if cfg.Poster == nil {
		cfg.Poster = NewPoster(PostOptions{})
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Window <= 0 {
		cfg.Window = 24 * time.Hour
	}
	if cfg.FirstRetry <= 0 {
		cfg.FirstRetry = 5 * time.Second
	}
	if cfg.MaxRetry <= 0 {
		cfg.MaxRetry = time.Hour
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 20
	}
	if cfg.Lease <= 0 {
		cfg.Lease = time.Minute
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 8
	}
	return &Sender{q: q, cfg: cfg}
}

// WithMetrics makes the sender count its deliveries in m.
func (s *Sender) WithMetrics(m *Metrics) *Sender { s.metrics = m; return s }

// Outcomes of an attempt.
const (
	OutcomeDelivered = "delivered" // a 2xx answer
	OutcomeRetry     = "retry"     // failed; tried again later
	OutcomeGivenUp   = "given_up"  // failed past the window; the subscription is failing
)

// SendStats counts what one SendOnce did.
type SendStats struct{ Delivered, Retried, GivenUp int }

// retryAfter is the wait after the attempt-th failed attempt.
func (s *Sender) retryAfter(attempt int) time.Duration {
	d := float64(s.cfg.FirstRetry) * math.Pow(2, float64(attempt-1))
	return time.Duration(min(d, float64(s.cfg.MaxRetry)))
}

// SendOnce delivers every event that is due, batch after batch, until none is.
func (s *Sender) SendOnce(ctx context.Context) (SendStats, error) {
	var st SendStats
	for {
		now := s.cfg.Now()
		events, err := s.q.ClaimWebhookEvents(ctx, now, now.Add(s.cfg.Lease), s.cfg.Batch)
		if err != nil || len(events) == 0 {
			return st, err
		}
		// The batch's events are sent side by side, so that a receiver that is slow or does not
		// answer (up to the poster's timeout) does not hold up the others.
		outcomes := make([]string, len(events))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(s.cfg.Parallel)
		for i, e := range events {
			g.Go(func() error {
				var err error
				outcomes[i], err = s.deliver(gctx, e)
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return st, err
		}
		for _, o := range outcomes {
			switch o {
			case OutcomeDelivered:
				st.Delivered++
			case OutcomeRetry:
				st.Retried++
			default:
				st.GivenUp++
			}
		}
	}
}

// deliver sends one event once (check), decides what follows (decide) and records it (store).
func (s *Sender) deliver(ctx context.Context, e store.WebhookEvent) (string, error) {
	at := s.cfg.Now()
	a := store.DeliveryAttempt{At: at}
	headers, err := Headers(e.Secret, e.EventID, at, e.Payload)
	var res Result
	if err == nil {
		res, err = s.cfg.Poster.Post(ctx, e.WebhookURL, headers, e.Payload)
	}
	a.StatusCode = res.StatusCode
	outcome := OutcomeDelivered
	if err != nil {
		a.Error = err.Error()
		outcome = OutcomeRetry
		a.Retry = at.Add(s.retryAfter(e.Attempt))
		if a.Retry.After(e.CreatedAt.Add(s.cfg.Window)) {
			a.Retry, outcome = time.Time{}, OutcomeGivenUp
		}
	}
	a.Delivered = err == nil
	if err := s.q.RecordDelivery(ctx, e, a); err != nil {
		return "", err
	}
	s.metrics.delivered(outcome)
	if outcome != OutcomeDelivered {
		s.cfg.Logger.InfoContext(ctx, "webhook delivery failed", "subscription", e.SubscriptionID, "event", e.EventID,
			"attempt", e.Attempt, "status", res.StatusCode, "error", a.Error, "outcome", outcome)
	}
	return outcome, nil
}

// Run sends due events every interval until ctx ends.
func (s *Sender) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.SendOnce(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.ErrorContext(ctx, "webhook sender", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Metrics are the sender's counters and the outbox's gauges.
type Metrics struct {
	deliveries *prometheus.CounterVec
	gauges     []prometheus.Collector
}

// NewMetrics makes the webhook metrics; the gauges read q at each scrape (every instance
// reports the same outbox), NaN when it does not answer within a second.
func NewMetrics(q Queue, now func() time.Time) *Metrics {
	read := func(f func(depth int64, oldest time.Time) float64) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			depth, oldest, err := q.WebhookQueue(ctx)
			if err != nil {
				return math.NaN()
			}
			return f(depth, oldest)
		}
	}
	return &Metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_webhook_deliveries_total",
			Help: "Webhook delivery attempts by this instance, by outcome: delivered (2xx), retry (failed, tried again later), given_up (failed past the retry window; the subscription is marked failing).",
		}, []string{"outcome"}),
		gauges: []prometheus.Collector{
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "svc_webhook_queue_depth", Help: "Webhook events waiting for delivery (new, or failed and waiting to be retried).",
			}, read(func(depth int64, _ time.Time) float64 { return float64(depth) })),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "svc_webhook_oldest_waiting_seconds", Help: "Age of the oldest webhook event waiting for delivery (0 when none waits).",
			}, read(func(_ int64, oldest time.Time) float64 {
				if oldest.IsZero() {
					return 0
				}
				return max(0, now().Sub(oldest).Seconds())
			})),
		},
	}
}

// Collectors are the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{m.deliveries}, m.gauges...)
}

func (m *Metrics) delivered(outcome string) {
	if m != nil {
		m.deliveries.WithLabelValues(outcome).Inc()
	}
}
