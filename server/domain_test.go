package server_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/domainverify/dnstest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
)

// webFiles serves /.well-known/svc-verification.txt per Host, as each domain's web server would.
type webFiles struct {
	mu    sync.Mutex
	files map[string]string
}

func (w *webFiles) set(host, body string) { w.mu.Lock(); w.files[host] = body; w.mu.Unlock() }

func (w *webFiles) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.Host)
	w.mu.Lock()
	body, ok := w.files[host]
	w.mu.Unlock()
	if !ok || r.URL.Path != domainverify.WellKnownPath {
		http.NotFound(rw, r)
		return
	}
	fmt.Fprint(rw, body)
}

// domainHarness is a harness whose checker talks to a real DNS server and a real HTTP server on
// loopback (the insecure test mode of the fetcher), with short re-verification times.
func domainHarness(t *testing.T, dialect string, rv server.ReverifyConfig) (*harness, *dnstest.Server, *webFiles) {
	return domainHarnessOn(t, storetest.Open(t, dialect), rv)
}

// domainHarnessOn is domainHarness over a given store.
func domainHarnessOn(t *testing.T, st *store.Store, rv server.ReverifyConfig) (*harness, *dnstest.Server, *webFiles) {
	dns := dnstest.Start(t)
	web := &webFiles{files: map[string]string{}}
	hs := httptest.NewServer(web)
	t.Cleanup(hs.Close)
	u, _ := url.Parse(hs.URL)
	port, _ := strconv.Atoi(u.Port())
	h := newHarnessOn(t, st, func(c *server.Config) {
		// The checker svc serve builds: every name, TXT and A/AAAA, is resolved by the test DNS
		// server (a domain served over HTTP needs its address there).
		c.Checker = domainverify.NewChecker(domainverify.Config{DNSServer: dns.Addr, DNSTimeout: 300 * time.Millisecond,
			HTTPPort: port, Insecure: true, HTTPTimeout: time.Second})
		c.Reverify = rv
	})
	return h, dns, web
}

func newNamespace(t *testing.T, h *harness, key, name string) string {
	t.Helper()
	return h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, `{"name":"`+name+`"}`).data()["namespace_id"].(string)
}

func gen(h *harness, key, ns, domain, query string) resp {
	return h.do("GET", "/svc/generate-dns-txt/"+ns+"/"+domain+query, key, nil)
}

