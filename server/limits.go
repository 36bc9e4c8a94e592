package server

import (
	"crypto/sha256"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// RateLimit is the per-client limit: requests per second and burst. A request is charged to
// its API key once that key has authenticated, and to its client address otherwise: anonymous
// requests, requests with a malformed, unknown or failed key, and the first request of a key.
// RPS 0 turns it off.
type RateLimit struct {
	RPS   float64
	Burst int
	// Clients bounds how many clients' buckets are kept, addresses and keys each (0: 32,768);
	// the least recently seen are forgotten first.
	Clients int
}

const defaultClients = 1 << 15

// limiter keeps a token bucket per client address and per authenticated API key, in two
// tables of bounded size. A forgotten client starts again with a full bucket, which it would
// have anyway once idle for Burst/RPS seconds.
type limiter struct {
	rps   rate.Limit
	burst int
	mu    sync.Mutex
	addrs *simplelru.LRU[string, *rate.Limiter]
	keys  *simplelru.LRU[keyHash, *rate.Limiter]
}

// keyHash identifies an API key without keeping it.
type keyHash [sha256.Size]byte

func hashKey(key string) keyHash { return sha256.Sum256([]byte(key)) }

func newLimiter(cfg RateLimit) *limiter {
	if cfg.RPS <= 0 {
		return nil
	}
	if cfg.Burst <= 0 {
		cfg.Burst = int(math.Ceil(cfg.RPS))
	}
	if cfg.Clients <= 0 {
		cfg.Clients = defaultClients
	}
	addrs, err := simplelru.NewLRU[string, *rate.Limiter](cfg.Clients, nil)
	if err != nil {
		panic(err) // only for a size <= 0, excluded above
	}
	keys, err := simplelru.NewLRU[keyHash, *rate.Limiter](cfg.Clients, nil)
	if err != nil {
		panic(err)
	}
	return &limiter{rps: rate.Limit(cfg.RPS), burst: cfg.Burst, addrs: addrs, keys: keys}
}

// allow takes a token for a request from addr presenting key (nil: none or malformed): from
// the key's bucket when the key has authenticated, else from the address's. When no token is
// left it says how long to wait.
func (l *limiter) allow(addr string, key *keyHash, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	var b *rate.Limiter
	if key != nil {
		b, _ = l.keys.Get(*key)
	}
	if b == nil {
		var ok bool
		if b, ok = l.addrs.Get(addr); !ok {
			b = rate.NewLimiter(l.rps, l.burst)
			l.addrs.Add(addr, b)
		}
	}
	l.mu.Unlock()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// authenticated gives a key that has just authenticated a bucket of its own (kept when it has one).
func (l *limiter) authenticated(key keyHash) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.keys.Get(key); !ok {
		l.keys.Add(key, rate.NewLimiter(l.rps, l.burst))
	}
}

// failed forgets the bucket of a key that no longer authenticates (revoked, user disabled), so
// that its further requests count against their address.
func (l *limiter) failed(key keyHash) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys.Remove(key)
}

// clientAddr is the address a request is limited by: the connection's IPv4 address, or the
// /64 network of an IPv6 address (one host usually holds a whole /64).
func clientAddr(c echo.Context) string {
	ip := net.ParseIP(c.RealIP())
	if ip == nil {
		return c.RealIP()
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// rateLimit answers 429 with Retry-After once a client has used its burst. It runs before
// authentication, so a client over its limit costs no key lookup.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var key *keyHash
		if k, _, ok := bearerKey(c.Request().Header.Get(echo.HeaderAuthorization)); ok {
			h := hashKey(k)
			key = &h
		}
		if ok, wait := s.limiter.allow(clientAddr(c), key, time.Now()); !ok {
			secs := max(int(math.Ceil(wait.Seconds())), 1)
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
			return problemf(http.StatusTooManyRequests, "Too many requests: retry after %d second(s)", secs)
		}
		return next(c)
	}
}
