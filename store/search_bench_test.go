package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
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
				reg, err := s.GetRegistry(ctx, ns, fmt.Sprintf("r%d", r.IntN(regs)), store.VersionSel{})
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
