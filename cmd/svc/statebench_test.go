package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/stateindex"
)

var stateBenchRecords = flag.Int("state-records", 100000, "BenchmarkStateQuery: records in the log")

// BenchmarkStateQuery builds a log of -state-records records on SQLite (integrated without the
// state index, as a release before it made it), then measures: the integrator's rebuild of
// the index from leaf 0 (as on the first start of such a database) until it signs its first
// state leaf; the serving index's build to that checkpoint; the heap per key; the state
// query's throughput over HTTP against the record lookup's, one client after the other; and
// the size of a state answer.
//
//	go test -run '^$' -bench StateQuery -benchtime 1x ./cmd/svc [-args -state-records=N]
func BenchmarkStateQuery(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b, store.DialectSQLite)
	skey, vkey, _ := translog.GenerateKey("bench.example/svc/log")
	lk, _ := translog.ParseKey(skey)
	u, _ := st.EnsureUser(ctx, "bench@example.com")
	ns, err := st.CreateNamespace(ctx, u, "did:web:bench", directory.NamespaceInput{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateRegistry(ctx, ns.NamespaceID, "did:web:bench", directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom}); err != nil {
		b.Fatal(err)
	}
	var ids, names []string
	for i := 0; i < *stateBenchRecords; i += directory.MaxBatch {
		in := make([]directory.RecordInput, min(directory.MaxBatch, *stateBenchRecords-i))
		for j := range in {
			in[j] = directory.RecordInput{RecordName: fmt.Sprintf("r%07d", i+j), Details: map[string]any{"n": float64(j)}}
		}
		added, err := st.AddRecords(ctx, ns.NamespaceID, "people", "did:web:bench", in)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range added {
			ids, names = append(ids, a.RecordID), append(names, a.RecordName)
		}
	}
	old := translog.NewIntegrator(st, lk, nil, nil)
	for {
		n, err := old.IntegrateOnce(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	// The first start with the index: it rebuilds from leaf 0, then signs a state leaf.
	start := time.Now()
	g := translog.NewIntegrator(st, lk, nil, nil).WithStateIndex()
	for {
		if _, err := g.IntegrateOnce(ctx); err != nil {
			b.Fatal(err)
		}
		s, _ := st.LogState(ctx)
		if size, _ := g.StateIndexSize(); size == uint64(s.Size) {
			break
		}
	}
	b.ReportMetric(time.Since(start).Seconds(), "integrator-rebuild-s")
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start = time.Now()
	ss := translog.NewStateServer(translog.NewReader(st), st, nil, nil)
	if err := ss.Step(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(time.Since(start).Seconds(), "serving-build-s")
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if _, _, ready := ss.Status(); !ready {
		b.Fatal("the serving index is not ready")
	}
	b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(len(ids)+2), "serving-heap-B/key")
	srv, err := server.NewServer(server.Config{Store: st, LogVerifierKey: vkey, LogState: ss})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv.Echo())
	defer hs.Close()
	rate := func(path func(i int) string) (float64, int) {
		n, size, t0 := 0, 0, time.Now()
		for time.Since(t0) < 3*time.Second {
			resp, err := http.Get(hs.URL + path(n))
			if err != nil {
				b.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("%s: %d %s", path(n), resp.StatusCode, body)
			}
			size = len(body)
			n++
		}
		return float64(n) / time.Since(t0).Seconds(), size
	}
	pick := func(i int) int { return (i * 7919) % len(ids) }
	stateRate, stateSize := rate(func(i int) string { return "/svc/log/state/" + ids[pick(i)] })
	lookupRate, _ := rate(func(i int) string { return "/svc/lookup/" + ns.NamespaceID + "/people/" + names[pick(i)] })
	b.ReportMetric(stateRate, "state-query/s")
	b.ReportMetric(lookupRate, "lookup/s")
	b.ReportMetric(float64(stateSize), "state-answer-B")
	a, err := ss.Query(ctx, stateindex.IDKey(ids[0]))
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(a)
	b.ReportMetric(float64(len(a.Proof)), "index-proof-B")
	b.ReportMetric(float64(len(raw)), "answer-json-B")
}
