// Package testdb hands out URLs of fresh, empty, isolated test databases: a new SQLite file per
// test, or a new schema per test on the Postgres server named by SVC_TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable). With CI=true an unreachable Postgres
// fails the test; elsewhere the test is skipped with a message that says so. It does not import
// the store, so the store's own internal tests can use it.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Dialect names, as the store spells them.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// DefaultPostgresURL is used when SVC_TEST_DATABASE_URL is unset.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// URL returns a database URL for a fresh, empty, isolated database of the dialect (not
// migrated). Postgres schemas are dropped when the test ends.
func URL(t testing.TB, dialect string) string {
	t.Helper()
	switch dialect {
	case SQLite:
		return "sqlite://" + filepath.Join(t.TempDir(), "svc.db")
	case Postgres:
		return postgresSchema(t)
	}
	t.Fatalf("unknown dialect %q", dialect)
	return ""
}

// PostgresBaseURL is the server the Postgres tests use.
func PostgresBaseURL() string {
	if u := os.Getenv("SVC_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// RequirePostgres fails (CI=true) or skips the test when Postgres cannot be reached.
func RequirePostgres(t testing.TB) *pgx.Conn {
	t.Helper()
	base := PostgresBaseURL()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err == nil {
		err = conn.Ping(ctx)
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Postgres at %s is required in CI and is not reachable: %v", redact(base), err)
		}
		t.Skipf("SKIPPING Postgres: %s not reachable (%v); set SVC_TEST_DATABASE_URL or start Postgres", redact(base), err)
	}
	return conn
}

// OwnPostgresDatabase returns the URL of a new, empty Postgres database of the test's own on
// the test server, dropped when the test ends. A test that needs VACUUM to remove dead rows
// uses one: VACUUM keeps the rows that a transaction of any session in the same database may
// still see, and the other test packages' sessions share the schemas' database.
func OwnPostgresDatabase(t testing.TB) string {
	t.Helper()
	name := createDropped(t, "database", "CREATE DATABASE %s", "DROP DATABASE %s WITH (FORCE)")
	u := baseURL(t)
	u.Path = "/" + name
	return u.String()
}

func postgresSchema(t testing.TB) string {
	t.Helper()
	schema := createDropped(t, "schema", "CREATE SCHEMA %s", "DROP SCHEMA %s CASCADE")
	u := baseURL(t)
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

// createDropped creates a database object of a random name on the test server (create and
// drop are statements with %s for the name) and drops it when the test ends.
func createDropped(t testing.TB, what, create, drop string) string {
	t.Helper()
	conn := RequirePostgres(t)
	ctx := context.Background()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, fmt.Sprintf(create, name)); err != nil {
		_ = conn.Close(ctx)
		t.Fatalf("create test %s: %v", what, err)
	}
	_ = conn.Close(ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, PostgresBaseURL())
		if err != nil {
			t.Logf("drop test %s %s: %v", what, name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, fmt.Sprintf(drop, name)); err != nil {
			t.Logf("drop test %s %s: %v", what, name, err)
		}
	})
	return name
}

func baseURL(t testing.TB) *url.URL {
	t.Helper()
	u, err := url.Parse(PostgresBaseURL())
	if err != nil {
		t.Fatalf("SVC_TEST_DATABASE_URL: %v", err)
	}
	return u
}

func redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = url.User(u.User.Username())
		return u.String()
	}
	return s
}

// PersistentSchema returns a URL for the Postgres schema name, created when missing and kept
// across runs (benchmarks seed a million rows once and reuse them). It reports whether the
// schema already existed.
func PersistentSchema(t testing.TB, name string) (string, bool) {
	t.Helper()
	conn := RequirePostgres(t)
	ctx := context.Background()
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
			t.Fatal(err)
		}
	}
	u, err := url.Parse(PostgresBaseURL())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name+",public")
	u.RawQuery = q.Encode()
	return u.String(), exists
}

// DropSchema removes a persistent schema (a benchmark whose seed was interrupted).
func DropSchema(t testing.TB, name string) {
	t.Helper()
	conn := RequirePostgres(t)
	ctx := context.Background()
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
		t.Fatal(err)
	}
}
