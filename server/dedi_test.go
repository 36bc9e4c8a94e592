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

// originHosted makes pub.example an origin-hosted namespace with registry "keys", indexed from
// an accepted file (bytes file, SHA256 sha, in state) and, when manifest is not nil, its
// accepted manifest; it returns the namespace id.
func originHosted(t *testing.T, st *store.Store, file []byte, sha string, state string, nextUpdate time.Time, manifest []byte) string {
	t.Helper()
	ctx := context.Background()
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
		return tx.PutDediFile(store.DediFile{Domain: "pub.example", Registry: "keys", URL: "https://pub.example/keys.json", State: state,
			Bytes: file, SHA256: sha, Kid: "k1", FetchedAt: now, UpdatedAt: now, NextUpdate: nextUpdate})
	})
	if err != nil {
		t.Fatal(err)
	}
	crawl := store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true, NextCrawl: now.Add(time.Hour), NamespaceID: nsID}
	if manifest != nil {
		crawl.Manifest = &store.DediManifest{URL: "https://pub.example/.well-known/dedi.index.json",
			Bytes: manifest, SHA256: "sha-256:m", Kid: "k1", FetchedAt: now, UpdatedAt: now, NextUpdate: now.Add(time.Hour)}
	}
	if err := st.RecordDediCrawl(ctx, "pub.example", crawl); err != nil {
		t.Fatal(err)
	}
	return nsID
}

// TestDediRelayAndReadOnly: the publishers' list, the manifest and file relayed byte for byte,
// 404 for what was not accepted, and every write to the origin-hosted namespace refused.
func TestDediRelayAndReadOnly(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		st := h.store
		manifest := []byte("{ \"type\":\"dedi-manifest\",  \"domain\":\"pub.example\" }\n")
		file := []byte("{\"type\": \"dedi-file\",\n \"records\": []}\n")
		nsID := originHosted(t, st, file, "sha-256:f", store.OriginStale, time.Now().Add(time.Hour), manifest)

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

// TestOriginHostedLookups: a lookup of an origin-hosted registry or record carries its file's
// origin block; while the file is stale (or withdrawn) its live records read as that in
// lookups, queries and search, and the record_state filters select them so; once the file is
// live again they read as live. An entry published here has no origin block.
func TestOriginHostedLookups(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		st := h.store
		nsID := originHosted(t, st, []byte("{}"), "ab12", store.OriginStale, time.Now().Add(-time.Hour), nil)
		if _, err := st.AddRecords(ctx, nsID, "keys", "did:web:localhost%3A8080", []directory.RecordInput{
			{RecordName: "k1", Details: map[string]any{"x": 1.0}}}); err != nil {
			t.Fatal(err)
		}

		reg := h.must(http.StatusOK, "GET", "/svc/lookup/pub.example/keys", "", nil).data()
		origin, _ := reg["origin"].(map[string]any)
		if origin["publisher_domain"] != "pub.example" || origin["file_url"] != "https://pub.example/keys.json" || origin["sha256"] != "ab12" ||
			origin["kid"] != "k1" || origin["state"] != "stale" || origin["fetched_at"] == nil || origin["next_update"] == nil {
			t.Fatalf("registry origin: %v", reg)
		}
		rec := h.must(http.StatusOK, "GET", "/svc/lookup/pub.example/keys/k1", "", nil).data()
		if o, _ := rec["origin"].(map[string]any); rec["state"] != "live" || rec["effective_state"] != "stale" || o["state"] != "stale" {
			t.Fatalf("record of a stale file: %v", rec)
		}
		listed := func(state string) []any {
			t.Helper()
			q := h.must(http.StatusOK, "GET", "/svc/query/pub.example/keys?state="+state, "", nil).data()
			recs, _ := q["records"].([]any)
			return recs
		}
		if recs := listed("stale"); len(recs) != 1 || recs[0].(map[string]any)["effective_state"] != "stale" {
			t.Fatalf("the stale query: %v", recs)
		}
		if recs := listed("live"); len(recs) != 0 {
			t.Fatalf("the live query lists the records of a stale file: %v", recs)
		}
		found := h.must(http.StatusOK, "GET", "/svc/search/pub.example?record_name=k1", "", nil)
		if res, _ := found.Body["data"].([]any); len(res) != 1 || res[0].(map[string]any)["effective_state"] != "stale" {
			t.Fatalf("search: %s", found.Raw)
		}
		for state, want := range map[string]int{"stale": 1, "live": 0} {
			r := h.must(http.StatusOK, "GET", "/svc/search/pub.example?record_state="+state, "", nil)
			if res, _ := r.Body["data"].([]any); len(res) != want {
				t.Fatalf("search record_state=%s: %s", state, r.Raw)
			}
		}

		if csv := string(export(t, h, "/svc/pub.example/keys/export-records-as-csv", "")); !strings.Contains(csv, "k1,stale") {
			t.Fatalf("the export of a stale file's records:\n%s", csv)
		}

		// The file refreshed: its records read as live again (the lookup cache follows).
		if err := st.MarkDediFile(ctx, "pub.example", "keys", store.OriginLive, "authentic", "", "", ""); err != nil {
			t.Fatal(err)
		}
		rec = h.must(http.StatusOK, "GET", "/svc/lookup/pub.example/keys/k1", "", nil).data()
		if rec["effective_state"] != "live" || rec["origin"].(map[string]any)["state"] != "live" {
			t.Fatalf("record of a live file: %v", rec)
		}
		if recs := listed("live"); len(recs) != 1 {
			t.Fatalf("the live query: %v", recs)
		}

		// A record that left its file (the crawler suspends it) answers 404 as the latest, and
		// its versions stay readable by version_id.
		left, err := st.UpdateRecord(ctx, nsID, "keys", "k1", "", directory.RecordPatch{Action: directory.ActionSuspend})
		if err != nil {
			t.Fatal(err)
		}
		h.must(http.StatusNotFound, "GET", "/svc/lookup/pub.example/keys/k1", "", nil)
		if r := h.must(http.StatusOK, "GET", "/svc/lookup/pub.example/keys/k1?version_id="+left.Version, "", nil).data(); r["state"] != "suspended" {
			t.Fatalf("the version that left: %v", r)
		}

		// Published here: no origin block, and a suspended record answers as such.
		key := h.key("local@example.com")
		local := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, map[string]any{"name": "Local"}).data()["namespace_id"].(string)
		h.must(http.StatusCreated, "POST", "/svc/"+local+"/create-registry", key, map[string]any{"registry_name": "people", "schema": map[string]any{"type": "object"}})
		h.must(http.StatusCreated, "POST", "/svc/"+local+"/people/add-record", key, map[string]any{"record_name": "a", "details": map[string]any{}})
		if r := h.must(http.StatusOK, "GET", "/svc/lookup/"+local+"/people/a", "", nil).data(); r["origin"] != nil || r["effective_state"] != "live" {
			t.Fatalf("a local record: %v", r)
		}
		h.must(http.StatusOK, "POST", "/svc/"+local+"/people/a/suspend-record", key, nil)
		if r := h.must(http.StatusOK, "GET", "/svc/lookup/"+local+"/people/a", "", nil).data(); r["state"] != "suspended" {
			t.Fatalf("a local suspended record: %v", r)
		}
	})
}

