package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// listKeys is the caller's keys as GET /svc/api-keys answers them.
func (h *harness) listKeys(key string) []map[string]any {
	h.t.Helper()
	r := h.must(http.StatusOK, "GET", "/svc/api-keys", key, nil)
	var out []map[string]any
	for _, k := range r.Body["data"].([]any) {
		out = append(out, k.(map[string]any))
	}
	return out
}

// TestAPIKeys: a user makes, lists and revokes their own keys; the secret is shown once; bad
// input is 400 and writes nothing; another user's key is 404; the 21st live key is 409.
func TestAPIKeys(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		alice := h.key("alice@example.com") // operator-issued: no name, counted among the live keys
		bob := h.key("bob@example.com")

		// Anonymous and a revoked-looking bearer: 401 on each operation.
		for _, c := range []struct{ method, path string }{{"POST", "/svc/api-keys"}, {"GET", "/svc/api-keys"}, {"DELETE", "/svc/api-keys/x"}} {
			var body any
			if c.method == "POST" {
				body = map[string]any{"name": "ci"}
			}
			h.must(http.StatusUnauthorized, c.method, c.path, "", body)
			h.must(http.StatusUnauthorized, c.method, c.path, "svc_"+strings.Repeat("A", 43), body)
		}

		// Bad input: 400, nothing written.
		for _, body := range []any{map[string]any{}, map[string]any{"name": ""}, map[string]any{"name": "   "},
			map[string]any{"name": strings.Repeat("n", 101)}, map[string]any{"name": "a\x01b"},
			map[string]any{"name": "ci", "scope": "all"}, map[string]any{"name": 5}, "[]"} {
			r := h.must(http.StatusBadRequest, "POST", "/svc/api-keys", alice, body)
			if r.msg() == "" {
				t.Fatalf("%v: no message", body)
			}
		}
		if n := len(h.listKeys(alice)); n != 1 {
			t.Fatalf("after refused creations alice has %d keys, want 1", n)
		}

		// Create: the secret once, a working key.
		c := h.must(http.StatusCreated, "POST", "/svc/api-keys", alice, map[string]any{"name": "  deploy bot "}).data()
		secret, id := c["key"].(string), c["key_id"].(string)
		if !strings.HasPrefix(secret, "svc_") || len(secret) != 47 || c["prefix"] != secret[:12] || c["name"] != "deploy bot" ||
			c["revoked_at"] != nil || c["last_used_at"] != nil {
			t.Fatalf("created: %v", c)
		}
		if _, err := h.store.Authenticate(context.Background(), secret); err != nil {
			t.Fatalf("the new key does not authenticate: %v", err)
		}
		keys := h.listKeys(secret) // used now: last_used_at is set
		if len(keys) != 2 || keys[0]["key_id"] != id || keys[0]["name"] != "deploy bot" || keys[0]["prefix"] != secret[:12] ||
			keys[0]["last_used_at"] == nil || keys[0]["revoked_at"] != nil || keys[1]["name"] != "" {
			t.Fatalf("list: %v", keys)
		}
		for _, k := range keys {
			if _, ok := k["key"]; ok {
				t.Fatalf("a list shows a secret: %v", k)
			}
		}
		if len(h.listKeys(bob)) != 1 {
			t.Fatal("bob sees alice's keys")
		}

		// A stranger cannot revoke it; an unknown id is 404 too.
		h.must(http.StatusNotFound, "DELETE", "/svc/api-keys/"+id, bob, nil)
		h.must(http.StatusNotFound, "DELETE", "/svc/api-keys/no-such-key", alice, nil)
		h.must(http.StatusOK, "GET", "/svc/api-keys", secret, nil)

		// Revoke: at once 401, listed as revoked, a second revoke is 404.
		h.must(http.StatusOK, "DELETE", "/svc/api-keys/"+id, alice, nil)
		h.must(http.StatusUnauthorized, "GET", "/svc/api-keys", secret, nil)
		h.must(http.StatusNotFound, "DELETE", "/svc/api-keys/"+id, alice, nil)
		if keys := h.listKeys(alice); keys[0]["revoked_at"] == nil {
			t.Fatalf("not listed as revoked: %v", keys[0])
		}

		// At most 20 live keys: alice holds 1, makes 19 more, the next is 409 and writes nothing.
		var last string
		for i := range 19 {
			last = h.must(http.StatusCreated, "POST", "/svc/api-keys", alice, map[string]any{"name": fmt.Sprintf("k%d", i)}).data()["key_id"].(string)
		}
		r := h.must(http.StatusConflict, "POST", "/svc/api-keys", alice, map[string]any{"name": "one too many"})
		if !strings.Contains(r.msg(), "20 live API keys") {
			t.Fatalf("limit message: %q", r.msg())
		}
		if n := len(h.listKeys(alice)); n != 21 {
			t.Fatalf("alice has %d keys, want 21 (20 live, 1 revoked)", n)
		}
		h.must(http.StatusOK, "DELETE", "/svc/api-keys/"+last, alice, nil)
		h.must(http.StatusCreated, "POST", "/svc/api-keys", alice, map[string]any{"name": "room again"})
		// A user may revoke the key the request authenticates with.
		own := h.must(http.StatusCreated, "POST", "/svc/api-keys", bob, map[string]any{"name": "self"}).data()
		h.must(http.StatusOK, "DELETE", "/svc/api-keys/"+own["key_id"].(string), own["key"].(string), nil)
		h.must(http.StatusUnauthorized, "GET", "/svc/api-keys", own["key"].(string), nil)
	})
}

