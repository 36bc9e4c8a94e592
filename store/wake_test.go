package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// A write that queues a version for the log and an event for the watchers wakes the integrator
// and the webhook sender at its commit: on Postgres the notification its transaction sent,
// heard by every store on the database (here another one than the writer's); on SQLite the
// writer's own commit. A read wakes nothing, nor a write to another schema of the database.
func TestListenWakesTheWorkersAtTheCommit(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			writer, dbURL := storetest.OpenURL(t, d)
			listener := writer
			if d == store.DialectPostgres {
				other, err := store.Open(ctx, dbURL, nil, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer other.Close()
				listener = other
			}
			w := listener.Listen(ctx)
			// The listener wakes everyone once it listens (what was written before it did);
			// let that pass.
			drain := func(d time.Duration) {
				deadline := time.After(d)
				for {
					select {
					case <-w.Log:
					case <-w.Webhook:
					case <-w.Jobs:
					case <-deadline:
						return
					}
				}
			}
			if d == store.DialectPostgres {
				drain(time.Second)
			}
			u, err := writer.EnsureUser(ctx, "wake@example.com")
			if err != nil {
				t.Fatal(err)
			}
			drain(300 * time.Millisecond)
			if _, err := writer.UserByEmail(ctx, "wake@example.com"); err != nil {
				t.Fatal(err)
			}
			select {
			case <-w.Log:
				t.Fatal("a read woke the integrator")
			case <-time.After(300 * time.Millisecond):
			}
			if d == store.DialectPostgres { // the channel is the database's: another schema's writes are not ours
				stranger := storetest.Open(t, d)
				su, err := stranger.EnsureUser(ctx, "stranger@example.com")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := stranger.CreateNamespace(ctx, su, "did:web:example.com:stranger", directory.NamespaceInput{Name: "stranger"}); err != nil {
					t.Fatal(err)
				}
				select {
				case <-w.Log:
					t.Fatal("a write to another schema of the database woke the integrator")
				case <-time.After(300 * time.Millisecond):
				}
			}
			ns, err := writer.CreateNamespace(ctx, u, "did:web:example.com:wake", directory.NamespaceInput{Name: "wake"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := writer.CreateSubscription(ctx, u.ID, store.WatchNamespace, ns.NamespaceID, "https://h.example/", "whsec_AAAA"); err != nil {
				t.Fatal(err)
			}
			drain(300 * time.Millisecond)
			woken := func(what string, c <-chan struct{}) {
				t.Helper()
				select {
				case <-c:
				case <-time.After(5 * time.Second):
					t.Fatalf("the %s was not woken by a write", what)
				}
			}
			start := time.Now()
			if _, err := writer.CreateRegistry(ctx, ns.NamespaceID, "did:web:example.com:wake", directory.RegistryInput{RegistryName: "r",
				Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}}); err != nil {
				t.Fatal(err)
			}
			woken("integrator", w.Log)
			woken("webhook sender", w.Webhook)
			t.Logf("%s: woken %s after the write began", d, time.Since(start).Round(time.Millisecond))
			drain(300 * time.Millisecond)
			if _, err := writer.CreateImportJob(ctx, u.ID, ns.NamespaceID, "r", "did:web:example.com:wake", []string{"record_name"}, 1, []byte("{}\n")); err != nil {
				t.Fatal(err)
			}
			woken("import worker", w.Jobs)
		})
	}
}
