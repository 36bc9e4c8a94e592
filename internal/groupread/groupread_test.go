package groupread

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

var errMissing = errors.New("missing")

// TestGroupsReadsThatArriveWhileOneIsOut: asks that arrive while a read is out are answered by
// the next read, all in one group, each with its own value; a key the read does not report
// reads as missing.
func TestGroupsReadsThatArriveWhileOneIsOut(t *testing.T) {
	oneServer(t)
	closed := make(chan struct{})
	defer close(closed)
	release := make(chan struct{})
	var mu sync.Mutex
	var groups [][]int
	r := New("test read", closed, errMissing, func(ctx context.Context, keys []int, found func(int, string) error) error {
		mu.Lock()
		groups = append(groups, append([]int(nil), keys...))
		first := len(groups) == 1
		mu.Unlock()
		if first {
			<-release // hold the first read out while the others queue
		}
		for i, k := range keys {
			if k%2 == 0 {
				if err := found(i, "v"+string(rune('0'+k))); err != nil {
					return err
				}
			}
		}
		return nil
	})
	type answer struct {
		v   string
		err error
	}
	answers := make([]answer, 8)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); answers[0].v, answers[0].err = r.Get(t.Context(), 0) }()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(groups) == 1 })
	for k := 1; k < 8; k++ {
		wg.Add(1)
		go func() { defer wg.Done(); answers[k].v, answers[k].err = r.Get(t.Context(), k) }()
	}
	waitFor(t, func() bool { return len(r.queue) == 7 })
	close(release)
	wg.Wait()
	if len(groups) != 2 || len(groups[1]) != 7 {
		t.Fatalf("groups = %v, want the first read alone and the 7 asks that waited in one group", groups)
	}
	for k, a := range answers {
		switch {
		case k%2 == 0 && (a.err != nil || a.v != "v"+string(rune('0'+k))):
			t.Errorf("key %d: %q, %v", k, a.v, a.err)
		case k%2 == 1 && !errors.Is(a.err, errMissing):
			t.Errorf("key %d: %q, %v; want missing", k, a.v, a.err)
		}
	}
}

// TestOneCallerGoingDoesNotFailTheOthers: the group's read runs on until every caller of the
// group has gone; one caller's cancellation ends only its own ask.
func TestOneCallerGoingDoesNotFailTheOthers(t *testing.T) {
	oneServer(t)
	closed := make(chan struct{})
	defer close(closed)
	started := make(chan struct{}, 4)
	gates := []chan struct{}{make(chan struct{}), make(chan struct{})}
	calls := 0
	r := New("test read", closed, errMissing, func(ctx context.Context, keys []int, found func(int, int) error) error {
		gate := gates[calls] // one reader goroutine (oneServer): calls come in turn
		calls++
		started <- struct{}{}
		<-gate
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, k := range keys {
			if err := found(i, k*10); err != nil {
				return err
			}
		}
		return nil
	})
	// One ask holds the reader so that the next two are read in one group.
	hold := make(chan error, 1)
	go func() { _, err := r.Get(t.Context(), 1); hold <- err }()
	<-started
	gone, cancel := context.WithCancel(t.Context())
	goneErr := make(chan error, 1)
	stays := make(chan int, 1)
	go func() { _, err := r.Get(gone, 2); goneErr <- err }()
	go func() { v, _ := r.Get(t.Context(), 3); stays <- v }()
	waitFor(t, func() bool { return len(r.queue) == 2 })
	close(gates[0])
	<-started // the group of 2 and 3 is out
	cancel()
	if err := <-goneErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the caller that went: %v, want context.Canceled", err)
	}
	close(gates[1])
	if v := <-stays; v != 30 {
		t.Errorf("the caller that stayed read %d, want 30", v)
	}
	if err := <-hold; err != nil {
		t.Errorf("the first ask: %v", err)
	}
}

// TestClosedReaderRefuses: once closed, a read answers an error instead of waiting.
func TestClosedReaderRefuses(t *testing.T) {
	closed := make(chan struct{})
	r := New("test read", closed, errMissing, func(context.Context, []int, func(int, int) error) error { return nil })
	close(closed)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := r.Get(ctx, 1); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get on a closed reader: %v, want the closed error at once", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(time.Millisecond)
	}
}

// oneServer makes readers serve with one goroutine (groupReaders: one per two cores), so that
// which asks share a group does not depend on the machine.
func oneServer(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}
