package webhook

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/svc-directory/svc/store"
)

// Queue is the outbox the sender works from (store.Store).
type Queue interface {
	ClaimWebhookEvents(ctx context.Context, now, leaseUntil time.Time, c store.WebhookClaim) ([]store.WebhookEvent, error)
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
	// Batch is the most events one claim takes (default 20); each is leased for Lease (default
	// a minute, longer than two attempts' timeouts), so that another instance takes it only if
	// this one died while sending.
	Batch int
	Lease time.Duration
	// Parallel is how many deliveries this sender holds at once, sending or waiting for their
	// subscriber's turn (default 64); PerSubscriber how many of them one subscriber (the user
	// who holds the subscriptions) may have in flight (default 4). A subscriber whose receivers
	// hang fills its own slots only: the others' deliveries are claimed and sent meanwhile.
	Parallel, PerSubscriber int
}

// Sender delivers the outbox's due events. Several senders (one per instance) on one
// database share the work: each event is claimed by one of them at a time. A sender schedules
// subscribers fairly: it claims events round by round across subscribers, skips those whose
// slots are full, and sends each delivery on its own, bounded by the poster's timeout, so
// that a receiver that hangs delays only its own subscriber's deliveries.
type Sender struct {
	q       Queue
	cfg     Config
	metrics *Metrics

	mu      sync.Mutex
	held    int                             // deliveries in flight or waiting for their subscriber's slot
	busy    map[string]int                  // deliveries in flight, by subscriber
	waiting map[string][]store.WebhookEvent // claimed deliveries waiting for their subscriber's slot
	stats   SendStats
	err     error         // the first failure to record an attempt since the last SendOnce
	done    chan struct{} // a delivery ended (capacity 1: a wake-up, not a count)
	wg      sync.WaitGroup
	// wake, when set (WithWake), makes Run look for due events at once, no sooner than minGap
	// after its last look.
	wake   <-chan struct{}
	minGap time.Duration
}

// WithWake makes Run look for due events when wake receives (a write queued events:
// store.Listen), no sooner than minGap after its last look, besides every interval; a failed
// attempt wakes it when its retry is due.
func (s *Sender) WithWake(wake <-chan struct{}, minGap time.Duration) *Sender {
	s.wake, s.minGap = wake, minGap
	return s
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
		cfg.Parallel = 64
	}
	if cfg.PerSubscriber <= 0 {
		cfg.PerSubscriber = 4
	}
	return &Sender{q: q, cfg: cfg, busy: map[string]int{}, waiting: map[string][]store.WebhookEvent{}, done: make(chan struct{}, 1)}
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

// SendOnce delivers every event that is due until none is and every delivery it started has
// ended, and says what it did.
func (s *Sender) SendOnce(ctx context.Context) (SendStats, error) {
	for {
		claimed, skipped, err := s.fill(ctx)
		if err != nil {
			s.wg.Wait()
			return s.takeStats(err)
		}
		s.mu.Lock()
		idle := s.held == 0
		s.mu.Unlock()
		if idle {
			if !claimed && !skipped {
				return s.takeStats(nil)
			}
			continue // a subscriber was skipped whose deliveries have ended since: claim again
		}
		select {
		case <-s.done:
		case <-ctx.Done():
			s.wg.Wait()
			return s.takeStats(ctx.Err())
		}
	}
}

func (s *Sender) takeStats(err error) (SendStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, first := s.stats, s.err
	s.stats, s.err = SendStats{}, nil
	if err == nil {
		err = first
	}
	return st, err
}

// fill claims due events while this sender has slots free, and starts each whose subscriber
// has a slot free; the others wait for one (they are leased meanwhile: a subscriber never
// holds more than twice its slots, so a waiting event starts within one attempt's timeout,
// well inside its lease). It reports whether it claimed anything, and whether its last claim
// skipped a subscriber whose slots were full.
func (s *Sender) fill(ctx context.Context) (claimedAny, skipped bool, err error) {
	for {
		s.mu.Lock()
		free := min(s.cfg.Parallel-s.held, s.cfg.Batch)
		var skip []string
		for u, n := range s.busy {
			if n+len(s.waiting[u]) >= s.cfg.PerSubscriber {
				skip = append(skip, u)
			}
		}
		s.mu.Unlock()
		skipped = len(skip) > 0
		if free <= 0 {
			return claimedAny, skipped, nil
		}
		now := s.cfg.Now()
		events, err := s.q.ClaimWebhookEvents(ctx, now, now.Add(s.cfg.Lease),
			store.WebhookClaim{Limit: free, PerUser: s.cfg.PerSubscriber, SkipUsers: skip})
		if err != nil {
			return claimedAny, skipped, err
		}
		if len(events) == 0 {
			return claimedAny, skipped, nil
		}
		claimedAny = true
		s.mu.Lock()
		for _, e := range events {
			s.held++
			if s.busy[e.UserID] < s.cfg.PerSubscriber {
				s.start(ctx, e)
			} else {
				s.waiting[e.UserID] = append(s.waiting[e.UserID], e)
			}
		}
		s.mu.Unlock()
		if len(events) < free {
			return claimedAny, skipped, nil
		}
	}
}

// start sends e on its own; s.mu is held.
func (s *Sender) start(ctx context.Context, e store.WebhookEvent) {
	s.busy[e.UserID]++
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		outcome, err := s.deliver(ctx, e)
		s.mu.Lock()
		switch {
		case err != nil:
			if s.err == nil {
				s.err = err
			}
			if ctx.Err() == nil {
				s.cfg.Logger.ErrorContext(ctx, "webhook sender: recording an attempt", "event", e.EventID, "error", err)
			}
		case outcome == OutcomeDelivered:
			s.stats.Delivered++
		case outcome == OutcomeRetry:
			s.stats.Retried++
		default:
			s.stats.GivenUp++
		}
		s.held--
		if s.busy[e.UserID]--; s.busy[e.UserID] == 0 {
			delete(s.busy, e.UserID)
		}
		switch next := s.waiting[e.UserID]; {
		case len(next) > 0 && ctx.Err() != nil: // stopping: they go back to the outbox when their lease ends
			s.held -= len(next)
			delete(s.waiting, e.UserID)
		case len(next) > 0:
			s.waiting[e.UserID] = next[1:]
			if len(next) == 1 {
				delete(s.waiting, e.UserID)
			}
			s.start(ctx, next[0])
		}
		s.mu.Unlock()
		select {
		case s.done <- struct{}{}:
		default:
		}
	}()
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
	if outcome == OutcomeRetry && s.wake != nil {
		// Woken by writes, Run polls seldom: the retry wakes it when it is due.
		time.AfterFunc(s.retryAfter(e.Attempt), func() {
			select {
			case s.done <- struct{}{}:
			default:
			}
		})
	}
	s.metrics.delivered(outcome)
	if outcome != OutcomeDelivered {
		s.cfg.Logger.InfoContext(ctx, "webhook delivery failed", "subscription", e.SubscriptionID, "event", e.EventID,
			"attempt", e.Attempt, "status", res.StatusCode, "error", a.Error, "outcome", outcome)
	}
	return outcome, nil
}

// Run sends due events until ctx ends: it claims more whenever a delivery ends, and looks for
// new due events every interval. It returns once its deliveries have ended.
func (s *Sender) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	defer s.wg.Wait()
	for {
		began := time.Now()
		if _, _, err := s.fill(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.ErrorContext(ctx, "webhook sender", "error", err)
		}
		_, _ = s.takeStats(nil)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.done:
		case <-s.wake:
			if d := s.minGap - time.Since(began); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
			}
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