func TestSelfVerificationOverDNSAndHTTP(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, dns, web := domainHarness(t, d, server.ReverifyConfig{})
			ctx := context.Background()
			alice, bob := h.key("alice@example.com"), h.key("bob@example.com")
			a := newNamespace(t, h, alice, "Alice Corp")
			b := newNamespace(t, h, bob, "Bob Corp")

			for _, tc := range []struct {
				name, key, ns, domain, query string
				status                       int
				msg                          string
			}{
				{"no key", "", a, "alice.example", "?verification_method=self_dns", 401, "Unauthorized"},
				{"not a member", bob, a, "alice.example", "?verification_method=self_dns", 403, "Forbidden"},
				{"no method", alice, a, "alice.example", "", 400, "verification_method is required"},
				{"bad method", alice, a, "alice.example", "?verification_method=carrier_pigeon", 400, "verification_method"},
				{"no dot", alice, a, "localhost", "?verification_method=self_dns", 400, "invalid domain format"},
				{"wildcard", alice, a, "*.alice.example", "?verification_method=self_dns", 400, "invalid domain format"},
				{"unknown namespace", alice, "did:svc:nope", "alice.example", "?verification_method=self_dns", 404, "Namespace not found"},
				{"not in the global registry", alice, a, "alice.example", "?verification_method=self_dns", 400, "global registry"},
				{"delegated without target", alice, a, "alice.example", "?verification_method=request_other_namespace", 400, "target_namespace"},
				{"delegated to an unknown target", alice, a, "alice.example", "?verification_method=request_other_namespace&target_namespace=did:svc:nope", 404, "Target namespace not found"},
				{"delegated to an unverified target", alice, a, "alice.example", "?verification_method=request_other_namespace&target_namespace=" + b, 400, "not self-verified"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					r := gen(h, tc.key, tc.ns, tc.domain, tc.query)
					if r.Status != tc.status || !strings.Contains(r.msg(), tc.msg) {
						t.Fatalf("%d %q, want %d %q", r.Status, r.msg(), tc.status, tc.msg)
					}
				})
			}

			if err := h.store.AllowDomain(ctx, "alice.example"); err != nil {
				t.Fatal(err)
			}
			if err := h.store.AllowDomain(ctx, "*.example.org"); err != nil {
				t.Fatal(err)
			}
			first := gen(h, alice, a, "Alice.Example.", "?verification_method=self_dns")
			txt, _ := first.Body["txt"].(string)
			if first.Status != 200 || !strings.HasPrefix(txt, "svc-verification=") {
				t.Fatalf("generate: %d %s", first.Status, first.Raw)
			}
			again := gen(h, alice, a, "alice.example", "?verification_method=self_dns")
			if again.Status != 200 || again.data()["txt"] != txt {
				t.Fatalf("second generate: %s", again.Raw)
			}
			// The method may come in a body too.
			viaBody := h.do("GET", "/svc/generate-dns-txt/"+a+"/alice.example", alice, `{"verification_method":"self_http"}`)
			if viaBody.Status != 200 || viaBody.data()["txt"] != txt {
				t.Fatalf("method in the body: %s", viaBody.Raw)
			}
			got := h.must(200, "GET", "/svc/get-dns-txt/"+a, alice, nil)
			if got.Body["txt"] != txt || got.Body["domain"] != "alice.example" || got.Body["is_verified"] != false {
				t.Fatalf("get-dns-txt: %s", got.Raw)
			}
			if r := h.must(200, "GET", "/svc/check-verification/"+a, alice, nil); r.Body["verified"] != false {
				t.Fatalf("check before: %s", r.Raw)
			}

			verify := func(key, ns, domain string) resp {
				body := map[string]any{"namespace_id": ns}
				if domain != "" {
					body["domain"] = domain
				}
				return h.do("POST", "/svc/verify-domain", key, body)
			}
			r := verify(alice, a, "")
			if r.Status != 400 || !strings.Contains(r.msg(), "NXDOMAIN") {
				t.Fatalf("verify before publishing: %d %s", r.Status, r.msg())
			}
			dns.SetTXT("alice.example", []string{"v=spf1 -all"}, []string{"svc-verification=", strings.TrimPrefix(txt, "svc-verification=")})
			if r := verify(alice, a, "alice.example"); r.Status != 200 {
				t.Fatalf("verify over DNS: %d %s", r.Status, r.msg())
			}
			if r := h.must(200, "GET", "/svc/check-verification/"+a, alice, nil); r.Body["verified"] != true || r.Body["domain"] != "alice.example" {
				t.Fatalf("check after: %s", r.Raw)
			}
			ns := h.must(200, "GET", "/svc/lookup/alice.example", "", nil).data()
			if ns["namespace_id"] != a || ns["is_verified"] != true || ns["domain"] != "alice.example" {
				t.Fatalf("lookup by domain: %v", ns)
			}
			// One domain, one namespace.
			if err := h.store.AllowDomain(ctx, "bob.example.org"); err != nil {
				t.Fatal(err)
			}
			if r := gen(h, bob, b, "alice.example", "?verification_method=self_dns"); r.Status != 400 || !strings.Contains(r.msg(), "another namespace") {
				t.Fatalf("second namespace on a verified domain: %d %s", r.Status, r.msg())
			}

			// Bob over HTTP: a wrong file first, then the right one.
			btxt := gen(h, bob, b, "bob.example.org", "?verification_method=self_http").Body["txt"].(string)
			web.set("bob.example.org", "svc-verification=wrong\n")
			if r := verify(bob, b, ""); r.Status != 400 || !strings.Contains(r.msg(), "cannot resolve bob.example.org") {
				t.Fatalf("before the test DNS server knows its address: %d %s", r.Status, r.msg())
			}
			dns.SetAddrs("bob.example.org", "127.0.0.1")
			if r := verify(bob, b, ""); r.Status != 400 || !strings.Contains(r.msg(), "file content mismatch") {
				t.Fatalf("wrong file: %d %s", r.Status, r.msg())
			}
			web.set("bob.example.org", btxt+"\n")
			if r := verify(bob, b, ""); r.Status != 200 || !strings.Contains(r.msg(), "file") {
				t.Fatalf("verify over HTTP: %d %s", r.Status, r.msg())
			}
			h.must(404, "POST", "/svc/verify-domain", alice, map[string]any{"namespace_id": a, "domain": "other.example"})
			h.must(403, "POST", "/svc/verify-domain", bob, map[string]any{"namespace_id": a})
		})
	}
}

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

