package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowWriter takes its time over each write, as a pipe to a busy log collector does.
type slowWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(200 * time.Microsecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(p)
}

// Every line written before Close is in the output when Close returns, whole and in each
// writer's order, even when the buffer fills (the writers then wait) and the underlying writer
// is slow; lines written after Close go straight through.
func TestAsyncWriterLosesNothingOnClose(t *testing.T) {
	sw := &slowWriter{}
	a := newAsyncWriter(sw, 4<<10, 0) // small: writers fill it and wait
	const goroutines, lines = 8, 2000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				line := fmt.Sprintf("{\"g\":%d,\"i\":%d,\"pad\":%q}\n", g, i, strings.Repeat("x", i%50))
				if n, err := a.Write([]byte(line)); err != nil || n != len(line) {
					t.Errorf("Write: %d, %v", n, err)
				}
			}
		}()
	}
	wg.Wait()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Write([]byte("{\"after\":true}\n")); err != nil {
		t.Fatal(err)
	}
	sw.mu.Lock()
	out := sw.buf.String()
	writes := sw.writes
	sw.mu.Unlock()
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != goroutines*lines+1 {
		t.Fatalf("%d lines written, want %d", len(got), goroutines*lines+1)
	}
	if got[len(got)-1] != `{"after":true}` {
		t.Errorf("the line written after Close is not last: %q", got[len(got)-1])
	}
	next := make([]int, goroutines)
	for _, l := range got[:len(got)-1] {
		var g, i int
		var pad string
		if _, err := fmt.Sscanf(l, "{\"g\":%d,\"i\":%d,\"pad\":%q}", &g, &i, &pad); err != nil {
			t.Fatalf("a torn line %q: %v", l, err)
		}
		if i != next[g] || pad != strings.Repeat("x", i%50) {
			t.Fatalf("goroutine %d: line %d (pad %d) where %d was next", g, i, len(pad), next[g])
		}
		next[g]++
	}
	if writes >= goroutines*lines {
		t.Errorf("%d writes for %d lines: the lines were not gathered", writes, goroutines*lines)
	}
}

// Close with nothing written returns at once; a second Close is harmless.
func TestAsyncWriterCloseTwice(t *testing.T) {
	sw := &slowWriter{}
	a := newAsyncWriter(sw, 1<<10, time.Millisecond)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// countingWriter counts its writes.
type countingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(p)
}

func (w *countingWriter) state() (string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String(), w.writes
}

// With a linger, lines that come one by one, as requests' access lines do, go out in a few
// writes, not one each (without it, the idle flusher writes each line as it comes); a lone line
// still goes out by itself, without a Close.
func TestAsyncWriterLingerGathersLines(t *testing.T) {
	cw := &countingWriter{}
	a := newAsyncWriter(cw, 1<<20, 20*time.Millisecond)
	defer a.Close()
	const lines = 200
	for i := range lines {
		if _, err := fmt.Fprintf(a, "{\"i\":%d}\n", i); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Microsecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, writes := cw.state()
		if strings.Count(out, "\n") == lines {
			if writes > lines/10 {
				t.Errorf("%d writes for %d lines", writes, lines)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d lines written after 10 s", strings.Count(out, "\n"), lines)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := a.Write([]byte("{\"lone\":true}\n")); err != nil {
		t.Fatal(err)
	}
	for out, _ := cw.state(); !strings.HasSuffix(out, "{\"lone\":true}\n"); out, _ = cw.state() {
		if time.Now().After(deadline) {
			t.Fatal("a lone line was not written")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Close does not wait out the linger: it writes what is gathered and returns.
func TestAsyncWriterCloseDuringLinger(t *testing.T) {
	cw := &countingWriter{}
	a := newAsyncWriter(cw, 1<<20, time.Hour)
	if _, err := a.Write([]byte("{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // the flusher is woken and lingers
	done := make(chan error, 1)
	go func() { done <- a.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the linger")
	}
	if out, _ := cw.state(); out != "{\"a\":1}\n" {
		t.Errorf("written: %q", out)
	}
}
