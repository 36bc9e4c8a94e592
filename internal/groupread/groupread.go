// Package groupread serves concurrent point reads in groups: one read (one statement) answers
// every ask that arrived while the previous group was out.
package groupread

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Reader reads point reads of one kind in groups: while one group's query is
// out, the reads that arrive wait in a queue, and the next free reader takes them all (up to
// groupReadMax) in one statement. A lone read goes out at once, so grouping adds no wait when
// the service is idle; under load it spares Postgres a round trip, a parse-bind-execute and an
// executor start per read, which is most of what a point read costs it. The store's
// latest-record lookups and the log's version-to-index reads go through one.
type Reader[K, V any] struct {
	what    string        // in errors: "record lookup"
	closed  chan struct{} // closing it stops the reader
	missing error         // what a key the read did not report reads as
	// read reads keys in one statement and calls found(i, v) for each key i it found (once
	// each); a key it does not report reads missing.
	read func(ctx context.Context, keys []K, found func(i int, v V) error) error

	once  sync.Once
	queue chan groupAsk[K, V]
}

const groupReadMax = 64

// groupReaders is how many groups may be out at once: one per two cores. On a small machine
// one reader gives the largest groups and the most reads per second (measured on two cores
// over HTTP with record lookups: one reader 8.3k/s, two 7.8k/s, three 6.7k/s).
func groupReaders() int { return max(1, runtime.GOMAXPROCS(0)/2) }

type groupAsk[K, V any] struct {
	ctx   context.Context
	key   K
	reply chan groupReply[V] // buffered: a reader never blocks on it
}

type groupReply[V any] struct {
	v   V
	err error
}

// New makes a reader of what (named in its errors) that stops when closed is closed; a key
// read does not report reads as missing. Its goroutines start on its first Get.
func New[K, V any](what string, closed chan struct{}, missing error,
	read func(ctx context.Context, keys []K, found func(i int, v V) error) error) *Reader[K, V] {
	return &Reader[K, V]{what: what, closed: closed, missing: missing, read: read}
}

// Get reads one key through the reader (the missing error when the read did not find it).
func (g *Reader[K, V]) Get(ctx context.Context, key K) (V, error) {
	g.once.Do(func() {
		g.queue = make(chan groupAsk[K, V], 4*groupReadMax)
		for range groupReaders() {
			go g.serve()
		}
	})
	var zero V
	a := groupAsk[K, V]{ctx: ctx, key: key, reply: make(chan groupReply[V], 1)}
	select {
	case g.queue <- a:
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-g.closed:
		return zero, fmt.Errorf("%s: the store is closed", g.what)
	}
	select {
	case r := <-a.reply:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-g.closed:
		return zero, fmt.Errorf("%s: the store is closed", g.what)
	}
}

func (g *Reader[K, V]) serve() {
	batch := make([]groupAsk[K, V], 0, groupReadMax)
	for {
		batch = batch[:0]
		select {
		case <-g.closed:
			return
		case a := <-g.queue:
			batch = append(batch, a)
		}
	drain:
		for len(batch) < groupReadMax {
			select {
			case a := <-g.queue:
				batch = append(batch, a)
			default:
				break drain
			}
		}
		g.readGroup(batch)
	}
}

// readGroup answers every ask of the batch. Asks whose callers have gone are dropped before
// the query; the query runs under a context that ends when every remaining caller's does (a
// single caller's cancellation must not fail the others).
func (g *Reader[K, V]) readGroup(batch []groupAsk[K, V]) {
	live := batch[:0]
	for _, a := range batch {
		if a.ctx.Err() != nil {
			a.reply <- groupReply[V]{err: a.ctx.Err()}
			continue
		}
		live = append(live, a)
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var gone atomic.Int32
	for _, a := range live {
		stop := context.AfterFunc(a.ctx, func() {
			if int(gone.Add(1)) == len(live) {
				cancel()
			}
		})
		defer stop()
	}
	keys := make([]K, len(live))
	for i, a := range live {
		keys[i] = a.key
	}
	answered := make([]bool, len(live))
	err := g.read(ctx, keys, func(i int, v V) error {
		if i < 0 || i >= len(live) || answered[i] {
			return fmt.Errorf("%s: unexpected row %d", g.what, i)
		}
		answered[i] = true
		live[i].reply <- groupReply[V]{v: v}
		return nil
	})
	for i, a := range live {
		switch {
		case err != nil && !answered[i]:
			a.reply <- groupReply[V]{err: err}
		case !answered[i]:
			a.reply <- groupReply[V]{err: g.missing}
		}
	}
}
