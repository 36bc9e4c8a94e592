package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// benchCase is one kind of collection read, given a random source.
type benchCase struct {
	name string
	run  func(ctx context.Context, s *store.Store, ns string, r *rand.Rand) (int64, error)
}

func searchCases(n int) []benchCase {
	last := []string{"lovelace", "HOPPER", "Turing", "dijkstra", "LISKOV", "knuth", "allen", "thompson", "perlman", "berners"}
	cities := []string{"zür", "PARIS", "münch", "kraków", "lisb", "oslo", "tōkyō", "aust", "nairo", "lond"}
	return []benchCase{
		{"search one nested path (email, selective)", func(ctx context.Context, s *store.Store, ns string, r *rand.Rand) (int64, error) {
			i := r.IntN(n)
			res, err := s.Search(ctx, ns, store.SearchOptions{Fields: []store.FieldFilter{{Path: "email", Value: fmt.Sprintf(".%d@EXAMPLE", i)}}, Page: 1, Size: 20})
			return res.Total, err
		}},
		{"search one nested path (address.zip)", func(ctx context.Context, s *store.Store, ns string, r *rand.Rand) (int64, error) {
			res, err := s.Search(ctx, ns, store.SearchOptions{Fields: []store.FieldFilter{{Path: "address.zip", Value: fmt.Sprintf("%05d", r.IntN(99999))}}, Page: 1, Size: 20})
			return res.Total, err
		}},
		{"search one nested path (name.last, broad: 10%)", func(ctx context.Context, s *store.Store, ns string, r *rand.Rand) (int64, error) {
			res, err := s.Search(ctx, ns, store.SearchOptions{Fields: []store.FieldFilter{{Path: "name.last", Value: last[r.IntN(len(last))]}}, Page: 1, Size: 20})
			return res.Total, err
		}},
		{"search record_name partial", func(ctx context.Context, s *store.Store, ns string, r *rand.Rand) (int64, error) {
			res, err := s.Search(ctx, ns, store.SearchOptions{RecordName: fmt.Sprintf("SON-%06d", r.IntN(n/10)), Page: 1, Size: 20})
			return res.Total, err
		}},
		{"search two paths (zip + last name, selective)", func(ctx context.Context, s *store.Store, ns string, r *rand.Rand) (int64, error) {
			res, err := s.Search(ctx, ns, store.SearchOptions{Fields: []store.FieldFilter{
				{Path: "address.zip", Value: fmt.Sprintf("%04d", r.IntN(9999))}, {Path: "name.last", Value: last[r.IntN(len(last))]}}, Page: 1, Size: 20})
			return res.Total, err
		}},
		{"search two paths (city + last name, ~1%)", func(ctx context.Context, s *store.Store, ns string, r *rand.Rand) (int64, error) {
			res, err := s.Search(ctx, ns, store.SearchOptions{Fields: []store.FieldFilter{
				{Path: "address.city", Value: cities[r.IntN(len(cities))]}, {Path: "name.last", Value: last[r.IntN(len(last))]}}, Page: 1, Size: 20})
			return res.Total, err
		}},
	}
}

func listCases(n, regs int) []benchCase {
	var out []benchCase
	last := min(5000, n/regs/20) // page 5000 of the default page size (20): the last page of a 100,000-record registry
	for _, sortBy := range []string{"date", "name", "id", "status"} {
		for _, c := range []struct {
			name       string
			page, size int // page 0: a random page among the first 50
		}{
			{"record query page_size 100, sort " + sortBy, 0, 100},
			{fmt.Sprintf("record query page %d (page_size 20, last), sort %s", last, sortBy), last, 20},
			// The deepest read: pages past the middle are read from the other end.
			{fmt.Sprintf("record query page %d (page_size 20, middle), sort %s", last/2, sortBy), last / 2, 20},
		} {
			out = append(out, benchCase{c.name, func(ctx context.Context, s *store.Store, ns string, r *rand.Rand) (int64, error) {
				reg, err := s.GetRegistry(ctx, ns, fmt.Sprintf("r%d", r.IntN(regs)), directory.VersionSel{})
				if err != nil {
					return 0, err
				}
				page := c.page
				if page == 0 {
					page = 1 + r.IntN(50)
				}
				recs, total, err := s.ListRecords(ctx, reg.RegistryID, store.ListOptions{Sort: sortBy, Page: page, Size: c.size})
				if err == nil && len(recs) == 0 {
					err = fmt.Errorf("empty page %d", page)
				}
				return total, err
			}})
		}
	}
	return out
}

func runCases(b *testing.B, s *store.Store, ns string, cases []benchCase, iters int) {
	ctx := context.Background()
	// Rows are printed as they finish (a full run takes minutes).
	fmt.Printf("\n%-58s %9s %9s %9s\n", "query", "p50 ms", "p99 ms", "matches")
	for _, c := range cases {
		r := rand.New(rand.NewPCG(42, 7))
		lat := make([]time.Duration, 0, iters)
		var total int64
		for i := 0; i < iters; i++ {
			t0 := time.Now()
			n, err := c.run(ctx, s, ns, r)
			lat = append(lat, time.Since(t0))
			if err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			total += n
		}
		p50, p99 := storetest.Percentiles(lat)
		fmt.Printf("%-58s %9.2f %9.2f %9d\n", c.name, p50, p99, total/int64(iters))
	}
}

