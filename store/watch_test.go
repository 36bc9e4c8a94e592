package store_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// Events are queued with the versions they announce, in the same transaction: a refused batch
// queues none; and concurrent claims never hand one event to two senders.
func TestWatchOutbox(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns := lifecycleFixture(t, s) // people: draft, a, b, c
		reg, err := s.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{})
		if err != nil {
			t.Fatal(err)
		}
		watcher, err := s.EnsureUser(ctx, "watcher@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateSubscription(ctx, watcher.ID, store.WatchRegistry, "no-such-registry", "https://h.example/", "whsec_AAAA"); err == nil {
			t.Fatal("a subscription to an unknown registry was made")
		}
		if _, err := s.CreateSubscription(ctx, watcher.ID, store.WatchRegistry, reg.RegistryID, "https://h.example/", "whsec_AAAA"); err != nil {
			t.Fatal(err)
		}
		depth := func() int64 {
			t.Helper()
			n, _, err := s.WebhookQueue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		// A batch refused for one taken name writes no version and queues no event.
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{
			{RecordName: "new1", Details: map[string]any{}}, {RecordName: "a", Details: map[string]any{}},
		}); err == nil {
			t.Fatal("the batch with a taken name was written")
		}
		if n := depth(); n != 0 {
			t.Fatalf("a refused batch queued %d events", n)
		}
		var in []directory.RecordInput
		for i := range 40 {
			in = append(in, directory.RecordInput{RecordName: storetest.PersonName(i), Details: map[string]any{}})
		}
		in = append(in, directory.RecordInput{RecordName: "d", Details: map[string]any{}, State: directory.StateDraft})
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, in); err != nil {
			t.Fatal(err)
		}
		if n := depth(); n != 40 {
			t.Fatalf("40 public versions and a draft queued %d events", n)
		}
		// Four senders claim at once, in batches of 7: each event is claimed exactly once.
		now := time.Now().Add(time.Minute)
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					evs, err := s.ClaimWebhookEvents(ctx, now, now.Add(time.Hour), store.WebhookClaim{Limit: 7})
					if err != nil {
						t.Error(err)
						return
					}
					if len(evs) == 0 {
						return
					}
					mu.Lock()
					for _, e := range evs {
						seen[e.EventID]++
						if e.Attempt != 1 || e.WebhookURL != "https://h.example/" || e.Secret != "whsec_AAAA" {
							t.Errorf("claimed %+v", e)
						}
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(seen) != 40 {
			t.Fatalf("%d events claimed, want 40", len(seen))
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("event %s was claimed %d times", id, n)
			}
		}
		// Leased: nothing is due until the lease ends; then each is claimed again as attempt 2.
		if evs, err := s.ClaimWebhookEvents(ctx, now.Add(time.Minute), now.Add(2*time.Hour), store.WebhookClaim{Limit: 100}); err != nil || len(evs) != 0 {
			t.Fatalf("leased events were claimed: %d, %v", len(evs), err)
		}
		evs, err := s.ClaimWebhookEvents(ctx, now.Add(time.Hour), now.Add(2*time.Hour), store.WebhookClaim{Limit: 100})
		if err != nil || len(evs) != 40 || evs[0].Attempt != 2 {
			t.Fatalf("after the lease: %d events, %v", len(evs), err)
		}
	})
}

// A user holds at most MaxSubscriptionsPerUser subscriptions, however many create at once.
func TestSubscriptionLimitUnderConcurrency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns := acmePeople(t, s)
		u, err := s.EnsureUser(ctx, "watcher@example.com")
		if err != nil {
			t.Fatal(err)
		}
		for range store.MaxSubscriptionsPerUser - 2 {
			if _, err := s.CreateSubscription(ctx, u.ID, store.WatchNamespace, ns.NamespaceID, "https://h.example/", "whsec_AAAA"); err != nil {
				t.Fatal(err)
			}
		}
		var made, refused atomic.Int32
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				_, err := s.CreateSubscription(ctx, u.ID, store.WatchNamespace, ns.NamespaceID, "https://h.example/", "whsec_AAAA")
				switch {
				case err == nil:
					made.Add(1)
				case errors.Is(err, store.ErrTooManySubscriptions):
					refused.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		subs, err := s.Subscriptions(ctx, u.ID)
		if err != nil || made.Load() != 2 || refused.Load() != 8 || len(subs) != store.MaxSubscriptionsPerUser {
			t.Fatalf("%d made, %d refused, %d held (%v); want 2, 8, %d", made.Load(), refused.Load(), len(subs), err, store.MaxSubscriptionsPerUser)
		}
	})
}
