package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

func benchServer(b *testing.B, st *store.Store) *echo.Echo {
	srv, err := server.NewServer(server.Config{Store: st, Logger: slog.New(slog.DiscardHandler), DIDHost: "localhost%3A8080",
		LookupCacheTTL: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return srv.Echo()
}

// BenchmarkLookupRecordInProcess1M: GET /svc/lookup/{ns}/people/{record} through the whole
// echo stack in-process (no socket), Postgres, 1,000,000 records in the registry.
func BenchmarkLookupRecordInProcess1M(b *testing.B) {
	st, nsID := storetest.SeededRegistry(b, 1_000_000)
	e := benchServer(b, st)
	r := rand.New(rand.NewPCG(7, 8))
	inProcessLookups(b, e, func() string {
		return "/svc/lookup/" + nsID + "/people/" + storetest.PersonName(r.IntN(1_000_000))
	})
}

// inProcessLookups sends b.N lookups of the paths next gives through e, in-process, and reports
// their latency percentiles.
func inProcessLookups(b *testing.B, e http.Handler, next func() string) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("GET", next(), nil)
		rec := httptest.NewRecorder()
		t0 := time.Now()
		e.ServeHTTP(rec, req)
		lat = append(lat, time.Since(t0))
		if rec.Code != 200 {
			b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
	}
	b.StopTimer()
	storetest.ReportPercentiles(b, lat)
}

// load sends GETs from conc keep-alive clients for dur and returns requests per second; each
// client gets its own path generator.
func load(b *testing.B, base string, conc int, dur time.Duration, newPath func(r *rand.Rand) func() string) float64 {
	return loadRequests(b, conc, dur, func(r *rand.Rand) func() *http.Request {
		path := newPath(r)
		return func() *http.Request {
			req, _ := http.NewRequest("GET", base+path(), nil)
			return req
		}
	})
}

// loadRequests sends the requests each client's generator builds from conc keep-alive clients
// for dur and returns the rate of 200 answers; any other answer fails the benchmark.
func loadRequests(b *testing.B, conc int, dur time.Duration, newGen func(r *rand.Rand) func() *http.Request) float64 {
	tr := &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var n, failed atomic.Int64
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := newGen(rand.New(rand.NewPCG(uint64(w), 99)))
			for time.Now().Before(deadline) {
				resp, err := client.Do(next())
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					failed.Add(1)
					continue
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		b.Fatalf("%d requests failed", failed.Load())
	}
	return float64(n.Load()) / dur.Seconds()
}

// BenchmarkLookupRecordOverHTTP1M measures, side by side in one run, the requests per second of
// record lookups served over loopback HTTP and of a minimal echo handler returning the same bytes
// from memory. The target: the service at no less than half the baseline. Keys are drawn
// uniformly from the million records (the cache almost never hits: the database's own rate).
//
// A third server, floor, is the minimal handler plus the one statement a lookup cannot avoid
// (the record's row found by key on its own pgx pool, only its details read, nothing decoded): what any design that
// reads the database per request starts from. Each phase also reports the CPU it spent per
// request, in this process (load generator and server) and in the local Postgres: the 2 cores
// are shared, so the ratio follows what each request costs in all.
func BenchmarkLookupRecordOverHTTP1M(b *testing.B) {
	benchLookupOverHTTP(b, func(r *rand.Rand) func() int { return func() int { return r.IntN(1_000_000) } })
}

// BenchmarkLookupRecordOverHTTP1MHotSet is the same with keys drawn from a Zipf distribution
// over the million records (s=1.1), the shape of real lookup traffic (a few credentials and
// keys are checked far more often than the rest), where the lookup cache serves repeats.
func BenchmarkLookupRecordOverHTTP1MHotSet(b *testing.B) {
	benchLookupOverHTTP(b, func(r *rand.Rand) func() int {
		z := rand.NewZipf(r, 1.1, 1, 999_999)
		return func() int { return int(z.Uint64()) }
	})
}

func benchLookupOverHTTP(b *testing.B, newPick func(r *rand.Rand) func() int) {
	st, nsID := storetest.SeededRegistry(b, 1_000_000)
	svc := httptest.NewServer(benchServer(b, st))
	defer svc.Close()
	resp, err := http.Get(svc.URL + "/svc/lookup/" + nsID + "/people/" + storetest.PersonName(42))
	if err != nil {
		b.Fatal(err)
	}
	sample, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	minimal := echo.New()
	minimal.GET("/svc/lookup/:ns/:reg/:rec", func(c echo.Context) error { return c.Blob(200, "application/json", sample) })
	base := httptest.NewServer(minimal)
	defer base.Close()
	read := storetest.PointReader(b, 1_000_000, nsID)
	floorEcho := echo.New()
	floorEcho.GET("/svc/lookup/:ns/:reg/:rec", func(c echo.Context) error {
		if err := read(c.Request().Context(), c.Param("rec")); err != nil {
			return err
		}
		return c.Blob(200, "application/json", sample)
	})
	floor := httptest.NewServer(floorEcho)
	defer floor.Close()

	const conc = 16
	dur := 3 * time.Second
	path := func(r *rand.Rand) func() string {
		pick := newPick(r)
		return func() string { return "/svc/lookup/" + nsID + "/people/" + storetest.PersonName(pick()) }
	}
	run := func(url string) phase { return measurePhase(b, url, conc, dur, path) }
	b.ResetTimer()
	var m, f, sv phase
	for i := 0; i < b.N; i++ {
		m, f, sv = run(base.URL), run(floor.URL), run(svc.URL)
	}
	b.StopTimer()
	b.ReportMetric(sv.rps, "svc-req/s")
	b.ReportMetric(m.rps, "minimal-req/s")
	b.ReportMetric(f.rps, "floor-req/s")
	b.ReportMetric(sv.rps/m.rps, "ratio")
	b.ReportMetric(f.rps/m.rps, "floor-ratio")
	b.ReportMetric(m.goCPU, "minimal-cpu-µs/req")
	b.ReportMetric(f.goCPU, "floor-cpu-µs/req")
	b.ReportMetric(f.pgCPU, "floor-pg-µs/req")
	b.ReportMetric(sv.goCPU, "svc-cpu-µs/req")
	b.ReportMetric(sv.pgCPU, "svc-pg-µs/req")
}

// phase is what one load phase measured: requests per second, and the CPU time spent per
// request in this process (load generator and server) and in the local Postgres.
type phase struct{ rps, goCPU, pgCPU float64 }

func (p phase) plus(q phase) phase { return phase{p.rps + q.rps, p.goCPU + q.goCPU, p.pgCPU + q.pgCPU} }

func (p phase) scaled(f float64) phase { return phase{p.rps * f, p.goCPU * f, p.pgCPU * f} }

// measurePhase runs load against base for dur and reads the CPU time it cost.
func measurePhase(b *testing.B, base string, conc int, dur time.Duration, path func(r *rand.Rand) func() string) phase {
	g0, p0 := processCPU(), postgresCPU()
	rps := load(b, base, conc, dur, path)
	g1, p1 := processCPU(), postgresCPU()
	n := rps * dur.Seconds()
	return phase{rps, (g1 - g0).Seconds() * 1e6 / n, (p1 - p0).Seconds() * 1e6 / n}
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postgresCPU is the CPU time used so far by the postgres processes this machine shows in
// /proc (zero where there are none, e.g. a remote database). Backends that exit between two
// readings drop out; the benchmark's connections live through each phase.
func postgresCPU() time.Duration {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(data)
		end := strings.LastIndexByte(s, ')')
		if end < 0 || !strings.Contains(s[:end], "(postgres") || end+2 > len(s) {
			continue
		}
		f := strings.Fields(s[end+2:]) // f[0] is field 3 (state): utime is field 14, stime 15
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		k, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + k
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times: 100 on Linux for every
// architecture Go supports.
const clockTicks = 100

// BenchmarkAddRecordsOverHTTP: add-records in batches of 1000 into Postgres through the whole
// stack in-process, including contract validation, schema validation and digests, with the
// transparency log on: each version queued in its write, and the integrator running beside
// as svc serve runs it.
func BenchmarkAddRecordsOverHTTP(b *testing.B) {
	st := storetest.Open(b, store.DialectPostgres)
	e := benchServer(b, st)
	ctx := context.Background()
	logKey := benchLogKey(b)
	runCtx, stop := context.WithCancel(ctx)
	integrated := make(chan struct{})
	go func() {
		defer close(integrated)
		translog.NewIntegrator(st, logKey, nil, nil).Run(runCtx, 250*time.Millisecond)
	}()
	defer func() { stop(); <-integrated }()
	key, _, err := st.CreateAPIKey(ctx, "bench@example.com")
	if err != nil {
		b.Fatal(err)
	}
	do := func(method, path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	rec := do("POST", "/svc/create-namespace", `{"name":"bench"}`)
	nsID := strings.SplitN(strings.SplitN(rec.Body.String(), `"namespace_id":"`, 2)[1], `"`, 2)[0]
	schema := `{"type":"object","required":["email","name"],"properties":{"email":{"type":"string","format":"email"},` +
		`"name":{"type":"object","properties":{"first":{"type":"string"},"last":{"type":"string"}}},` +
		`"address":{"type":"object"},"tags":{"type":"array","items":{"type":"string"}},"number":{"type":"number"}}}`
	if rec := do("POST", "/svc/"+nsID+"/create-registry", `{"registry_name":"people","schema":`+schema+`}`); rec.Code != 201 {
		b.Fatal(rec.Body.String())
	}
	r := rand.New(rand.NewPCG(5, 6))
	bodies := make([]string, b.N)
	for i := range bodies {
		var sb strings.Builder
		sb.WriteString(`{"records":[`)
		for j := 0; j < directory.MaxBatch; j++ {
			if j > 0 {
				sb.WriteByte(',')
			}
			k := i*directory.MaxBatch + j
			d := storetest.Details(r, k)
			fmt.Fprintf(&sb, `{"record_name":"p-%08d","details":{"email":%q,"name":{"first":%q,"last":%q},"address":{"city":%q},"tags":["a","b"],"number":%d}}`,
				k, d["email"], d["name"].(map[string]any)["first"], d["name"].(map[string]any)["last"], d["address"].(map[string]any)["city"], k)
		}
		sb.WriteString(`]}`)
		bodies[i] = sb.String()
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if rec := do("POST", "/svc/"+nsID+"/people/add-records", bodies[i]); rec.Code != 201 {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body.String())
		}
	}
	b.ReportMetric(float64(b.N*directory.MaxBatch)/time.Since(start).Seconds(), "records/s")
}

// BenchmarkVerifyRecordOverHTTP1M: verify-record-lookup over loopback HTTP on Postgres,
// including the verification log write, for random records of the million-record registry.
func BenchmarkVerifyRecordOverHTTP1M(b *testing.B) {
	st, nsID := storetest.SeededRegistry(b, 1_000_000)
	srv := httptest.NewServer(benchServer(b, st))
	defer srv.Close()
	key, _, err := st.CreateAPIKey(context.Background(), "verifier@example.com")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	// 2,000 distinct record versions, each verified a few times in the run.
	bodies := make([][]byte, 2000)
	for i := range bodies {
		resp, err := http.Get(srv.URL + "/svc/lookup/" + nsID + "/people/" + storetest.PersonName(r.IntN(1_000_000)))
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		bodies[i] = append(append([]byte(`{"record_lookup_response":`), raw...), '}')
	}
	const conc = 16
	dur := 3 * time.Second
	b.ResetTimer()
	var rps float64
	for i := 0; i < b.N; i++ {
		rps = loadRequests(b, conc, dur, func(r *rand.Rand) func() *http.Request {
			return func() *http.Request {
				req, _ := http.NewRequest("POST", srv.URL+"/svc/verify-record-lookup", bytes.NewReader(bodies[r.IntN(len(bodies))]))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
				return req
			}
		})
	}
	b.StopTimer()
	b.ReportMetric(rps, "verify/s")
}

// BenchmarkMetricsAndRateLimitOverhead compares, side by side in one run, lookups served with
// and without the Prometheus metrics and the rate limiter (set high enough never to refuse), on
// the hot set where most answers come from the lookup cache, so that the middleware's share of
// the work is as large as it gets. Runs alternate to spread the machine's noise.
func BenchmarkMetricsAndRateLimitOverhead(b *testing.B) {
	st, nsID := storetest.SeededRegistry(b, 1_000_000)
	mk := func(plain bool) *httptest.Server {
		cfg := server.Config{Store: st, Logger: slog.New(slog.DiscardHandler), DIDHost: "localhost%3A8080", LookupCacheTTL: time.Second}
		if plain {
			cfg.NoMetrics = true
		} else {
			cfg.RateLimit = server.RateLimit{RPS: 1e9, Burst: 1e9}
		}
		srv, err := server.NewServer(cfg)
		if err != nil {
			b.Fatal(err)
		}
		e := srv.Echo()
		return httptest.NewServer(e)
	}
	plain, full := mk(true), mk(false)
	defer plain.Close()
	defer full.Close()
	path := func(r *rand.Rand) func() string {
		z := rand.NewZipf(r, 1.1, 1, 999_999)
		return func() string { return "/svc/lookup/" + nsID + "/people/" + storetest.PersonName(int(z.Uint64())) }
	}
	var plainRPS, fullRPS float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for round := 0; round < 4; round++ {
			if round%2 == 0 { // alternate which goes first
				plainRPS += load(b, plain.URL, 16, 2*time.Second, path)
				fullRPS += load(b, full.URL, 16, 2*time.Second, path)
			} else {
				fullRPS += load(b, full.URL, 16, 2*time.Second, path)
				plainRPS += load(b, plain.URL, 16, 2*time.Second, path)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(plainRPS/float64(4*b.N), "plain-req/s")
	b.ReportMetric(fullRPS/float64(4*b.N), "metrics+ratelimit-req/s")
	b.ReportMetric(100*(1-fullRPS/plainRPS), "overhead-%")
}
