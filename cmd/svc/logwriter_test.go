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
	a := newAsyncWriter(sw, 4<<10) // small: writers fill it and wait
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
	a := newAsyncWriter(sw, 1<<10)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}
