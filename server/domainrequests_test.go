package server_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

func TestDelegatedVerificationNotificationsAndRemoval(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, dns, _ := domainHarness(t, d, server.ReverifyConfig{})
			ctx := context.Background()
			alice, carol, dave := h.key("alice@example.com"), h.key("carol@example.com"), h.key("dave@example.com")
			a := newNamespace(t, h, alice, "Attester")
			c := newNamespace(t, h, carol, "Carol")
			dn := newNamespace(t, h, dave, "Dave")
			if err := h.store.AllowDomain(ctx, "attester.example"); err != nil {
				t.Fatal(err)
			}
			txt := gen(h, alice, a, "attester.example", "?verification_method=self_dns").Body["txt"].(string)
			dns.SetTXT("attester.example", []string{txt})
			h.must(200, "POST", "/svc/verify-domain", alice, map[string]any{"namespace_id": a})
			h.must(200, "POST", "/svc/"+a+"/add-delegate", alice, `{"email":"eve@example.com"}`)
			eve := h.key("eve@example.com")

			// The attester vouches for domains the operator allowed (or its own subdomains).
			for _, dom := range []string{"carol.example", "dave.example"} {
				if err := h.store.AllowDomain(ctx, dom); err != nil {
					t.Fatal(err)
				}
			}
			req := gen(h, carol, c, "carol.example", "?verification_method=request_other_namespace&target_namespace=attester.example")
			if req.Status != 200 || req.data()["target_namespace"] != a || req.data()["request_id"] == nil {
				t.Fatalf("request: %d %s", req.Status, req.Raw)
			}
			id := req.data()["request_id"].(string)
			if again := gen(h, carol, c, "carol.example", "?verification_method=request_other_namespace&target_namespace="+a); again.data()["request_id"] != id {
				t.Fatalf("a second request replaced the pending one: %s", again.Raw)
			}
			for _, k := range []string{alice, eve} {
				p := h.must(200, "GET", "/svc/notifications/pending", k, nil)
				items := p.Body["data"].([]any)
				if p.Body["unread_count"] != 1.0 || items[0].(map[string]any)["event_type"] != "pending" || items[0].(map[string]any)["request_id"] != id {
					t.Fatalf("target members' pending notifications: %s", p.Raw)
				}
			}
			if p := h.must(200, "GET", "/svc/notifications/pending", carol, nil); p.Body["unread_count"] != 0.0 {
				t.Fatalf("the requester was notified of its own request: %s", p.Raw)
			}
			h.must(403, "POST", "/svc/verification-requests/"+id+"/accept", carol, nil)
			h.must(404, "POST", "/svc/verification-requests/nope/accept", alice, nil)
			acc := h.must(200, "POST", "/svc/verification-requests/"+id+"/accept", eve, nil).data()
			if acc["request_id"] != id || acc["registry_id"] == "" || acc["record_id"] == "" {
				t.Fatalf("accept: %v", acc)
			}
			h.must(409, "POST", "/svc/verification-requests/"+id+"/accept", alice, nil)
			h.must(409, "POST", "/svc/verification-requests/"+id+"/reject", alice, nil)
			att := h.must(200, "GET", "/svc/lookup/attester.example/domain-attestations/"+id, "", nil).data()
			if att["record_id"] != acc["record_id"] || att["details"].(map[string]any)["domain"] != "carol.example" {
				t.Fatalf("attestation record: %v", att)
			}
			if r := h.must(200, "GET", "/svc/check-verification/"+c, carol, nil); r.Body["domain"] != "carol.example" {
				t.Fatalf("requester after accept: %s", r.Raw)
			}
			cp := h.must(200, "GET", "/svc/notifications/pending", carol, nil)
			if cp.Body["unread_count"] != 1.0 || cp.Body["data"].([]any)[0].(map[string]any)["event_type"] != "accepted" {
				t.Fatalf("requester notifications: %s", cp.Raw)
			}

			// Reject flow, read one, read all, history.
			rid := gen(h, dave, dn, "dave.example", "?verification_method=request_other_namespace&target_namespace="+a).data()["request_id"].(string)
			h.must(200, "POST", "/svc/verification-requests/"+rid+"/reject", alice, nil)
			dp := h.must(200, "GET", "/svc/notifications/pending", dave, nil).Body["data"].([]any)
			if len(dp) != 1 || dp[0].(map[string]any)["event_type"] != "rejected" {
				t.Fatalf("rejected notification: %v", dp)
			}
			if r := h.must(200, "GET", "/svc/check-verification/"+dn, dave, nil); r.Body["verified"] != false {
				t.Fatal("a rejected request verified the domain")
			}
			pending := h.must(200, "GET", "/svc/notifications/pending", alice, nil).Body["data"].([]any)
			nid := pending[0].(map[string]any)["id"].(string)
			h.must(404, "POST", "/svc/notifications/"+nid+"/read", carol, nil)
			rd := h.must(200, "POST", "/svc/notifications/"+nid+"/read", alice, nil).data()
			if rd["is_read"] != true || rd["read_at"] == nil {
				t.Fatalf("read: %v", rd)
			}
			if all := h.must(200, "POST", "/svc/notifications/read-all", alice, nil).data(); all["affected"] != float64(len(pending)-1) {
				t.Fatalf("read-all affected %v, want %d", all["affected"], len(pending)-1)
			}
			hist := h.must(200, "GET", "/svc/notifications/history", alice, nil).Body["data"].([]any)
			if len(hist) != len(pending) || hist[0].(map[string]any)["is_read"] != true {
				t.Fatalf("history: %v", hist)
			}

			// Removal of the delegated verification.
			rm := h.must(200, "POST", "/svc/"+c+"/carol.example/remove-namespace-verification", carol, nil).data()
			if fmt.Sprint(rm["verification_methods"]) != "[request_other_namespace]" || fmt.Sprint(rm["removed_targets"]) != "["+a+"]" ||
				rm["domain_removed_from_namespace"] != true || rm["domain_still_verified"] != false || rm["removed_entries"].(float64) < 2 {
				t.Fatalf("remove: %v", rm)
			}
			h.must(404, "POST", "/svc/"+c+"/carol.example/remove-namespace-verification", carol, nil)
			h.must(403, "POST", "/svc/"+a+"/attester.example/remove-namespace-verification", carol, nil)
			if r := h.must(200, "GET", "/svc/check-verification/"+c, carol, nil); r.Body["verified"] != false {
				t.Fatal("still verified after removal")
			}
			// The attester's own removal: no source remains, the domain leaves it; the namespace stays.
			rm = h.must(200, "POST", "/svc/attester.example/attester.example/remove-namespace-verification", alice, nil).data()
			if fmt.Sprint(rm["verification_methods"]) != "[self_dns]" || rm["domain_removed_from_namespace"] != true {
				t.Fatalf("remove self: %v", rm)
			}
			h.must(404, "GET", "/svc/lookup/attester.example", "", nil)
			h.must(200, "GET", "/svc/lookup/"+a, "", nil)
		})
	}
}

