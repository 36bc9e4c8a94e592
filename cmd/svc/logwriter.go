package main

import (
	"io"
	"sync"
	"time"
)

// asyncWriter is the log's writer under svc serve: a line written (slog writes each record in
// one call, under the handler's own lock) is appended to a buffer and the call returns; one
// goroutine writes what has gathered to the underlying writer, so that under load many lines
// go out in one write, and no request waits on the write of its access line. Nothing is lost:
// a writer finding the buffer full (max bytes) waits for the flusher, and Close writes what is
// left before it returns; lines written after Close go straight to the underlying writer.
// Woken by a line, the flusher lingers (linger) before it takes the buffer, so that a write
// carries the lines of that while rather than the one or two that came while it was last
// writing: under load one write (one system call) per linger instead of nearly one per
// request; a line reaches the underlying writer at most linger later.
type asyncWriter struct {
	w      io.Writer
	max    int
	linger time.Duration
	wake   chan struct{} // capacity 1: the flusher has something to write
	stop   chan struct{} // closed by Close
	done   chan struct{} // closed when the flusher has returned

	mu      sync.Mutex
	drained *sync.Cond // signalled when the flusher has taken the buffer
	buf     []byte
	closing bool // Close has begun: writers no longer wait for room
	direct  bool // Close has written the rest: writes go straight to w
}

func newAsyncWriter(w io.Writer, max int, linger time.Duration) *asyncWriter {
	a := &asyncWriter{w: w, max: max, linger: linger, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	a.drained = sync.NewCond(&a.mu)
	go a.flush()
	return a
}

// Write keeps a copy of p for the flusher.
func (a *asyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	if a.direct {
		defer a.mu.Unlock()
		return a.w.Write(p)
	}
	for len(a.buf) >= a.max && !a.closing {
		a.drained.Wait()
	}
	a.buf = append(a.buf, p...)
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// flush writes what has gathered, each time it is woken, until Close.
func (a *asyncWriter) flush() {
	defer close(a.done)
	var out []byte
	var wait *time.Timer
	if a.linger > 0 {
		wait = time.NewTimer(a.linger)
		wait.Stop()
	}
	for {
		select {
		case <-a.wake:
		case <-a.stop:
			return
		}
		if wait != nil {
			wait.Reset(a.linger)
			select {
			case <-wait.C:
			case <-a.stop: // Close writes the rest
				return
			}
		}
		a.mu.Lock()
		out, a.buf = a.buf, out[:0]
		a.drained.Broadcast()
		a.mu.Unlock()
		if len(out) > 0 {
			_, _ = a.w.Write(out) // a log line that cannot be written has nowhere else to go
		}
	}
}

// Close stops the flusher and writes the rest, in order; later writes go straight through.
func (a *asyncWriter) Close() error {
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		return nil
	}
	a.closing = true
	a.drained.Broadcast()
	a.mu.Unlock()
	close(a.stop)
	<-a.done
	a.mu.Lock()
	defer a.mu.Unlock()
	var err error
	if len(a.buf) > 0 {
		_, err = a.w.Write(a.buf)
	}
	a.buf, a.direct = nil, true
	return err
}