// TestAPIKeyRevokedOnEveryInstance: two instances share one database, each with its own
// authentication cache (1 s). While requests authenticated by a key run on both, the key is
// revoked through one; no request begun after the DELETE answered succeeds, on either.
func TestAPIKeyRevokedOnEveryInstance(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			// The instances are configured alike, as docs/operator-guide.md asks of a deployment.
			opts := store.Options{AuthCacheTTL: time.Second}
			stA, dbURL := storetest.OpenWith(t, d, opts)
			a := newHarnessOn(t, stA, nil)
			stB, err := store.Open(ctx, dbURL, slog.New(slog.DiscardHandler), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = stB.Close() })
			b := newHarnessOn(t, stB, nil)
			owner := a.key("carol@example.com")
			k := a.must(http.StatusCreated, "POST", "/svc/api-keys", owner, map[string]any{"name": "shared"}).data()
			secret, id := k["key"].(string), k["key_id"].(string)
			b.must(http.StatusOK, "GET", "/svc/api-keys", secret, nil) // now in b's cache
			a.must(http.StatusOK, "GET", "/svc/api-keys", secret, nil) // and in a's

			type outcome struct {
				start  time.Time
				status int
			}
			var (
				mu       sync.Mutex
				outcomes []outcome
				wg       sync.WaitGroup
				stop     = make(chan struct{})
			)
			for _, h := range []*harness{a, b, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						req := httptest.NewRequest("GET", "/svc/api-keys", nil)
						req.Header.Set("Authorization", "Bearer "+secret)
						rec := httptest.NewRecorder()
						start := time.Now()
						h.srv.Echo().ServeHTTP(rec, req)
						mu.Lock()
						outcomes = append(outcomes, outcome{start, rec.Code})
						mu.Unlock()
					}
				}()
			}
			time.Sleep(100 * time.Millisecond)
			begun := time.Now()
			a.must(http.StatusOK, "DELETE", "/svc/api-keys/"+id, owner, nil)
			answered := time.Now()
			time.Sleep(300 * time.Millisecond)
			close(stop)
			wg.Wait()
			before, after := 0, 0
			for _, o := range outcomes {
				switch {
				case o.start.After(answered) && o.status != http.StatusUnauthorized:
					t.Fatalf("a request begun %v after the DELETE answered got %d", o.start.Sub(answered), o.status)
				case o.start.After(answered):
					after++
				case o.start.Before(begun) && o.status == http.StatusOK:
					before++
				}
			}
			if before == 0 || after == 0 {
				t.Fatalf("the test saw %d successes before the DELETE and %d refusals after it", before, after)
			}
			t.Logf("DELETE took %v; %d requests succeeded before it, %d were refused after it", answered.Sub(begun), before, after)
			b.must(http.StatusUnauthorized, "GET", "/svc/api-keys", secret, nil)
		})
	}
}
