package store

import (
	"context"
	"io/fs"
	"testing"

	"github.com/svc-directory/svc/internal/testdb"
)

// openForTest is storetest.Open for the package's internal tests, which cannot import storetest
// (it imports this package).
func openForTest(t *testing.T, dialect string) *Store {
	t.Helper()
	return openAtForTest(t, testdb.URL(t, dialect))
}

// openAtForTest opens and migrates the store of the database at dbURL.
func openAtForTest(t *testing.T, dbURL string) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, dbURL, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// SetSearchWalk sets the search walk's first chunk and budget until the returned func runs.
func SetSearchWalk(first, budget int) (restore func()) {
	f, b := searchWalkFirst, searchWalkBudget
	searchWalkFirst, searchWalkBudget = first, budget
	return func() { searchWalkFirst, searchWalkBudget = f, b }
}

// PageWindow is pageWindow for the external tests.
func PageWindow(offset, size int, total int64) (int, int, bool) {
	return pageWindow(offset, size, total)
}

// MigrationsAvailable is how many migrations the store's dialect has (SQL files and Go
// migrations; their numbers may have gaps).
func MigrationsAvailable(t *testing.T, s *Store) int {
	t.Helper()
	fsys, err := s.migrationSources()
	if err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	return len(files) + len(s.goMigrations())
}