// TestDediDigestsRelay: the digests document is relayed byte for byte, shown in the
// publishers' list with the versions declared, 404 when none was accepted, and forgotten when
// the manifest stops naming one.
func TestDediDigestsRelay(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		st := h.store
		originHosted(t, st, []byte("{}"), "sha-256:f", store.OriginLive, time.Now().Add(time.Hour), []byte("{}"))
		h.must(http.StatusNotFound, "GET", "/svc/dedi/pub.example/digests", "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/dedi/other.example/digests", "", nil)

		digests := []byte("{\"type\": \"dedi-digests\",\n  \"digests\": {}}\n")
		now := time.Now().UTC().Truncate(time.Second)
		if err := st.RecordDediCrawl(ctx, "pub.example", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true,
			NextCrawl: now.Add(time.Hour), Manifest: &store.DediManifest{Bytes: []byte("{}"), SHA256: "sha-256:m", FetchedAt: now, UpdatedAt: now,
				NextUpdate: now.Add(time.Hour), DediVersion: "0.2"},
			Digests: &store.DediManifest{URL: "https://pub.example/dedi/dedi.digests.json", Bytes: digests, SHA256: "sha-256:d", Kid: "k1",
				FetchedAt: now, UpdatedAt: now, NextUpdate: now.Add(time.Hour), DediVersion: "0.1"}}); err != nil {
			t.Fatal(err)
		}
		if rec := h.rawGet("/svc/dedi/Pub.Example/digests"); rec.Code != http.StatusOK || rec.Body.String() != string(digests) || rec.Header().Get("ETag") != `"sha-256:d"` {
			t.Fatalf("digests: %d %q %v", rec.Code, rec.Body.String(), rec.Header())
		}
		p := h.must(http.StatusOK, "GET", "/svc/dedi/publishers", "", nil).Body["data"].([]any)[0].(map[string]any)
		d, _ := p["digests"].(map[string]any)
		if p["dedi_version"] != "0.2" || d["sha256"] != "sha-256:d" || d["kid"] != "k1" || d["dedi_version"] != "0.1" || d["url"] != "https://pub.example/dedi/dedi.digests.json" {
			t.Fatalf("publisher: %v", p)
		}

		if err := st.RecordDediCrawl(ctx, "pub.example", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true,
			NextCrawl: now.Add(time.Hour), ClearDigests: true}); err != nil {
			t.Fatal(err)
		}
		h.must(http.StatusNotFound, "GET", "/svc/dedi/pub.example/digests", "", nil)
		p = h.must(http.StatusOK, "GET", "/svc/dedi/publishers", "", nil).Body["data"].([]any)[0].(map[string]any)
		if p["digests"] != nil {
			t.Fatalf("a forgotten digests document is still shown: %v", p)
		}
	})
}
