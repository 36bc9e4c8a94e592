package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/webhook"
)

// A subscriber whose receivers hang delays only its own deliveries: one user holds 100
// subscriptions (the most a user may hold) to a receiver that never answers, another user one
// subscription to a receiver that answers at once; after one write the other user's delivery
// arrives within 2 s, and the hanging receiver never sees more than the per-subscriber
// number of deliveries at once (both dialects, the sender's defaults and its real poster).
func TestHangingSubscriberDelaysOnlyItself(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h := newHarnessWith(t, d, func(c *server.Config) { c.WebhookInsecure = true })
			owner, hanging, other := h.key("owner@example.com"), h.key("hanging@example.com"), h.key("other@example.com")
			id := publish(t, h, owner)

			release := make(chan struct{})
			var inFlight, most atomic.Int64
			hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer hang.Close()
			defer close(release)
			arrived := make(chan time.Time, 4)
			var once sync.Once
			fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				once.Do(func() { arrived <- time.Now() })
				w.WriteHeader(http.StatusNoContent)
			}))
			defer fast.Close()

			for range 100 {
				h.must(http.StatusCreated, "POST", "/svc/watch", hanging,
					fmt.Sprintf(`{"watch_type":"namespace","target_id":%q,"webhook_url":%q}`, id, hang.URL+"/hook"))
			}
			h.must(http.StatusCreated, "POST", "/svc/watch", other,
				fmt.Sprintf(`{"watch_type":"namespace","target_id":%q,"webhook_url":%q}`, id, fast.URL+"/hook"))

			ctx, cancel := context.WithCancel(context.Background())
			sender := webhook.NewSender(h.store, webhook.Config{Poster: webhook.NewPoster(webhook.PostOptions{Insecure: true})})
			done := make(chan struct{})
			go func() { defer close(done); sender.Run(ctx, 100*time.Millisecond) }()
			defer func() { cancel(); <-done }()

			// One write: 100 events for the hanging subscriber, queued first, then the other's.
			written := time.Now()
			h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-record", owner, `{"record_name":"dave","details":{"email":"d@example.com"}}`)
			select {
			case at := <-arrived:
				if wait := at.Sub(written); wait > 2*time.Second {
					t.Fatalf("the other subscriber's delivery arrived %s after the write; want within 2 s", wait)
				} else {
					t.Logf("the other subscriber's delivery arrived %s after the write", wait.Round(time.Millisecond))
				}
			case <-time.After(2 * time.Second):
				t.Fatal("the other subscriber's delivery did not arrive within 2 s of the write")
			}
			time.Sleep(300 * time.Millisecond) // the sender has claimed all it will claim
			if n := most.Load(); n < 1 || n > 4 {
				t.Fatalf("the hanging receiver had %d deliveries at once; want at most the 4 of its subscriber", n)
			}
		})
	}
}