// TestDelegationRule: a delegated request names a domain in the global registry or a subdomain
// of the target's self-verified domain; anything else is refused (400) and writes nothing.
func TestDelegationRule(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, dns, _ := domainHarness(t, d, server.ReverifyConfig{})
			ctx := context.Background()
			mallory := h.key("mallory@example.com")
			attacker := newNamespace(t, h, mallory, "Attacker Corp")
			puppet := newNamespace(t, h, mallory, "Puppet")
			selfVerify(t, h, dns, mallory, attacker, "attacker-corp.test")
			if err := h.store.AllowDomain(ctx, "*.partner.test"); err != nil {
				t.Fatal(err)
			}
			ask := func(domain string) resp {
				return gen(h, mallory, puppet, domain, "?verification_method=request_other_namespace&target_namespace="+attacker)
			}
			for _, dom := range []string{"bank.test", "xattacker-corp.test", "attacker-corp.test.evil.test", "partner.test", "corp.test"} {
				r := ask(dom)
				if r.Status != 400 || !strings.Contains(r.msg(), "neither in the global registry nor a subdomain") {
					t.Fatalf("request for %s: %d %s", dom, r.Status, r.Raw)
				}
			}
			// Nothing was written: no notification reached the target, the domain has no holder.
			if p := h.must(200, "GET", "/svc/notifications/pending", mallory, nil); p.Body["unread_count"] != 0.0 {
				t.Fatalf("a refused request notified the target: %s", p.Raw)
			}
			h.must(404, "GET", "/svc/lookup/bank.test", "", nil)

			// A subdomain of the target's own domain, at any depth, and an allowed domain pass.
			for _, dom := range []string{"shop.attacker-corp.test", "a.b.attacker-corp.test", "eu.partner.test"} {
				r := ask(dom)
				if r.Status != 200 || r.data()["request_id"] == nil {
					t.Fatalf("request for %s: %d %s", dom, r.Status, r.Raw)
				}
			}
			id := ask("shop.attacker-corp.test").data()["request_id"].(string)
			h.must(200, "POST", "/svc/verification-requests/"+id+"/accept", mallory, nil)
			if got := h.must(200, "GET", "/svc/lookup/shop.attacker-corp.test", "", nil).data()["namespace_id"]; got != puppet {
				t.Fatalf("shop.attacker-corp.test is held by %v, want %s", got, puppet)
			}
		})
	}
}

