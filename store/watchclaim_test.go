package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// Claims take subscribers round by round: a subscriber with a backlog of older events gets
// at most PerUser of a claim, another subscriber's newer event comes in the same claim, and a
// subscriber the sender skips gets none (both dialects).
func TestWebhookClaimsAreFairAcrossSubscribers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns := acmePeople(t, s)
		reg, err := s.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{})
		if err != nil {
			t.Fatal(err)
		}
		busy, err := s.EnsureUser(ctx, "busy@example.com")
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.EnsureUser(ctx, "other@example.com")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if _, err := s.CreateSubscription(ctx, busy.ID, store.WatchRegistry, reg.RegistryID, fmt.Sprintf("https://h%d.example/", i), "whsec_AAAA"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, directory.RecordInput{RecordName: "a", Details: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // the other subscriber's event is the newest
		if _, err := s.CreateSubscription(ctx, other.ID, store.WatchRegistry, reg.RegistryID, "https://other.example/", "whsec_AAAA"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, directory.RecordInput{RecordName: "b", Details: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		// 20 events of busy (10 subscriptions, 2 versions), 1 of other.
		now := time.Now().Add(time.Minute)
		users := func(evs []store.WebhookEvent) map[string]int {
			out := map[string]int{}
			for _, e := range evs {
				out[e.UserID]++
			}
			return out
		}
		evs, err := s.ClaimWebhookEvents(ctx, now, now.Add(time.Hour), store.WebhookClaim{Limit: 3, PerUser: 2})
		if got := users(evs); err != nil || got[busy.ID] != 2 || got[other.ID] != 1 {
			t.Fatalf("a claim of 3, 2 per subscriber: %v, %v; want 2 of the busy subscriber and the other's", got, err)
		}
		evs, err = s.ClaimWebhookEvents(ctx, now, now.Add(time.Hour), store.WebhookClaim{Limit: 50, PerUser: 4, SkipUsers: []string{busy.ID}})
		if err != nil || len(evs) != 0 {
			t.Fatalf("a claim skipping the busy subscriber: %d events, %v", len(evs), err)
		}
		evs, err = s.ClaimWebhookEvents(ctx, now, now.Add(time.Hour), store.WebhookClaim{Limit: 50, PerUser: 4})
		if got := users(evs); err != nil || got[busy.ID] != 4 || len(got) != 1 {
			t.Fatalf("a claim of 4 per subscriber: %v, %v", got, err)
		}
		evs, err = s.ClaimWebhookEvents(ctx, now, now.Add(time.Hour), store.WebhookClaim{Limit: 50})
		if got := users(evs); err != nil || got[busy.ID] != 14 {
			t.Fatalf("the rest: %v, %v; want the busy subscriber's 14", got, err)
		}
	})
}
