package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// A tag watch hears of every registry with its tag and their records, in every namespace,
// registries made after the watch included; of nothing else; and not of drafts, which are
// private. Each delivery follows the rules of the others (one event per public version).
func TestWatchTag(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		watcher, err := s.EnsureUser(ctx, "watcher@example.com")
		if err != nil {
			t.Fatal(err)
		}
		owner, err := s.EnsureUser(ctx, "owner@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateSubscription(ctx, watcher.ID, store.WatchTag, "nonsense", "https://h.example/", "whsec_AAAA"); !errors.Is(err, directory.ErrInvalid) {
			t.Fatalf("a watch of an unknown tag: %v", err)
		}
		// The watch comes first: no registry has the tag yet.
		sub, err := s.CreateSubscription(ctx, watcher.ID, store.WatchTag, directory.TagMembership, "https://h.example/", "whsec_AAAA")
		if err != nil || sub.NamespaceID != "" || sub.TargetID != directory.TagMembership {
			t.Fatalf("the tag watch: %+v, %v", sub, err)
		}
		list, err := s.Subscriptions(ctx, watcher.ID)
		if err != nil || len(list) != 1 || list[0].WatchType != store.WatchTag || list[0].NamespaceID != "" {
			t.Fatalf("the watcher's subscriptions: %+v, %v", list, err)
		}
		var regs []string
		for _, nsName := range []string{"Acme", "Globex"} {
			ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: nsName})
			if err != nil {
				t.Fatal(err)
			}
			members, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "members", Tag: directory.TagMembership})
			if err != nil {
				t.Fatal(err)
			}
			regs = append(regs, members.RegistryID)
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "other", Tag: directory.TagCustom}); err != nil {
				t.Fatal(err)
			}
			for _, reg := range []string{"members", "other"} {
				if _, err := s.AddRecords(ctx, ns.NamespaceID, reg, creator, []directory.RecordInput{
					{RecordName: "live", Details: map[string]any{"status": "active"}},
					{RecordName: "draft", Details: map[string]any{"status": "active"}, State: directory.StateDraft},
				}); err != nil {
					t.Fatal(err)
				}
			}
			desc := "renamed"
			if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
		}
		now := time.Now().Add(time.Minute)
		evs, err := s.ClaimWebhookEvents(ctx, now, now.Add(time.Minute), store.WebhookClaim{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range evs {
			if e.SubscriptionID != sub.ID {
				t.Fatalf("an event for another subscription: %+v", e)
			}
			var p store.WebhookPayload
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				t.Fatal(err)
			}
			reg := map[string]string{regs[0]: "acme", regs[1]: "globex"}[p.Data.RegistryID]
			if reg == "" {
				t.Fatalf("an event of a registry without the tag: %s", e.Payload)
			}
			got = append(got, reg+" "+p.Type)
		}
		sort.Strings(got)
		want := []string{"acme record.created", "acme registry.created", "globex record.created", "globex registry.created"}
		if len(got) != len(want) {
			t.Fatalf("the tag watch heard %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("the tag watch heard %v, want %v", got, want)
			}
		}
	})
}
