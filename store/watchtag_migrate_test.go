package store

import (
	"context"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
)

// Migration 24 makes watch_subscriptions again on SQLite (a tag watch has no namespace): the
// subscriptions, their waiting events and their delivery history survive it on both dialects,
// deleting a subscription still cascades to them, and a tag watch can then be made.
func TestWatchTagMigrationKeepsSubscriptions(t *testing.T) {
	for _, d := range []dialect{sqliteDialect{}, postgresDialect{}} {
		t.Run(d.name(), func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, testdb.URL(t, d.name()), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			fsys, err := s.migrationSources()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.migrateTo(ctx, fsys, 23); err != nil {
				t.Fatal(err)
			}
			u, err := s.EnsureUser(ctx, "watcher@example.com")
			if err != nil {
				t.Fatal(err)
			}
			ns, err := s.CreateNamespace(ctx, u, "did:web:example.com", directory.NamespaceInput{Name: "Acme"})
			if err != nil {
				t.Fatal(err)
			}
			sub, err := s.CreateSubscription(ctx, u.ID, WatchNamespace, ns.NamespaceID, "https://h.example/", "whsec_AAAA")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:example.com", directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom}); err != nil {
				t.Fatal(err)
			}
			now := time.Now().Add(time.Minute)
			evs, err := s.ClaimWebhookEvents(ctx, now, now.Add(time.Minute), WebhookClaim{Limit: 10})
			if err != nil || len(evs) != 1 {
				t.Fatalf("claimed %d events: %v", len(evs), err)
			}
			if err := s.RecordDelivery(ctx, evs[0], DeliveryAttempt{At: now, StatusCode: 500, Error: "down", Retry: now.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}

			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Subscription(ctx, u.ID, sub.ID); err != nil || got.NamespaceID != ns.NamespaceID || got.WatchType != WatchNamespace {
				t.Fatalf("the subscription after the migration: %+v, %v", got, err)
			}
			if depth, _, err := s.WebhookQueue(ctx); err != nil || depth != 1 {
				t.Fatalf("the outbox holds %d events after the migration, want 1: %v", depth, err)
			}
			if ds, err := s.Deliveries(ctx, u.ID, sub.ID, 10); err != nil || len(ds) != 1 || ds[0].StatusCode != 500 {
				t.Fatalf("the delivery history after the migration: %+v, %v", ds, err)
			}
			tagSub, err := s.CreateSubscription(ctx, u.ID, WatchTag, directory.TagMembership, "https://h.example/", "whsec_AAAA")
			if err != nil || tagSub.NamespaceID != "" {
				t.Fatalf("a tag watch: %+v, %v", tagSub, err)
			}
			// The foreign keys point at the new table, with their cascade.
			if err := s.db.Exec(`DELETE FROM watch_subscriptions WHERE subscription_id = ?`, sub.ID).Error; err != nil {
				t.Fatal(err)
			}
			var left int64
			if err := s.db.Raw(`SELECT (SELECT COUNT(*) FROM watch_outbox) + (SELECT COUNT(*) FROM watch_deliveries)`).Scan(&left).Error; err != nil || left != 0 {
				t.Fatalf("%d outbox and delivery rows outlived their subscription: %v", left, err)
			}
		})
	}
}
