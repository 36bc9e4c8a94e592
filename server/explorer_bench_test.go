package server_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// BenchmarkExplorerPages100k: the explorer's record page and registry page (50 records, a
// random page of the registry's 10,000) rendered server-side, in process, one at a time, over
// the 100,000 records of the dialect benchmarks (seeded once, reused) on Postgres, records
// drawn uniformly (the lookup cache rarely hits); reports p50 and p99. The targets (issue
// #31): a record page p50 ≤ 10 ms, a registry page of 50 records ≤ 20 ms. The registry page's
// searches are measured beside them. Opt-in, as every
// benchmark: go test ./server -run '^$' -bench ExplorerPages100k.
func BenchmarkExplorerPages100k(b *testing.B) {
	st, nsID := storetest.SeededNamespace(b, store.DialectPostgres, benchDialectRecords, benchDialectRegistries)
	e := benchServer(b, st)
	ns := "/explore/n/" + url.PathEscape(nsID)
	b.Run("record", func(b *testing.B) {
		r := rand.New(rand.NewPCG(7, 8))
		inProcessLookups(b, e, func() string {
			i := r.IntN(benchDialectRecords)
			return fmt.Sprintf("%s/r%d/%s", ns, i%benchDialectRegistries, url.PathEscape(storetest.PersonName(i)))
		})
	})
	b.Run("registry-50", func(b *testing.B) {
		r := rand.New(rand.NewPCG(9, 10))
		perRegistry := benchDialectRecords / benchDialectRegistries
		inProcessLookups(b, e, func() string {
			return fmt.Sprintf("%s/r%d?page=%d", ns, r.IntN(benchDialectRegistries), 1+r.IntN(perRegistry/50))
		})
	})
	// The registry page's searches (GET /svc/search): a details field matching a tenth of the
	// registry (a city), a selective record-name fragment (5 digits of a name), and a state that
	// every record reads as, on one of its first 10 pages (a broad search walks to its page).
	cities := []string{"London", "Paris", "Oslo", "Austin", "Nairobi"}
	b.Run("registry-search-field", func(b *testing.B) {
		r := rand.New(rand.NewPCG(11, 12))
		inProcessLookups(b, e, func() string {
			return fmt.Sprintf("%s/r%d?field=address.city&value=%s", ns, r.IntN(benchDialectRegistries), cities[r.IntN(len(cities))])
		})
	})
	b.Run("registry-search-name", func(b *testing.B) {
		r := rand.New(rand.NewPCG(13, 14))
		inProcessLookups(b, e, func() string {
			return fmt.Sprintf("%s/r%d?name=%05d", ns, r.IntN(benchDialectRegistries), r.IntN(100_000))
		})
	})
	b.Run("registry-search-state", func(b *testing.B) {
		r := rand.New(rand.NewPCG(15, 16))
		inProcessLookups(b, e, func() string {
			return fmt.Sprintf("%s/r%d?state=live&page=%d", ns, r.IntN(benchDialectRegistries), 1+r.IntN(10))
		})
	})
}