// TestDomainRaceHasOneWinner: many namespaces verify the same domain at once; the database
// lets exactly one hold it.
func TestDomainRaceHasOneWinner(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, dns, _ := domainHarness(t, d, server.ReverifyConfig{})
			ctx := context.Background()
			if err := h.store.AllowDomain(ctx, "contested.example"); err != nil {
				t.Fatal(err)
			}
			const n = 12
			keys, ids := make([]string, n), make([]string, n)
			var records [][]string
			for i := range ids {
				keys[i] = h.key(fmt.Sprintf("racer%d@example.com", i))
				ids[i] = newNamespace(t, h, keys[i], fmt.Sprintf("racer %d", i))
				txt := gen(h, keys[i], ids[i], "contested.example", "?verification_method=self_dns").Body["txt"].(string)
				records = append(records, []string{txt})
			}
			dns.SetTXT("contested.example", records...)
			statuses := make([]int, n)
			var wg sync.WaitGroup
			for i := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = h.do("POST", "/svc/verify-domain", keys[i], map[string]any{"namespace_id": ids[i]}).Status
				}()
			}
			wg.Wait()
			wins := 0
			for _, s := range statuses {
				switch s {
				case 200:
					wins++
				case 400:
				default:
					t.Fatalf("statuses %v", statuses)
				}
			}
			holder, err := h.store.DomainHolder(ctx, "contested.example")
			if err != nil || wins != 1 || holder == "" {
				t.Fatalf("%d winners (statuses %v), holder %q", wins, statuses, holder)
			}
		})
	}
}

// TestReverification: success keeps the source; a failure puts it in its grace period; a
// recovery within the grace period restores it; a failure past the grace period removes it and,
// being the last source, takes the domain from the namespace.
func TestReverification(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			rv := server.ReverifyConfig{Interval: 50 * time.Millisecond, Grace: 600 * time.Millisecond, Sweep: 10 * time.Millisecond}
			h, dns, _ := domainHarness(t, d, rv)
			ctx := context.Background()
			alice := h.key("alice@example.com")
			a := newNamespace(t, h, alice, "A")
			if err := h.store.AllowDomain(ctx, "re.example"); err != nil {
				t.Fatal(err)
			}
			txt := gen(h, alice, a, "re.example", "?verification_method=self_dns").Body["txt"].(string)
			dns.SetTXT("re.example", []string{txt})
			h.must(200, "POST", "/svc/verify-domain", alice, map[string]any{"namespace_id": a})
			sweep := func() server.SweepStats {
				time.Sleep(80 * time.Millisecond) // past the interval (or the retry)
				st, err := h.srv.SweepOnce(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			verified := func() bool {
				return h.must(200, "GET", "/svc/lookup/"+a, "", nil).data()["is_verified"] == true
			}
			if st := sweep(); st.Checked != 1 || st.OK != 1 || !verified() {
				t.Fatalf("healthy source: %+v", st)
			}
			dns.Set("re.example", dnstest.NXDomain)
			if st := sweep(); st.Grace != 1 || !verified() {
				t.Fatalf("first failure: %+v (still verified during grace: %v)", st, verified())
			}
			dns.SetTXT("re.example", []string{txt})
			if st := sweep(); st.OK != 1 || !verified() {
				t.Fatalf("recovery: %+v", st)
			}
			dns.Set("re.example", dnstest.NXDomain)
			if st := sweep(); st.Grace != 1 {
				t.Fatalf("second failure: %+v", st)
			}
			time.Sleep(rv.Grace)
			st := sweep()
			if st.DomainsRemoved != 1 || verified() {
				t.Fatalf("after the grace period: %+v, verified %v", st, verified())
			}
			if st := sweep(); st.Checked != 0 {
				t.Fatalf("a removed source was checked again: %+v", st)
			}
		})
	}
}

