package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestClearReadNotifications: clearall hides the caller's read notifications from their
// history, leaves unread ones and other users' alone, and keeps the rows.
func TestClearReadNotifications(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h := newHarness(t, d)
			db := rawDB(t, d, h.dbURL)
			alice, bob := h.key("alice@example.com"), h.key("bob@example.com")
			ctx := context.Background()
			a := h.must(http.StatusCreated, "POST", "/svc/create-namespace", alice, map[string]any{"name": "A"}).data()["namespace_id"].(string)
			b := h.must(http.StatusCreated, "POST", "/svc/create-namespace", bob, map[string]any{"name": "B"}).data()["namespace_id"].(string)
			u, err := h.store.UserByEmail(ctx, "bob@example.com")
			if err != nil {
				t.Fatal(err)
			}
			err = h.store.InTx(ctx, func(tx *store.Tx) error {
				r, _, err := tx.InsertPendingRequest(b, a, "b.example", "txt", u.ID)
				if err != nil {
					return err
				}
				for _, to := range []string{"alice@example.com", "alice@example.com", "alice@example.com", "bob@example.com"} {
					if err := tx.AddNotification(store.Notification{RequestID: r.RequestID, NamespaceID: b, TargetNamespaceID: a,
						RecipientEmail: to, Domain: "example.com", EventType: "pending", Title: "t", Message: "m"}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			path := "/svc/notifications/clearall"
			h.must(http.StatusUnauthorized, "POST", path, "", nil)
			h.must(http.StatusUnauthorized, "POST", path, "svc_"+strings.Repeat("A", 43), nil)
			// Nothing read yet: nothing cleared.
			if got := h.must(http.StatusOK, "POST", path, alice, nil).data(); got["affected"] != 0.0 {
				t.Fatalf("cleared %v with nothing read", got)
			}
			pending := h.must(http.StatusOK, "GET", "/svc/notifications/pending", alice, nil).Body["data"].([]any)
			read := pending[0].(map[string]any)["id"].(string)
			h.must(http.StatusOK, "POST", "/svc/notifications/"+read+"/read", alice, nil)
			h.must(http.StatusOK, "POST", "/svc/notifications/read-all", bob, nil)

			if got := h.must(http.StatusOK, "POST", path, alice, nil).data(); got["affected"] != 1.0 {
				t.Fatalf("cleared %v, want 1", got)
			}
			hist := h.must(http.StatusOK, "GET", "/svc/notifications/history", alice, nil).Body["data"].([]any)
			if len(hist) != 2 {
				t.Fatalf("history after clearall: %d, want the 2 unread", len(hist))
			}
			for _, n := range hist {
				if n.(map[string]any)["id"] == read {
					t.Fatal("the cleared notification is still in the history")
				}
			}
			if p := h.must(http.StatusOK, "GET", "/svc/notifications/pending", alice, nil); p.Body["unread_count"] != 2.0 {
				t.Fatalf("pending after clearall: %v", p.Body["unread_count"])
			}
			// Bob's read notification is his to clear; the rows stay.
			if n := len(h.must(http.StatusOK, "GET", "/svc/notifications/history", bob, nil).Body["data"].([]any)); n != 1 {
				t.Fatalf("bob's history: %d", n)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM notifications WHERE recipient_email = 'alice@example.com'`); n != 3 {
				t.Fatalf("%d of alice's rows left, want 3", n)
			}
			// Again: nothing more to clear.
			if got := h.must(http.StatusOK, "POST", path, alice, nil).data(); got["affected"] != 0.0 {
				t.Fatalf("second clearall: %v", got)
			}
		})
	}
}
