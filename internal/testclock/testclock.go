// Package testclock is a settable clock for tests that inject one (a Now func() time.Time).
package testclock

import (
	"sync"
	"time"
)

// Clock starts at the time it is made at and moves only when told to. It is safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock at the current time.
func New() *Clock { return &Clock{t: time.Now()} }

// Now is the clock's time (pass it as the Now of a configuration).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
