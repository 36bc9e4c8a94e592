package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/store"
)

// BenchCreator is the creator DID of seeded benchmark data.
const BenchCreator = "did:web:localhost%3A8080:bench"

// BenchNamespace makes the benchmark user and a namespace of theirs in s.
func BenchNamespace(b testing.TB, s *store.Store) (store.User, string) {
	b.Helper()
	ctx := context.Background()
	u, err := s.EnsureUser(ctx, "bench@example.com")
	if err != nil {
		b.Fatal(err)
	}
	ns, err := s.CreateNamespace(ctx, u, BenchCreator, directory.NamespaceInput{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	return u, ns.NamespaceID
}

// PersonName is the record name of seeded record i.
func PersonName(i int) string { return fmt.Sprintf("person-%07d", i) }

// Details builds realistic nested details for record i: names, an email, an address, a tags
// array and a number, with non-ASCII text.
func Details(r *rand.Rand, i int) map[string]any {
	first := []string{"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Tim"}
	last := []string{"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Perlman", "Berners-Lee"}
	city := []string{"London", "Zürich", "Paris", "München", "Kraków", "Lisboa", "Oslo", "Tōkyō", "Austin", "Nairobi"}
	f, l := first[r.IntN(len(first))], last[r.IntN(len(last))]
	return map[string]any{
		"name":  map[string]any{"first": f, "last": l},
		"email": fmt.Sprintf("%s.%s.%d@example.com", f, l, i),
		"address": map[string]any{
			"street": fmt.Sprintf("%d Main Street", r.IntN(999)+1), "city": city[r.IntN(len(city))],
			"zip": fmt.Sprintf("%05d", r.IntN(99999)),
		},
		"tags":   []any{"employee", []string{"engineering", "sales", "legal", "ops"}[r.IntN(4)], fmt.Sprintf("grade-%d", r.IntN(9))},
		"number": float64(i),
	}
}

// SeededRegistry returns a store on a persistent Postgres schema (kept across runs) holding one
// namespace whose registry "people" has n records named PersonName(0..n-1), seeded once through
// the store's bulk path. It returns the store and the namespace id.
func SeededRegistry(b testing.TB, n int) (*store.Store, string) {
	b.Helper()
	ctx := context.Background()
	schema := lookupSchema(n)
	var nsID string
	complete := func(s *store.Store) bool {
		u, err := s.UserByEmail(ctx, "bench@example.com")
		if err != nil {
			return false
		}
		id, err := s.FirstNamespaceOf(ctx, u.ID)
		if err != nil || id == "" {
			return false
		}
		reg, err := s.GetRegistry(ctx, id, "people", directory.VersionSel{})
		if err != nil || reg.RecordCount != int64(n) {
			return false
		}
		nsID = id
		return true
	}
	s := Seeded(b, schema, complete, func(s *store.Store) {
		start := time.Now()
		u, err := s.EnsureUser(ctx, "bench@example.com")
		if err != nil {
			b.Fatal(err)
		}
		ns, err := s.CreateNamespace(ctx, u, BenchCreator, directory.NamespaceInput{Name: "bench", Description: "benchmark data"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, BenchCreator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom,
			Schema: map[string]any{"type": "object"}}); err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		batch := make([]directory.RecordInput, 0, directory.MaxBatch)
		for i := 0; i < n; i++ {
			batch = append(batch, directory.RecordInput{RecordName: PersonName(i), Description: "seeded", Details: Details(r, i)})
			if len(batch) == directory.MaxBatch || i == n-1 {
				if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", BenchCreator, batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		nsID = ns.NamespaceID
		if err := s.Analyze(ctx); err != nil {
			b.Fatal(err)
		}
		b.Logf("seeded %d records in %s", n, time.Since(start).Round(time.Second))
	})
	return s, nsID
}

func lookupSchema(n int) string { return fmt.Sprintf("svc_bench_lookup_%d", n) }

// PointReader returns a function that reads one seeded record's details of SeededRegistry(n)
// with a single statement on its own connection pool (pgx, no batching, no decoding): the
// database work a lookup cannot avoid, for benchmarks to set the service beside.
func PointReader(b testing.TB, n int, nsID string) func(ctx context.Context, recordName string) error {
	b.Helper()
	ctx := context.Background()
	u, exists := testdb.PersistentSchema(b, lookupSchema(n))
	if !exists {
		b.Fatalf("PointReader: schema %s is not seeded (call SeededRegistry first)", lookupSchema(n))
	}
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	var regID string
	if err := pool.QueryRow(ctx, `SELECT registry_id FROM registries WHERE namespace_id = $1 AND registry_name = 'people'`, nsID).Scan(&regID); err != nil {
		b.Fatal(err)
	}
	return func(ctx context.Context, recordName string) error {
		var details []byte
		return pool.QueryRow(ctx, `SELECT details::text FROM records WHERE registry_id = $1 AND record_name = $2`, regID, recordName).Scan(&details)
	}
}

// SeededNamespace returns a store on a persistent Postgres schema (or, with a non-empty
// sqlitePath, a kept SQLite file) holding one namespace with registries r0..r(regs-1) sharing n
// records (PersonName(i) in registry r(i%regs)), seeded once through the bulk path.
func SeededNamespace(b testing.TB, dialect string, n, regs int) (*store.Store, string) {
	b.Helper()
	return SeededNamespaceAt(b, dialect, fmt.Sprintf("svc_bench_search_%d", n), n, regs)
}

// SeededNamespaceAt is SeededNamespace kept under a name of the caller's: the Postgres schema
// name, and the SQLite file name (name.db) in the temp directory.
func SeededNamespaceAt(b testing.TB, dialect, name string, n, regs int) (*store.Store, string) {
	b.Helper()
	ctx := context.Background()
	var nsID string
	complete := func(s *store.Store) bool {
		u, err := s.UserByEmail(ctx, "bench@example.com")
		if err != nil {
			return false
		}
		id, err := s.FirstNamespaceOf(ctx, u.ID)
		if err != nil || id == "" {
			return false
		}
		c, err := s.Count(ctx)
		if err != nil || c.Records != int64(n) {
			return false
		}
		nsID = id
		return true
	}
	seed := func(s *store.Store) {
		start := time.Now()
		u, err := s.EnsureUser(ctx, "bench@example.com")
		if err != nil {
			b.Fatal(err)
		}
		ns, err := s.CreateNamespace(ctx, u, BenchCreator, directory.NamespaceInput{Name: "bench", Description: "search benchmark data"})
		if err != nil {
			b.Fatal(err)
		}
		for g := 0; g < regs; g++ {
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, BenchCreator, directory.RegistryInput{RegistryName: fmt.Sprintf("r%d", g),
				Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}}); err != nil {
				b.Fatal(err)
			}
		}
		r := rand.New(rand.NewPCG(1, 2))
		batches := make([][]directory.RecordInput, regs)
		for i := 0; i < n; i++ {
			g := i % regs
			batches[g] = append(batches[g], directory.RecordInput{RecordName: PersonName(i), Description: "seeded", Details: Details(r, i)})
			if len(batches[g]) == directory.MaxBatch || i >= n-regs {
				if _, err := s.AddRecords(ctx, ns.NamespaceID, fmt.Sprintf("r%d", g), BenchCreator, batches[g]); err != nil {
					b.Fatal(err)
				}
				batches[g] = batches[g][:0]
			}
		}
		nsID = ns.NamespaceID
		b.Logf("seeded %d records in %d registries in %s", n, regs, time.Since(start).Round(time.Second))
	}
	if dialect == store.DialectPostgres {
		return Seeded(b, name, complete, func(s *store.Store) {
			seed(s)
			if err := s.Analyze(ctx); err != nil {
				b.Fatal(err)
			}
		}), nsID
	}
	path := SeededSQLitePath(name)
	open := func() *store.Store {
		s, err := store.Open(ctx, "sqlite://"+path, nil, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Migrate(ctx); err != nil {
			b.Fatal(err)
		}
		return s
	}
	s := open()
	if !complete(s) {
		_ = s.Close()
		for _, suffix := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(path + suffix)
		}
		s = open()
		seed(s)
		if err := s.Analyze(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { _ = s.Close() })
	return s, nsID
}

// SeededSQLitePath is the SQLite file SeededNamespaceAt keeps under name.
func SeededSQLitePath(name string) string { return filepath.Join(os.TempDir(), name+".db") }

// Percentiles sorts latencies and returns their p50 and p99 in milliseconds.
func Percentiles(lat []time.Duration) (p50, p99 float64) {
	if len(lat) == 0 {
		return 0, 0
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	return pct(0.50), pct(0.99)
}

// ReportPercentiles reports the p50 and p99 of latencies (ms) as benchmark metrics.
func ReportPercentiles(b *testing.B, lat []time.Duration) {
	p50, p99 := Percentiles(lat)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
}

// SeededRegistryInt64 runs query, which returns one integer, in the Postgres schema of
// SeededRegistry(n) (benchmarks read relation sizes with it).
func SeededRegistryInt64(b testing.TB, n int, query string) int64 {
	b.Helper()
	ctx := context.Background()
	u, _ := testdb.PersistentSchema(b, lookupSchema(n))
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	var v int64
	if err := pool.QueryRow(ctx, query).Scan(&v); err != nil {
		b.Fatalf("%s: %v", query, err)
	}
	return v
}