// Several instances sweeping one Postgres check each due source once.
func TestSweepsShareTheWork(t *testing.T) {
	h, dns, _ := domainHarness(t, store.DialectPostgres, server.ReverifyConfig{Interval: time.Hour, Grace: time.Hour, Sweep: time.Second})
	ctx := context.Background()
	const n = 8
	for i := 0; i < n; i++ {
		k := h.key(fmt.Sprintf("o%d@example.com", i))
		id := newNamespace(t, h, k, "n")
		dom := fmt.Sprintf("d%d.example", i)
		if err := h.store.AllowDomain(ctx, dom); err != nil {
			t.Fatal(err)
		}
		txt := gen(h, k, id, dom, "?verification_method=self_dns").Body["txt"].(string)
		dns.SetTXT(dom, []string{txt})
		h.must(200, "POST", "/svc/verify-domain", k, map[string]any{"namespace_id": id})
	}
	// Make every source due now.
	if err := h.store.ForceDueForTest(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := h.srv.SweepOnce(ctx)
			if err != nil {
				t.Error(err)
			}
			counts[i] = st.Checked
		}()
	}
	wg.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != n {
		t.Fatalf("sweeps checked %v sources in all (%v), want each of %d once", total, counts, n)
	}
}

// newHarnessOn is newHarnessWith over a given store (tests that also read its database).
func newHarnessOn(t *testing.T, st *store.Store, adjust func(*server.Config)) *harness {
	t.Helper()
	cfg := server.Config{Store: st, Logger: slog.New(slog.DiscardHandler), DIDHost: "localhost%3A8080", LookupCacheTTL: time.Minute}
	if adjust != nil {
		adjust(&cfg)
	}
	srv, err := server.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, e: srv.Echo(), srv: srv, store: st}
}

// rawDB opens the database of a test store directly, for tests that count what was stored.
func rawDB(t *testing.T, dialect, dbURL string) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	if dialect == store.DialectPostgres {
		db, err = sql.Open("pgx", dbURL)
	} else {
		db, err = sql.Open("sqlite", "file:"+strings.TrimPrefix(dbURL, "sqlite://"))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// selfVerify makes the namespace the self-verified holder of domain over DNS (allowing it first).
func selfVerify(t *testing.T, h *harness, dns *dnstest.Server, key, ns, domain string) {
	t.Helper()
	if err := h.store.AllowDomain(context.Background(), domain); err != nil {
		t.Fatal(err)
	}
	r := gen(h, key, ns, domain, "?verification_method=self_dns")
	txt, _ := r.data()["txt"].(string)
	if txt == "" {
		txt, _ = r.Body["txt"].(string)
	}
	if txt == "" {
		t.Fatalf("generate for %s: %d %s", domain, r.Status, r.Raw)
	}
	dns.SetTXT(domain, []string{txt})
	h.must(200, "POST", "/svc/verify-domain", key, map[string]any{"namespace_id": ns, "domain": domain})
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

// TestDisallowStopsPendingVerification: verify-domain refuses a domain that left the global
// registry after its value was generated, even though the TXT record is in place.
func TestDisallowStopsPendingVerification(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, dns, _ := domainHarness(t, d, server.ReverifyConfig{})
			ctx := context.Background()
			alice := h.key("alice@example.com")
			a := newNamespace(t, h, alice, "A")
			for _, tc := range []struct{ pattern, domain string }{{"gone.test", "gone.test"}, {"*.wild.test", "shop.wild.test"}} {
				if err := h.store.AllowDomain(ctx, tc.pattern); err != nil {
					t.Fatal(err)
				}
				txt := gen(h, alice, a, tc.domain, "?verification_method=self_dns").Body["txt"].(string)
				dns.SetTXT(tc.domain, []string{txt})
				if err := h.store.DisallowDomain(ctx, tc.pattern); err != nil {
					t.Fatal(err)
				}
				r := h.do("POST", "/svc/verify-domain", alice, map[string]any{"namespace_id": a, "domain": tc.domain})
				if r.Status != 400 || !strings.Contains(r.msg(), "not in the global registry") {
					t.Fatalf("verify of disallowed %s: %d %s", tc.domain, r.Status, r.Raw)
				}
				if r := h.must(200, "GET", "/svc/check-verification/"+a, alice, nil); r.Body["verified"] != false {
					t.Fatalf("%s was verified after its disallow", tc.domain)
				}
			}
			// The store refuses it too, in the transaction that would record it.
			if err := h.store.MarkSelfVerified(ctx, a, "gone.test", store.MethodSelfDNS, time.Hour); !errors.Is(err, store.ErrDomainNotAllowed) {
				t.Fatalf("MarkSelfVerified of a disallowed domain: %v", err)
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
