package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// A tag watch: made with registry_tag and no target_id (both refused the other way round, and
// for the other watch types), it has no namespace; it hears of a registry made later with the
// tag in any namespace and of its public records, not of a draft, nor of registries with
// another tag. Any user may watch (the directory is public); an anonymous caller may not.
func TestWatchByTag(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		owner, watcher := h.key("owner@example.com"), h.key("watcher@example.com")
		id := publish(t, h, owner)
		const url = `"webhook_url":"https://hooks.example.com/"`
		for _, c := range []struct{ body, says string }{
			{`{"watch_type":"tag",` + url + `}`, "registry_tag"},
			{`{"watch_type":"tag","registry_tag":"membership","target_id":"x",` + url + `}`, "registry_tag"},
			{`{"watch_type":"tag","registry_tag":"nonsense",` + url + `}`, "registry_tag"},
			{`{"watch_type":"namespace","target_id":"` + id + `","registry_tag":"membership",` + url + `}`, "target_id"},
			{`{"watch_type":"registry",` + url + `}`, "target_id"},
		} {
			if r := h.do("POST", "/svc/watch", watcher, c.body); r.Status != http.StatusBadRequest || !strings.Contains(r.msg(), c.says) {
				t.Fatalf("%s: %d %v", c.body, r.Status, r.Body)
			}
		}
		h.must(http.StatusUnauthorized, "POST", "/svc/watch", "", `{"watch_type":"tag","registry_tag":"membership",`+url+`}`)

		w := h.must(http.StatusCreated, "POST", "/svc/watch", watcher, `{"watch_type":"tag","registry_tag":"membership",`+url+`}`).data()
		if w["watch_type"] != "tag" || w["registry_tag"] != "membership" || w["target_id"] != "membership" || w["namespace_id"] != nil || w["secret"] == "" {
			t.Fatalf("the tag watch: %v", w)
		}
		if got := h.must(http.StatusOK, "GET", "/svc/watch/"+w["subscription_id"].(string), watcher, nil).data(); got["registry_tag"] != "membership" || got["namespace_id"] != nil {
			t.Fatalf("the tag watch read back: %v", got)
		}
		depth := func() int64 {
			t.Helper()
			n, _, err := h.store.WebhookQueue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		base := depth() // publish's own registry is custom: nothing
		if base != 0 {
			t.Fatalf("%d events before any registry with the tag", base)
		}
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"members","tag":"membership"}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/members/add-record", owner, `{"record_name":"m1","details":{"member_id":"1","status":"active"}}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/members/add-record", owner, `{"record_name":"m2","state":"draft","details":{"member_id":"2","status":"active"}}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"keys","tag":"public_key"}`)
		if n := depth(); n != 2 {
			t.Fatalf("the tag watch queued %d events, want 2 (the registry and its public record)", n)
		}
		h.must(http.StatusOK, "DELETE", "/svc/watch/"+w["subscription_id"].(string), watcher, nil)
		if n := depth(); n != 0 {
			t.Fatalf("%d events outlived their subscription", n)
		}
	})
}
