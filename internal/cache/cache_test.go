package cache

import (
	"strconv"
	"sync"
	"testing"
	"time"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

func TestGetSetExpire(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := New[string, int](Options{MaxSize: 10, TTL: time.Minute, Now: clk.now})
	if _, ok := c.Get("a"); ok {
		t.Fatal("hit on an empty cache")
	}
	c.Set("a", 1)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("get after set: %v %v", v, ok)
	}
	clk.advance(59 * time.Second)
	if _, ok := c.Get("a"); !ok {
		t.Fatal("expired before its TTL")
	}
	clk.advance(2 * time.Second)
	if v, ok := c.Get("a"); ok {
		t.Fatalf("served %v after its TTL", v)
	}
}

func TestNoTTLKeeps(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := New[string, int](Options{MaxSize: 10, Now: clk.now})
	c.Set("a", 1)
	clk.advance(1000 * time.Hour)
	if _, ok := c.Get("a"); !ok {
		t.Fatal("an entry without TTL expired")
	}
}

func TestClear(t *testing.T) {
	c := New[string, int](Options{MaxSize: 10, TTL: time.Hour})
	c.Set("a", 1)
	c.Clear()
	if _, ok := c.Get("a"); ok {
		t.Fatal("hit after Clear")
	}
	c.Set("a", 2)
	if v, ok := c.Get("a"); !ok || v != 2 {
		t.Fatalf("set after Clear: %v %v", v, ok)
	}
}

// A value read before a Clear (a write committing meanwhile) is not stored.
func TestSetIfUnchanged(t *testing.T) {
	c := New[string, int](Options{MaxSize: 10})
	g := c.Generation()
	c.Clear()
	c.SetIfUnchanged(g, "a", 1)
	if _, ok := c.Get("a"); ok {
		t.Fatal("a value read before a Clear was stored")
	}
	g = c.Generation()
	c.SetIfUnchanged(g, "a", 2)
	if v, ok := c.Get("a"); !ok || v != 2 {
		t.Fatalf("unchanged generation: %v %v", v, ok)
	}
}

func TestBounded(t *testing.T) {
	c := New[string, int](Options{MaxSize: 100})
	for i := range 10_000 {
		c.Set(strconv.Itoa(i), i)
	}
	c.c.CleanUp()
	if n := c.c.EstimatedSize(); n > 100 {
		t.Fatalf("%d entries in a cache of 100", n)
	}
}

func TestOff(t *testing.T) {
	var c *Cache[string, int] = New[string, int](Options{})
	if c != nil {
		t.Fatal("MaxSize 0 made a cache")
	}
	c.Set("a", 1)
	c.Clear()
	if _, ok := c.Get("a"); ok || c.Generation() != 0 {
		t.Fatal("a nil cache hit")
	}
}

// Concurrent use (run with -race).
func TestConcurrent(t *testing.T) {
	c := New[int, int](Options{MaxSize: 1000, TTL: time.Minute})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5000 {
				g := c.Generation()
				if v, ok := c.Get(i % 500); ok && v != i%500 {
					t.Errorf("got %d for %d", v, i%500)
				}
				c.SetIfUnchanged(g, i%500, i%500)
				if w == 0 && i%1000 == 0 {
					c.Clear()
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkGetParallel: cache hits from every core, the lookup cache's hot path.
func BenchmarkGetParallel(b *testing.B) {
	c := New[string, int](Options{MaxSize: 100_000, TTL: time.Minute})
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = "r\x00ns\x00people\x00person-" + strconv.Itoa(i)
		c.Set(keys[i], i)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, ok := c.Get(keys[i%len(keys)]); !ok {
				b.Fatal("miss")
			}
			i++
		}
	})
}
