package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/testdb"
)

// TestSQLiteEngine: the embedded SQLite is a current release with FTS5 and its trigram
// tokenizer (search relies on them).
func TestSQLiteEngine(t *testing.T) {
	s := openForTest(t, DialectSQLite)
	ctx := context.Background()
	var version string
	if err := s.sqlDB.QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(version, ".")
	minor, _ := strconv.Atoi(parts[1])
	if parts[0] != "3" || minor < 50 {
		t.Fatalf("embedded SQLite %s, want 3.50 or later", version)
	}
	for _, q := range []string{
		`CREATE VIRTUAL TABLE fts_check USING fts5(v, tokenize = 'trigram')`,
		`INSERT INTO fts_check (v) VALUES ('Grüße aus Köln'), ('Hello World')`,
	} {
		if _, err := s.sqlDB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for needle, want := range map[string]string{`"WORL"`: "Hello World", `"aus k"`: "Grüße aus Köln"} {
		var got string
		if err := s.sqlDB.QueryRowContext(ctx, `SELECT v FROM fts_check WHERE fts_check MATCH ?`, needle).Scan(&got); err != nil || got != want {
			t.Fatalf("MATCH %s = %q, %v; want %q", needle, got, err, want)
		}
	}
}

// unwritablePath returns a database path the test process cannot create: in a directory
// without write permission, or, for root (whom modes do not stop), under /sys.
func unwritablePath(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	p := filepath.Join(dir, "svc.db")
	f, err := os.Create(p)
	if err != nil {
		return p
	}
	_ = f.Close()
	_ = os.Remove(p)
	if _, err := os.Stat("/sys/kernel"); err != nil {
		t.Skip("running as root and no /sys: no unwritable path to try")
	}
	return "/sys/svc.db"
}

// TestOpenUnwritableSQLitePath: an unwritable path is reported as such, naming the file, and
// not as the driver's bare "unable to open database file" (an older driver said "out of
// memory (14)").
func TestOpenUnwritableSQLitePath(t *testing.T) {
	ctx := context.Background()
	dirAsFile := t.TempDir()
	for name, tc := range map[string]struct{ path, want string }{
		"no permission": {unwritablePath(t), "permission denied"},
		"a directory":   {dirAsFile, "is a directory"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Open(ctx, "sqlite://"+tc.path, nil, Options{})
			if err == nil {
				_ = s.Close()
				t.Fatalf("opened %s", tc.path)
			}
			msg := err.Error()
			if !strings.Contains(msg, "cannot open database file "+tc.path) || !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q; want it to say it cannot open database file %s: %s", msg, tc.path, tc.want)
			}
		})
	}
}

// A store opens on a fresh file in a writable directory and leaves no write-check file behind.
func TestOpenSQLiteLeavesNoProbe(t *testing.T) {
	u := testdb.URL(t, DialectSQLite)
	s, err := Open(context.Background(), u, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	entries, err := os.ReadDir(filepath.Dir(strings.TrimPrefix(u, "sqlite://")))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".svc-write-check") {
			t.Fatalf("write check left %s", e.Name())
		}
	}
}