// BenchmarkSearchAndQueryPostgres1M: 1,000,000 records in one namespace over 10 registries.
func BenchmarkSearchAndQueryPostgres1M(b *testing.B) {
	s, ns := storetest.SeededNamespace(b, store.DialectPostgres, 1_000_000, 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runCases(b, s, ns, append(searchCases(1_000_000), listCases(1_000_000, 10)...), 60)
	}
}

// BenchmarkSearchSQLite100k: the embedded default at 100,000 records.
func BenchmarkSearchSQLite100k(b *testing.B) {
	s, ns := storetest.SeededNamespace(b, store.DialectSQLite, 100_000, 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runCases(b, s, ns, append(searchCases(100_000), listCases(100_000, 10)...), 30)
	}
}

// BenchmarkSearchRightAfterImport100k imports 100,000 records into a fresh database through the
// store's add-records path (batches of 1000 over 10 registries, as `svc import` sends them) and
// searches at once, with no manual ANALYZE: what a service sees right after a bulk load. The
// selective searches (zip, email, last name, zip + last name) run interleaved, so that all of
// them are measured over the same seconds after the import. On Postgres it also prints whether
// the planner's statistics had been refreshed when the searches started and ended. Then, for
// reference only, the same searches run again after a manual ANALYZE.
func BenchmarkSearchRightAfterImport100k(b *testing.B) {
	const n, regs, rounds = 100_000, 10, 60
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, dbURL := storetest.OpenURL(b, dialect)
				ctx := context.Background()
				ns := importForBench(b, s, n, regs)
				stats := func() string { return statsState(b, dialect, dbURL) }
				cases := searchCases(n)
				cases = []benchCase{cases[0], cases[1], cases[2], cases[4]}
				measure := func() {
					lat := make([][]time.Duration, len(cases))
					matches := make([]int64, len(cases))
					rs := make([]*rand.Rand, len(cases))
					for c := range cases {
						rs[c] = rand.New(rand.NewPCG(42, uint64(c)))
					}
					start := time.Now()
					for range rounds {
						for c, bc := range cases {
							t0 := time.Now()
							m, err := bc.run(ctx, s, ns, rs[c])
							lat[c] = append(lat[c], time.Since(t0))
							if err != nil {
								b.Fatalf("%s: %v", bc.name, err)
							}
							matches[c] += m
						}
					}
					fmt.Printf("%d searches in %s; statistics at end: %s\n", rounds*len(cases), time.Since(start).Round(time.Millisecond), stats())
					fmt.Printf("%-58s %9s %9s %9s\n", "query", "p50 ms", "p99 ms", "matches")
					for c, bc := range cases {
						p50, p99 := storetest.Percentiles(lat[c])
						fmt.Printf("%-58s %9.2f %9.2f %9d\n", bc.name, p50, p99, matches[c]/rounds)
					}
				}
				fmt.Printf("\n%s, right after importing %d records (no manual ANALYZE); statistics at start: %s\n", dialect, n, stats())
				measure()
				if err := s.Analyze(ctx); err != nil {
					b.Fatal(err)
				}
				fmt.Printf("\n%s, reference: the same searches after a manual ANALYZE; statistics at start: %s\n", dialect, stats())
				measure()
			}
		})
	}
}

// importForBench adds n records (storetest.Details) over regs registries of a new namespace
// through AddRecords, in batches of store.MaxBatch, and returns the namespace id.
func importForBench(b *testing.B, s *store.Store, n, regs int) string {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	_, nsID := storetest.BenchNamespace(b, s)
	for g := range regs {
		if _, err := s.CreateRegistry(ctx, nsID, storetest.BenchCreator, directory.RegistryInput{RegistryName: fmt.Sprintf("r%d", g),
			Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}}); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	batches := make([][]directory.RecordInput, regs)
	for i := range n {
		g := i % regs
		batches[g] = append(batches[g], directory.RecordInput{RecordName: storetest.PersonName(i), Description: "seeded", Details: storetest.Details(r, i)})
		if len(batches[g]) == directory.MaxBatch || i >= n-regs {
			if _, err := s.AddRecords(ctx, nsID, fmt.Sprintf("r%d", g), storetest.BenchCreator, batches[g]); err != nil {
				b.Fatal(err)
			}
			batches[g] = batches[g][:0]
		}
	}
	fmt.Printf("\nimported %d records in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nsID
}

// statsState describes the planner statistics of the records table on Postgres.
func statsState(b *testing.B, dialect, dbURL string) string {
	if dialect != store.DialectPostgres {
		return "(SQLite: not read)"
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var analyzed bool
	var mods int64
	var tuples float64
	if err := conn.QueryRow(ctx, `SELECT s.last_analyze IS NOT NULL, s.n_mod_since_analyze, c.reltuples FROM pg_stat_user_tables s
		JOIN pg_class c ON c.oid = s.relid WHERE s.relid = 'records'::regclass`).Scan(&analyzed, &mods, &tuples); err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("analyzed %v, reltuples %.0f, n_mod_since_analyze %d", analyzed, tuples, mods)
}
