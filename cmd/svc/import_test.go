package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
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
	ns, err := st.CreateNamespace(ctx, u, "did:web:x:y", directory.NamespaceInput{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRegistry(ctx, ns.NamespaceID, "did:web:x:y", directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom,
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
	// Batches of 100 (the flag) keep the data small under -race; the waits asked for are
	// recorded instead of slept.
	var waits []time.Duration
	wait := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	imp := func(file string) (int, string, string) {
		var out, errb bytes.Buffer
		err := importWith(ctx, []string{"--url", srv.URL, "--key", key, "--namespace", ns.NamespaceID, "--registry", "people",
			"--batch", "100", file}, nil, &out, &errb, wait)
		if err != nil {
			fmt.Fprintln(&errb, err)
			return 1, out.String(), errb.String()
		}
		return 0, out.String(), errb.String()
	}
	count := func() int64 {
		reg, err := st.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{})
		if err != nil {
			t.Fatal(err)
		}
		return reg.RecordCount
	}

	good := write("good.ndjson", 250, 0)
	code, out, errs := imp(good)
	if code != 0 || !strings.Contains(out, "imported 250 record(s), skipped 0") || throttled.Load() != 1 || count() != 250 {
		t.Fatalf("first run: exit %d %q %q, throttled %d, count %d", code, out, errs, throttled.Load(), count())
	}
	// The throttled batch waited as Retry-After said, once.
	if len(waits) != 1 || waits[0] != time.Second {
		t.Fatalf("waits %v, want one of 1s (Retry-After: 1)", waits)
	}
	// A rerun skips what exists.
	code, out, _ = imp(good)
	if code != 0 || !strings.Contains(out, "imported 0 record(s), skipped 250") || count() != 250 {
		t.Fatalf("rerun: exit %d %q", code, out)
	}
	// A bad line stops the import at its number; only whole batches before it are written.
	bad := write("bad.ndjson", 350, 320)
	code, out, errs = imp(bad)
	if code != 1 || !strings.Contains(errs, "line 320") || count() != 300 {
		t.Fatalf("bad line: exit %d %q %q, count %d", code, out, errs, count())
	}
	// A record the server refuses is reported by its line.
	refused := filepath.Join(dir, "refused.ndjson")
	_ = os.WriteFile(refused, []byte(`{"record_name":"q-1","details":{"email":"x@example.com"}}`+"\n"+`{"record_name":"q-2","details":{}}`+"\n"), 0o600)
	code, _, errs = imp(refused)
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

// The importer's wait between retries ends with its context (an interrupted import does not
// sit out a long Retry-After).
func TestImportWaitEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := sleep(ctx, time.Hour); err == nil || time.Since(start) > time.Second {
		t.Fatalf("sleep on a cancelled context: %v after %v", err, time.Since(start))
	}
	if err := sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
}