// TestAcceptRechecksTheRule: accept fails (409, nothing written) while the target is no longer
// self-verified, or when the domain left the global registry meanwhile.
func TestAcceptRechecksTheRule(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			st, dbURL := storetest.OpenURL(t, d)
			h, dns, _ := domainHarnessOn(t, st, server.ReverifyConfig{})
			db := rawDB(t, d, dbURL)
			ctx := context.Background()
			alice, carol := h.key("alice@example.com"), h.key("carol@example.com")
			a := newNamespace(t, h, alice, "Attester")
			c := newNamespace(t, h, carol, "Carol")
			selfVerify(t, h, dns, alice, a, "attester.test")
			if err := h.store.AllowDomain(ctx, "carol.test"); err != nil {
				t.Fatal(err)
			}
			id := gen(h, carol, c, "carol.test", "?verification_method=request_other_namespace&target_namespace="+a).data()["request_id"].(string)
			nothingWritten := func(what string) {
				t.Helper()
				if n := count(t, db, `SELECT COUNT(*) FROM registries WHERE registry_name = 'domain-attestations'`); n != 0 {
					t.Fatalf("%s: an attestation registry was written", what)
				}
				if n := count(t, db, `SELECT COUNT(*) FROM domain_sources WHERE method = 'request_other_namespace'`); n != 0 {
					t.Fatalf("%s: a delegated source was written", what)
				}
				if r, err := h.store.GetRequest(ctx, id); err != nil || r.Status != store.RequestPending {
					t.Fatalf("%s: request %+v, %v; want it still pending", what, r, err)
				}
				if p := h.must(200, "GET", "/svc/notifications/pending", carol, nil); p.Body["unread_count"] != 0.0 {
					t.Fatalf("%s: the requester was notified: %s", what, p.Raw)
				}
				if r := h.must(200, "GET", "/svc/check-verification/"+c, carol, nil); r.Body["verified"] != false {
					t.Fatalf("%s: the requester is verified", what)
				}
			}

			// The target removes its own verification: it cannot attest any more.
			h.must(200, "POST", "/svc/"+a+"/attester.test/remove-namespace-verification", alice, nil)
			r := h.do("POST", "/svc/verification-requests/"+id+"/accept", alice, nil)
			if r.Status != 409 || !strings.Contains(r.msg(), "no longer self-verified") {
				t.Fatalf("accept by an unverified target: %d %s", r.Status, r.Raw)
			}
			nothingWritten("unverified target")

			// Verified again, but the operator disallowed the domain meanwhile.
			selfVerify(t, h, dns, alice, a, "attester.test")
			if err := h.store.DisallowDomain(ctx, "carol.test"); err != nil {
				t.Fatal(err)
			}
			r = h.do("POST", "/svc/verification-requests/"+id+"/accept", alice, nil)
			if r.Status != 409 || !strings.Contains(r.msg(), "neither in the global registry nor a subdomain") {
				t.Fatalf("accept of a disallowed domain: %d %s", r.Status, r.Raw)
			}
			nothingWritten("disallowed domain")

			// Allowed again (a wildcard now): the same request is accepted.
			if err := h.store.AllowDomain(ctx, "*.test"); err != nil {
				t.Fatal(err)
			}
			h.must(200, "POST", "/svc/verification-requests/"+id+"/accept", alice, nil)
			if r := h.must(200, "GET", "/svc/check-verification/"+c, carol, nil); r.Body["domain"] != "carol.test" {
				t.Fatalf("after the accept: %s", r.Raw)
			}
		})
	}
}

// TestConcurrentDelegatedRequests: parallel requests for one namespace and domain all get the
// one pending request (200), never a 5xx, and exactly one is stored.
func TestConcurrentDelegatedRequests(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			st, dbURL := storetest.OpenURL(t, d)
			h, dns, _ := domainHarnessOn(t, st, server.ReverifyConfig{})
			db := rawDB(t, d, dbURL)
			alice, carol := h.key("alice@example.com"), h.key("carol@example.com")
			a := newNamespace(t, h, alice, "Attester")
			c := newNamespace(t, h, carol, "Carol")
			selfVerify(t, h, dns, alice, a, "attester.test")
			for round := 0; round < 3; round++ {
				dom := fmt.Sprintf("r%d.attester.test", round)
				const n = 20
				answers := make([]resp, n)
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i := range answers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						answers[i] = gen(h, carol, c, dom, "?verification_method=request_other_namespace&target_namespace="+a)
					}()
				}
				close(start)
				wg.Wait()
				ids := map[any]int{}
				for _, r := range answers {
					if r.Status != 200 {
						t.Fatalf("%s: status %d: %s", dom, r.Status, r.Raw)
					}
					ids[r.data()["request_id"]]++
				}
				if len(ids) != 1 {
					t.Fatalf("%s: answers name %d requests: %v", dom, len(ids), ids)
				}
				if n := count(t, db, `SELECT COUNT(*) FROM verification_requests WHERE domain = $1 AND status = 'pending'`, dom); n != 1 {
					t.Fatalf("%s: %d pending requests stored", dom, n)
				}
				if n := count(t, db, `SELECT COUNT(*) FROM notifications WHERE domain = $1`, dom); n != 1 {
					t.Fatalf("%s: %d notifications", dom, n)
				}
			}
		})
	}
}
