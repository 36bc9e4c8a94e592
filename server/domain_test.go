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
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/ownership"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
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
func domainHarnessOn(t *testing.T, st *store.Store, rv server.ReverifyConfig, adjust ...func(*server.Config)) (*harness, *dnstest.Server, *webFiles) {
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
		for _, a := range adjust {
			a(c)
		}
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
			if err := h.srv.Verification().MarkSelfVerified(ctx, a, "gone.test", store.MethodSelfDNS, store.Principal{}); !errors.Is(err, ownership.ErrDomainNotAllowed) {
				t.Fatalf("MarkSelfVerified of a disallowed domain: %v", err)
			}
		})
	}
}
