package server

import (
	"crypto/sha256"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// RateLimit is the per-client limit: requests per second and burst, per API key (by the hash
// of the presented key) or, for anonymous requests, per client address. RPS 0 turns it off.
type RateLimit struct {
	RPS   float64
	Burst int
}

// limiter keeps one token bucket per client, forgetting clients idle for a while.
type limiter struct {
	cfg     RateLimit
	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	l    *rate.Limiter
	seen time.Time
}

func newLimiter(cfg RateLimit) *limiter {
	if cfg.RPS <= 0 {
		return nil
	}
	if cfg.Burst <= 0 {
		cfg.Burst = int(math.Ceil(cfg.RPS))
	}
	return &limiter{cfg: cfg, buckets: map[string]*bucket{}}
}

// allow takes a token for the client; when none is left it says how long to wait.
func (l *limiter) allow(client string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > 10*time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[client]
	if b == nil {
		b = &bucket{l: rate.NewLimiter(rate.Limit(l.cfg.RPS), l.cfg.Burst)}
		l.buckets[client] = b
	}
	b.seen = now
	r := b.l.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// clientKey names the client of a request: its API key's hash, or its address.
func clientKey(c echo.Context) string {
	if h := c.Request().Header.Get(echo.HeaderAuthorization); h != "" {
		sum := sha256.Sum256([]byte(h))
		return "k" + string(sum[:16])
	}
	return "a" + c.RealIP()
}

// rateLimit answers 429 with Retry-After once a client has used its burst.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if ok, wait := s.limiter.allow(clientKey(c), time.Now()); !ok {
			secs := int(math.Ceil(wait.Seconds()))
			c.Response().Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
			return newAPIError(http.StatusTooManyRequests, "Too many requests: retry after %d second(s)", max(secs, 1))
		}
		return next(c)
	}
}
