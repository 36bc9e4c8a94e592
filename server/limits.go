package server

import (
	"crypto/sha256"
	"math"
	"net/http"
	"net/netip"
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
	addrs *simplelru.LRU[clientKey, *rate.Limiter]
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
	addrs, err := simplelru.NewLRU[clientKey, *rate.Limiter](cfg.Clients, nil)
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
func (l *limiter) allow(addr clientKey, key *keyHash, now time.Time) (bool, time.Duration) {
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

// clientKey is the client a request is limited by (clientKeyOf), made without allocating: an
// address, or the text of one that does not parse.
type clientKey struct {
	ip  netip.Addr
	raw string // when ip is not valid
}

// clientAddr is the client a request is limited by (its connection's address).
func clientAddr(c echo.Context) clientKey { return clientKeyOf(c.RealIP()) }

// clientKeyOf is the client of an address: an IPv4 address (an IPv4-mapped IPv6 one too), or
// the /64 network of an IPv6 address (one host usually holds a whole /64); anything else that
// is not an address (a zone included) is its own client.
func clientKeyOf(addr string) clientKey {
	ip, err := netip.ParseAddr(addr)
	if err != nil || ip.Zone() != "" {
		return clientKey{raw: addr}
	}
	if ip = ip.Unmap(); ip.Is4() {
		return clientKey{ip: ip}
	}
	return clientKey{ip: netip.PrefixFrom(ip, 64).Masked().Addr()}
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
