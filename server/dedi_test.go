package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

// rawGet sends a GET through the contract-checked server and returns the answer as is.
func (h *harness) rawGet(path string) *httptest.ResponseRecorder {
	h.t.Helper()
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

// TestDediRelayAndReadOnly: the publishers' list, the manifest and file relayed byte for byte,
// 404 for what was not accepted, and every write to the origin-hosted namespace refused.
func TestDediRelayAndReadOnly(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		st := h.store
		manifest := []byte("{ \"type\":\"dedi-manifest\",  \"domain\":\"pub.example\" }\n")
		file := []byte("{\"type\": \"dedi-file\",\n \"records\": []}\n")
		now := time.Now().UTC().Truncate(time.Millisecond)
		if _, err := st.AddDediPublisher(ctx, "pub.example"); err != nil {
			t.Fatal(err)
		}
		owner, _ := st.EnsureUser(ctx, "dedi-origin@svc.invalid")
		var nsID string
		err := st.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if nsID, err = tx.OriginNamespace("pub.example", owner.ID, "did:web:localhost%3A8080"); err != nil {
				return err
			}
			if _, _, err = tx.CreateRegistry(nsID, "did:web:localhost%3A8080", directory.RegistryInput{RegistryName: "keys", Tag: "custom",
				Schema: map[string]any{"type": "object"}}); err != nil {
				return err
			}
			return tx.PutDediFile(store.DediFile{Domain: "pub.example", Registry: "keys", URL: "https://pub.example/keys.json", State: store.OriginStale,
				Bytes: file, SHA256: "sha-256:f", Kid: "k1", FetchedAt: now, UpdatedAt: now, NextUpdate: now.Add(time.Hour)})
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.RecordDediCrawl(ctx, "pub.example", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true,
			NextCrawl: now.Add(time.Hour), NamespaceID: nsID, Manifest: &store.DediManifest{URL: "https://pub.example/.well-known/dedi.index.json",
				Bytes: manifest, SHA256: "sha-256:m", Kid: "k1", FetchedAt: now, UpdatedAt: now, NextUpdate: now.Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}

		r := h.must(http.StatusOK, "GET", "/svc/dedi/publishers", "", nil)
		pubs, _ := r.Body["data"].([]any)
		if len(pubs) != 1 {
			t.Fatalf("publishers: %s", r.Raw)
		}
		p := pubs[0].(map[string]any)
		files, _ := p["files"].([]any)
		if p["domain"] != "pub.example" || p["status"] != "ok" || p["file_count"] != 1.0 || p["namespace_id"] != nsID || len(files) != 1 ||
			files[0].(map[string]any)["state"] != "stale" {
			t.Fatalf("publishers: %s", r.Raw)
		}

		if rec := h.rawGet("/svc/dedi/PUB.example/manifest"); rec.Code != http.StatusOK || rec.Body.String() != string(manifest) || rec.Header().Get("ETag") != `"sha-256:m"` {
			t.Fatalf("manifest: %d %q %v", rec.Code, rec.Body.String(), rec.Header())
		}
		if rec := h.rawGet("/svc/dedi/pub.example/keys"); rec.Code != http.StatusOK || rec.Body.String() != string(file) || rec.Header().Get("X-Dedi-State") != "stale" {
			t.Fatalf("file: %d %q %v", rec.Code, rec.Body.String(), rec.Header())
		}
		h.must(http.StatusNotFound, "GET", "/svc/dedi/other.example/manifest", "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/dedi/pub.example/nope", "", nil)
		h.must(http.StatusOK, "GET", "/svc/lookup/pub.example/keys", "", nil)

		key := h.key("someone@example.com")
		for _, w := range []struct{ path, body string }{
			{"/svc/pub.example/create-registry", `{"registry_name":"mine","schema":{"type":"object"}}`},
			{"/svc/" + nsID + "/update-namespace", `{"description":"mine"}`},
			{"/svc/pub.example/keys/add-record", `{"record_name":"x","details":{}}`},
			{"/svc/pub.example/keys/deactivate-registry", ``},
		} {
			var body any
			if w.body != "" {
				body = w.body
			}
			r := h.must(http.StatusForbidden, "POST", w.path, key, body)
			if !strings.Contains(r.msg(), "hosted by its origin") || r.Body["code"] != "forbidden" {
				t.Errorf("POST %s: %s", w.path, r.Raw)
			}
		}
	})
}
