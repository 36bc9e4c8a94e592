package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/store"
)

// queue hands out its events once and reports each recorded attempt.
type queue struct {
	mu       sync.Mutex
	events   []store.WebhookEvent
	recorded chan store.DeliveryAttempt
}

func (q *queue) ClaimWebhookEvents(context.Context, time.Time, time.Time, store.WebhookClaim) ([]store.WebhookEvent, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.events
	q.events = nil
	return out, nil
}

func (q *queue) RecordDelivery(_ context.Context, e store.WebhookEvent, a store.DeliveryAttempt) error {
	q.recorded <- a
	return nil
}

func (q *queue) WebhookQueue(context.Context) (int64, time.Time, error) { return 0, time.Time{}, nil }

// A receiver that does not answer holds up only its own delivery: the next event of the batch
// is delivered meanwhile, and the failing one is retried with the doubling waits.
func TestSlowReceiverDoesNotHoldUpOthers(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer slow.Close()
	defer close(release)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer fast.Close()
	now := time.Now()
	q := &queue{recorded: make(chan store.DeliveryAttempt, 4), events: []store.WebhookEvent{
		{EventID: "msg_slow", WebhookURL: slow.URL, Secret: NewSecret(), Payload: []byte("{}"), CreatedAt: now, Attempt: 3},
		{EventID: "msg_fast", WebhookURL: fast.URL, Secret: NewSecret(), Payload: []byte("{}"), CreatedAt: now, Attempt: 1},
	}}
	s := NewSender(q, Config{Now: func() time.Time { return now },
		Poster: NewPoster(PostOptions{Insecure: true, Timeout: 3 * time.Second})})
	done := make(chan SendStats, 1)
	go func() {
		st, err := s.SendOnce(context.Background())
		if err != nil {
			t.Error(err)
		}
		done <- st
	}()
	select {
	case a := <-q.recorded:
		if !a.Delivered || a.StatusCode != http.StatusNoContent {
			t.Fatalf("the first attempt recorded: %+v; want the fast receiver's delivery", a)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the fast receiver's event waited for the slow one")
	}
	a := <-q.recorded // the slow one, after the poster's timeout
	if a.Delivered || a.StatusCode != 0 || a.Retry.Sub(now) != 20*time.Second {
		t.Fatalf("the slow receiver's attempt: %+v; want a failure retried in 5 s × 2^(3-1)", a)
	}
	if st := <-done; st != (SendStats{Delivered: 1, Retried: 1}) {
		t.Fatalf("stats %+v", st)
	}
}

// One subscriber's deliveries never take more than its slots: claimed beyond them, they wait
// for one of its deliveries to end, and all are sent.
func TestPerSubscriberSlots(t *testing.T) {
	var mu sync.Mutex
	inFlight, most := 0, 0
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer slow.Close()
	now := time.Now()
	q := &queue{recorded: make(chan store.DeliveryAttempt, 10)}
	for i := range 7 {
		q.events = append(q.events, store.WebhookEvent{EventID: "msg_" + string(rune('a'+i)), UserID: "u1", WebhookURL: slow.URL,
			Secret: NewSecret(), Payload: []byte("{}"), CreatedAt: now, Attempt: 1})
	}
	s := NewSender(q, Config{Now: func() time.Time { return now }, PerSubscriber: 2,
		Poster: NewPoster(PostOptions{Insecure: true, Timeout: 3 * time.Second})})
	st, err := s.SendOnce(context.Background())
	if err != nil || st.Delivered != 7 {
		t.Fatalf("stats %+v, %v; want 7 delivered", st, err)
	}
	if most != 2 {
		t.Fatalf("the subscriber had %d deliveries at once; want its 2 slots", most)
	}
}
