// Package storetest opens real, migrated, isolated stores for tests on both dialects (see
// internal/testdb for where the databases come from).
package storetest

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/store"
)

// Dialects lists the dialects every store test runs on.
var Dialects = []string{store.DialectSQLite, store.DialectPostgres}

// Each runs fn once per dialect as a subtest, with its own fresh store.
func Each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	for _, d := range Dialects {
		t.Run(d, func(t *testing.T) {
			fn(t, Open(t, d))
		})
	}
}

// Open returns a migrated store of the dialect, isolated from every other test, closed (and
// its database dropped) when the test ends.
func Open(t testing.TB, dialect string) *store.Store {
	t.Helper()
	s, _ := OpenURL(t, dialect)
	return s
}

// OpenURL is Open that also returns the database URL the store uses (for tests that start a
// second store or the binary on the same database).
func OpenURL(t testing.TB, dialect string) (*store.Store, string) {
	t.Helper()
	return OpenWith(t, dialect, store.Options{})
}

// OpenWith is OpenURL with options (a clock, the authentication cache).
func OpenWith(t testing.TB, dialect string, opts store.Options) (*store.Store, string) {
	t.Helper()
	dbURL := testdb.URL(t, dialect)
	ctx := context.Background()
	if opts.MaxOpenConns == 0 {
		opts.MaxOpenConns = 10
	}
	s, err := store.Open(ctx, dbURL, slog.New(slog.DiscardHandler), opts)
	if err != nil {
		t.Fatalf("open %s store: %v", dialect, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s store: %v", dialect, err)
	}
	return s, dbURL
}

// URL returns the URL of a fresh, empty (unmigrated) database of the dialect.
func URL(t testing.TB, dialect string) string { return testdb.URL(t, dialect) }

// Seeded opens (migrating) a store on a persistent Postgres schema and calls seed when the
// schema is new or marker reports it incomplete; benchmarks use it to build large data once.
func Seeded(b testing.TB, schema string, complete func(*store.Store) bool, seed func(*store.Store)) *store.Store {
	b.Helper()
	ctx := context.Background()
	open := func() *store.Store {
		u, _ := testdb.PersistentSchema(b, schema)
		s, err := store.Open(ctx, u, slog.New(slog.DiscardHandler), store.Options{AuthCacheTTL: time.Second})
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
		testdb.DropSchema(b, schema)
		s = open()
		seed(s)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// Exec runs a statement on the database of dbURL (a URL OpenURL gave) past the store, for
// tests that must change what the store would never change (a logged version's row, say).
func Exec(t testing.TB, dbURL, query string, args ...any) {
	t.Helper()
	driver, dsn := "pgx", dbURL
	if path, ok := strings.CutPrefix(dbURL, "sqlite://"); ok {
		driver, dsn = "sqlite", "file:"+path
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// StatementCounter counts the statements and round trips a store sends Postgres (see
// OpenCounting).
type StatementCounter = testdb.StatementCounter

// OpenCounting opens a migrated Postgres store (with opts) whose connections go through a
// loopback proxy that counts the statements and round trips it sends, and reports their text;
// the store's code runs as in production. It also returns the database URL (unproxied).
func OpenCounting(t testing.TB, opts store.Options) (*store.Store, *StatementCounter, string) {
	t.Helper()
	dbURL := testdb.URL(t, store.DialectPostgres)
	proxied, counter := testdb.CountingPostgres(t, dbURL)
	ctx := context.Background()
	if opts.MaxOpenConns == 0 {
		opts.MaxOpenConns = 10
	}
	s, err := store.Open(ctx, proxied, slog.New(slog.DiscardHandler), opts)
	if err != nil {
		t.Fatalf("open counted store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate counted store: %v", err)
	}
	return s, counter, dbURL
}
