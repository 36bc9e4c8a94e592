// Package cache is the service's one in-memory cache: bounded, optionally expiring, emptied at
// once by Clear, and safe against a reader putting back what it read before a Clear. It wraps
// github.com/maypok86/otter/v2 (W-TinyLFU eviction, per-entry expiry, lock-free reads) and
// starts no goroutine: expiry runs on the cache's own operations with the given clock.
package cache

import (
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
)

// Options size a cache. MaxSize ≤ 0 means no cache: New returns nil, and a nil *Cache misses
// every Get and ignores every Set.
type Options struct {
	// MaxSize bounds the number of entries; the least valuable are evicted beyond it.
	MaxSize int
	// TTL is how long an entry is served after it was set (0: until evicted or cleared).
	TTL time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Cache maps keys to values. The zero value is not usable; use New.
type Cache[K comparable, V any] struct {
	c *otter.Cache[K, item[V]]
	// gen counts Clears: an entry set in an older generation is never served.
	gen atomic.Uint64
}

type item[V any] struct {
	v   V
	gen uint64
}

// New makes a cache, or returns nil when o.MaxSize ≤ 0.
func New[K comparable, V any](o Options) *Cache[K, V] {
	if o.MaxSize <= 0 {
		return nil
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	oo := &otter.Options[K, item[V]]{MaximumSize: o.MaxSize, Clock: clock(now)}
	if o.TTL > 0 {
		oo.ExpiryCalculator = otter.ExpiryWriting[K, item[V]](o.TTL)
	}
	return &Cache[K, V]{c: otter.Must(oo)}
}

// Get returns the value of k if it was set since the last Clear and has not expired.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	it, ok := c.c.GetIfPresent(k)
	if !ok || it.gen != c.gen.Load() {
		return zero, false
	}
	return it.v, true
}

// Set stores v under k.
func (c *Cache[K, V]) Set(k K, v V) {
	if c != nil {
		c.SetIfUnchanged(c.gen.Load(), k, v)
	}
}

// Generation is read before reading what will be stored with SetIfUnchanged.
func (c *Cache[K, V]) Generation() uint64 {
	if c == nil {
		return 0
	}
	return c.gen.Load()
}

// SetIfUnchanged stores v under k unless Clear ran since gen was read (Generation): a value
// read before a write committed is never served after it.
func (c *Cache[K, V]) SetIfUnchanged(gen uint64, k K, v V) {
	if c == nil || gen != c.gen.Load() {
		return
	}
	// A Clear between the check and the store leaves an entry of the old generation, which Get
	// refuses.
	c.c.Set(k, item[V]{v: v, gen: gen})
}

// Clear empties the cache at once (in O(1): older entries are refused, then evicted or expired).
func (c *Cache[K, V]) Clear() {
	if c != nil {
		c.gen.Add(1)
	}
}

// clock is otter's clock over a time function, without ticks: no background clean-up.
type clock func() time.Time

func (f clock) NowNano() int64                      { return f().UnixNano() }
func (f clock) Tick(time.Duration) <-chan time.Time { return nil }
