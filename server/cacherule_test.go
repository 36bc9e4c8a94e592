package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	api "github.com/svc-directory/svc/gen"
)

// rawAs sends a GET (or HEAD) as the caller with key ("": anonymous) and returns the answer as
// it is, whatever its type (JSON, CSV, HTML).
func (h *harness) rawAs(method, path, key string, headers ...string) *httptest.ResponseRecorder {
	h.t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	return rec
}

// sameForEveryCaller reads the contract's declaration that an operation answers every caller
// alike (x-svc-same-for-every-caller).
func sameForEveryCaller(t *testing.T, operationID string) bool {
	t.Helper()
	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if strings.EqualFold(op.OperationID, operationID) { // the embedded contract capitalizes them
				v, _ := op.Extensions["x-svc-same-for-every-caller"].(bool)
				return v
			}
		}
	}
	t.Fatalf("no operation %s in the contract", operationID)
	return false
}

func varies(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "Authorization") {
				return true
			}
		}
	}
	return false
}

// hasDirective reports whether a Cache-Control value holds the directive (by name).
func hasDirective(cc, name string) bool {
	for _, d := range strings.Split(cc, ",") {
		n, _, _ := strings.Cut(strings.TrimSpace(d), "=")
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// Issue 39, item 5: an answer that may differ by caller is never left for a shared cache to
// give to someone else. Every read (lookup, versions, query, search, export, stats, did.json,
// the explorer) is read as an anonymous reader, as the namespace's owner and as another user,
// over a namespace with a draft (carol). Where the contract declares the operation to answer
// every caller alike, the three answers are the same bytes and keep their Cache-Control; else
// every answer carries Vary: Authorization, the anonymous one stays as it was (public where
// it was), and the answers to a caller with a key are private, without public or s-maxage.
// The owner's lookup of the draft is the case the probe found: public, with an ETag, no Vary.
func TestCacheControlByCaller(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner, stranger := h.key("owner@example.com"), h.key("stranger@example.com")
		id := publish(t, h, owner) // employees: alice, bob live; carol a draft
		u, err := h.store.EnsureUser(context.Background(), "owner@example.com")
		if err != nil {
			t.Fatal(err)
		}
		lookupCarol := "/svc/lookup/" + id + "/employees/carol"
		reads := []struct{ op, path string }{
			{"lookupNamespace", "/svc/lookup/" + id},
			{"lookupRegistry", "/svc/lookup/" + id + "/employees"},
			{"lookupRecord", "/svc/lookup/" + id + "/employees/alice"},
			{"lookupRecord", lookupCarol},
			{"listNamespaceVersions", "/svc/versions/" + id},
			{"listRegistryVersions", "/svc/versions/" + id + "/employees"},
			{"listRecordVersions", "/svc/versions/" + id + "/employees/alice"},
			{"listRecordVersions", "/svc/versions/" + id + "/employees/carol"},
			{"queryRegistries", "/svc/query/" + id},
			{"queryRecords", "/svc/query/" + id + "/employees"},
			{"searchRecords", "/svc/search/" + id + "?email=example"},
			{"searchNamespaces", "/svc/namespaces?q=acme"},
			{"exportRecordsAsCsv", "/svc/" + id + "/employees/export-records-as-csv"},
			{"downloadSampleCsv", "/svc/" + id + "/employees/download-sample-csv"},
			{"getStats", "/svc/stats"},
			{"getDidDocument", "/" + u.ProfileID + "/did.json"},
			{"getRegistriesByTag", "/svc/membership/get-registry-by-tag"},
		}
		callers := []struct{ who, key string }{{"anonymous", ""}, {"owner", owner}, {"stranger", stranger}}
		for _, rd := range reads {
			same := sameForEveryCaller(t, rd.op)
			var anonymous string
			for _, c := range callers {
				for _, method := range []string{http.MethodGet, http.MethodHead} {
					r := h.rawAs(method, rd.path, c.key)
					if r.Code >= 500 || r.Code == http.StatusUnauthorized {
						t.Fatalf("%s %s %s as %s: %d %s", rd.op, method, rd.path, c.who, r.Code, r.Body)
					}
					cc := r.Header().Get("Cache-Control")
					if method == http.MethodGet && c.key == "" {
						anonymous = r.Body.String()
					}
					switch {
					case same:
						if varies(r.Header()) || hasDirective(cc, "private") {
							t.Errorf("%s %s as %s: declared the same for every caller, answered Cache-Control %q Vary %q", rd.op, method, c.who, cc, r.Header().Values("Vary"))
						}
						if method == http.MethodGet && r.Body.String() != anonymous {
							t.Errorf("%s %s as %s: declared the same for every caller, answered otherwise than to an anonymous reader:\n%.300s\n%.300s", rd.op, rd.path, c.who, r.Body, anonymous)
						}
					case !varies(r.Header()):
						t.Errorf("%s %s as %s: %d without Vary: Authorization (Cache-Control %q)", rd.op, method, c.who, r.Code, cc)
					case c.key == "" && hasDirective(cc, "private"):
						t.Errorf("%s %s as %s: the anonymous answer is private: %q", rd.op, method, c.who, cc)
					case c.key != "" && (!hasDirective(cc, "private") || hasDirective(cc, "public") || hasDirective(cc, "s-maxage")):
						t.Errorf("%s %s as %s: Cache-Control %q, want private", rd.op, method, c.who, cc)
					}
				}
			}
		}

		// The probe's case, precisely: the owner sees the draft, with its ETag, privately; a
		// revalidation (304) says the same; the anonymous lookup of a live record stays public.
		r := h.rawAs(http.MethodGet, lookupCarol, owner)
		etag := r.Header().Get("ETag")
		if r.Code != http.StatusOK || etag == "" || r.Header().Get("Cache-Control") != "private, max-age=600" || !varies(r.Header()) {
			t.Fatalf("the owner's lookup of a draft: %d ETag %q Cache-Control %q Vary %q", r.Code, etag, r.Header().Get("Cache-Control"), r.Header().Values("Vary"))
		}
		r = h.rawAs(http.MethodGet, lookupCarol, owner, "If-None-Match", etag)
		if r.Code != http.StatusNotModified || r.Header().Get("Cache-Control") != "private" || !varies(r.Header()) {
			t.Fatalf("the owner's revalidation of a draft: %d Cache-Control %q Vary %q", r.Code, r.Header().Get("Cache-Control"), r.Header().Values("Vary"))
		}
		if r := h.rawAs(http.MethodGet, lookupCarol, ""); r.Code != http.StatusNotFound || !varies(r.Header()) {
			t.Fatalf("the anonymous lookup of a draft: %d Vary %q", r.Code, r.Header().Values("Vary"))
		}
		r = h.rawAs(http.MethodGet, "/svc/lookup/"+id+"/employees/alice", "")
		if r.Header().Get("Cache-Control") != "public, max-age=600" || r.Header().Get("ETag") == "" {
			t.Fatalf("the anonymous lookup of a live record: Cache-Control %q ETag %q", r.Header().Get("Cache-Control"), r.Header().Get("ETag"))
		}

		// The explorer reads the API anonymously, for everyone: its pages are the same whoever
		// asks, never show the draft, and are not public.
		for _, path := range []string{"/explore", "/explore/n/" + id + "/employees", "/explore/n/" + id + "/employees/carol"} {
			var first string
			for i, c := range callers {
				r := h.rawAs(http.MethodGet, path, c.key)
				cc := r.Header().Get("Cache-Control")
				if r.Code >= 500 || hasDirective(cc, "public") || strings.Contains(r.Body.String(), "carol@example.com") {
					t.Fatalf("explorer %s as %s: %d Cache-Control %q\n%.300s", path, c.who, r.Code, cc, r.Body)
				}
				if i == 0 {
					first = r.Body.String()
				} else if r.Body.String() != first {
					t.Errorf("explorer %s: the page for %s differs from the anonymous one", path, c.who)
				}
			}
		}
	})
}
