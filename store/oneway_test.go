package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// directSQLFiles are the files that may reach the database past GORM (database/sql's own
// methods, or pgx), each for a reason GORM cannot serve. Every other file's SQL goes through
// GORM (replicaroute.go: rawRows, rawRow, primaryRows, primaryRow).
var directSQLFiles = map[string]string{
	"store.go":            "opening, pinging and closing the pool",
	"dialect.go":          "the dialect floor",
	"dialect_postgres.go": "Postgres's consistency token and constraint repairs at migration",
	"dialect_sqlite.go":   "SQLite's schema repairs at migration",
	"migrate.go":          "goose runs the migrations on a *sql.DB",
	"searchtext.go":       "a Go migration, which goose runs on a *sql.Tx",
	"replicas.go":         "the replicas' probes",
	"replicaroute.go":     "the replicas' replay positions, and withPgxConn (the connection of the pgx fast paths)",
	"wake.go":             "LISTEN for the workers' wake-ups on a connection of its own",
	"replicapool.go":      "the failover pool under the replicas' GORM handle",
	"lookupbatch.go":      "the record lookup's fast paths (grouped pgx reads, a prepared SQLite statement): BenchmarkGetRecord*, server's BenchmarkLookupRecord*",
	"logentry.go":         "the inclusion proof's log-entry read, grouped through pgx like the lookups (no benchmark of its own yet)",
	"lookuplogged.go":     "a TRQP answer's record read with its log index, the lookup's fast paths joined to the log position: server's BenchmarkTRQPAuthorizationVsLookup100k",
}

// TestOneWayIntoTheDatabase holds the rule that the store's SQL goes through GORM, apart from
// the files named in directSQLFiles.
func TestOneWayIntoTheDatabase(t *testing.T) {
	direct := map[string]bool{"QueryContext": true, "QueryRowContext": true, "ExecContext": true, "PrepareContext": true,
		"BeginTx": true, "Conn": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var bad []string
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := directSQLFiles[name]; ok {
			continue
		}
		for _, imp := range f.Imports {
			// pgconn alone is the error type that errors.go classifies.
			if p := strings.Trim(imp.Path.Value, `"`); p == "github.com/jackc/pgx/v5" || p == "github.com/jackc/pgx/v5/stdlib" {
				bad = append(bad, name+": imports "+imp.Path.Value)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && direct[sel.Sel.Name] {
					bad = append(bad, fset.Position(call.Pos()).String()+": ."+sel.Sel.Name+" past GORM")
				}
			}
			return true
		})
	}
	if checked < 30 {
		t.Fatalf("checked %d files: the test is not reading the store", checked)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}
