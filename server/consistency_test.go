package server_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

var tokenPattern = regexp.MustCompile(`^[0-9A-F]{1,8}/[0-9A-F]{1,8}$`)

// Every write that commits answers a consistency token on Postgres (none on SQLite, none for a
// refused write, none for a request that wrote nothing); a read takes a token back, and refuses a malformed one with a 400.
// A read with a token skips the lookup cache: it must not answer from before the token's
// write, which another instance may have made.
func TestConsistencyTokenHeader(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		w := h.must(201, "POST", "/svc/create-namespace", key, map[string]any{"name": "Acme"})
		tok := w.Header.Get("Svc-Consistency-Token")
		if h.store.Dialect() == store.DialectPostgres {
			if !tokenPattern.MatchString(tok) {
				t.Fatalf("a write on Postgres answered the token %q", tok)
			}
		} else if tok != "" {
			t.Fatalf("a write on SQLite answered the token %q", tok)
		}
		ns := w.data()["namespace_id"].(string)
		h.must(201, "POST", "/svc/"+ns+"/create-registry", key, map[string]any{"registry_name": "people", "tag": "custom",
			"schema": map[string]any{"type": "object"}})
		if r := h.must(200, "POST", "/svc/"+ns+"/people/activate-registry", key, nil); r.Header.Get("Svc-Consistency-Token") != "" {
			t.Fatal("an action that wrote nothing (activating a live registry) answered a token")
		}
		if r := h.must(200, "POST", "/svc/"+ns+"/people/deactivate-registry", key, nil); h.store.Dialect() == store.DialectPostgres &&
			!tokenPattern.MatchString(r.Header.Get("Svc-Consistency-Token")) {
			t.Fatalf("deactivating answered the token %q", r.Header.Get("Svc-Consistency-Token"))
		}
		if r := h.must(400, "POST", "/svc/create-namespace", key, map[string]any{"name": ""}); r.Header.Get("Svc-Consistency-Token") != "" {
			t.Fatal("a refused write answered a token")
		}
		send := tok
		if send == "" {
			send = "0/16B3748" // SQLite: any well-formed token reads the one database
		}
		h.must(200, "GET", "/svc/lookup/"+ns, "", nil, "Svc-Consistency-Token", send)
		h.must(200, "GET", "/svc/lookup/"+ns, "", nil, "Svc-Consistency-Token", strings.ToLower(send))
		for _, bad := range []string{"yesterday", "1/2/3", "123456789/0", "/"} {
			r := h.must(400, "GET", "/svc/lookup/"+ns, "", nil, "Svc-Consistency-Token", bad)
			if !strings.Contains(r.msg(), "Svc-Consistency-Token") {
				t.Fatalf("%q: %q does not name the header", bad, r.msg())
			}
		}
		// The cache holds the namespace; an update through another instance (a second store
		// on the database, which this server's cache does not hear of) is answered from the
		// cache without a token, and at once with one.
		other, err := store.Open(t.Context(), h.dbURL, nil, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		desc := "changed elsewhere"
		if _, err := other.UpdateNamespace(t.Context(), ns, "", directory.NamespacePatch{Description: &desc}); err != nil {
			t.Fatal(err)
		}
		if r := h.must(200, "GET", "/svc/lookup/"+ns, "", nil); r.data()["description"] == desc {
			t.Fatal("the lookup cache did not hold the namespace: this test shows nothing")
		}
		r := h.must(200, "GET", "/svc/lookup/"+ns, "", nil, "Svc-Consistency-Token", send)
		if r.data()["description"] != desc {
			t.Fatalf("a read with a token answered %v", r.data()["description"])
		}
	})
}
