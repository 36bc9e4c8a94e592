package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
)

func TestImport(t *testing.T) {
	st := storetest.Open(t, store.DialectSQLite)
	api, err := server.NewServer(server.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	e := api.Echo()
	var calls, throttled atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The first add-records call is throttled once: the importer must wait and retry.
		if strings.HasSuffix(r.URL.Path, "/add-records") && calls.Add(1) == 1 {
			throttled.Add(1)
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"message":"Too many requests"}`))
			return
		}
		e.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	key, u, _ := st.CreateAPIKey(ctx, "importer@example.com")
	ns, err := st.CreateNamespace(ctx, u, "did:web:x:y", store.NamespaceInput{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRegistry(ctx, ns.NamespaceID, "did:web:x:y", store.RegistryInput{RegistryName: "people", Tag: store.TagCustom,
		Schema: map[string]any{"type": "object", "required": []any{"email"}}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, n int, badAt int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			switch {
			case i == badAt:
				b.WriteString(`{"record_name":"p-bad","details":` + "\n")
			default:
				fmt.Fprintf(&b, `{"record_name":"p-%05d","details":{"email":"p%d@example.com"}}`+"\n", i, i)
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	args := func(file string) []string {
		return []string{"import", "--url", srv.URL, "--key", key, "--namespace", ns.NamespaceID, "--registry", "people", file}
	}
	count := func() int64 {
		reg, err := st.GetRegistry(ctx, ns.NamespaceID, "people", store.VersionSel{})
		if err != nil {
			t.Fatal(err)
		}
		return reg.RecordCount
	}

	good := write("good.ndjson", 2500, 0)
	code, out, errs := svc(t, args(good)...)
	if code != 0 || !strings.Contains(out, "imported 2500 record(s), skipped 0") || throttled.Load() != 1 || count() != 2500 {
		t.Fatalf("first run: exit %d %q %q, throttled %d, count %d", code, out, errs, throttled.Load(), count())
	}
	// A rerun skips what exists.
	code, out, _ = svc(t, args(good)...)
	if code != 0 || !strings.Contains(out, "imported 0 record(s), skipped 2500") || count() != 2500 {
		t.Fatalf("rerun: exit %d %q", code, out)
	}
	// A bad line stops the import at its number; only whole batches before it are written.
	bad := write("bad.ndjson", 3500, 3200)
	code, out, errs = svc(t, args(bad)...)
	if code != 1 || !strings.Contains(errs, "line 3200") || count() != 3000 {
		t.Fatalf("bad line: exit %d %q %q, count %d", code, out, errs, count())
	}
	// A record the server refuses is reported by its line.
	refused := filepath.Join(dir, "refused.ndjson")
	_ = os.WriteFile(refused, []byte(`{"record_name":"q-1","details":{"email":"x@example.com"}}`+"\n"+`{"record_name":"q-2","details":{}}`+"\n"), 0o600)
	code, _, errs = svc(t, args(refused)...)
	if code != 1 || !strings.Contains(errs, "line 2") {
		t.Fatalf("refused record: exit %d %q", code, errs)
	}
	if code, _, _ := svc(t, "import", "--url", srv.URL, good); code != 2 {
		t.Fatalf("missing flags: exit %d", code)
	}
}

// A line whose number the server would refuse (or round) is refused before any batch is sent,
// naming the JSON pointer, rather than sent as the rounded value.
func TestImportRefusesInexactNumbersLocally(t *testing.T) {
	if _, err := parseLine([]byte(`{"record_name":"a","details":{"n":9007199254740991}}`)); err != nil {
		t.Fatalf("largest safe integer refused: %v", err)
	}
	_, err := parseLine([]byte(`{"record_name":"a","details":{"n":9007199254740993}}`))
	if err == nil || !strings.Contains(err.Error(), "/details/n") || !strings.Contains(err.Error(), "9007199254740993") {
		t.Fatalf("want a refusal naming /details/n and the number as sent, got %v", err)
	}
}
