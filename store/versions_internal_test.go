package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
)

// Writes answer with the entry they wrote: after a create or an update, no version is read back
// from the database (the answer is built from what was written, in its transaction).
func TestWritesAnswerWithoutReadingBack(t *testing.T) {
	for _, dialect := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(dialect, func(t *testing.T) {
			s := openForTest(t, dialect)
			ctx := context.Background()
			u, err := s.EnsureUser(ctx, "w@example.com")
			if err != nil {
				t.Fatal(err)
			}
			// Every statement run through GORM is recorded, and the raw database/sql handle
			// (the record reads) is replaced by a closed one: any read back fails.
			var mu sync.Mutex
			var stmts []string
			record := func(db *gorm.DB) {
				mu.Lock()
				stmts = append(stmts, db.Statement.SQL.String())
				mu.Unlock()
			}
			if err := s.db.Callback().Query().After("gorm:query").Register("test:record", record); err != nil {
				t.Fatal(err)
			}
			if err := s.db.Callback().Row().After("gorm:row").Register("test:record", record); err != nil {
				t.Fatal(err)
			}
			closed, err := sql.Open("pgx", "postgres://127.0.0.1:1/none")
			if err != nil {
				t.Fatal(err)
			}
			_ = closed.Close()
			live := s.sqlDB
			s.sqlDB = closed
			t.Cleanup(func() { s.sqlDB = live })

			ns, err := s.CreateNamespace(ctx, u, "did:web:x", directory.NamespaceInput{Name: "n"})
			if err != nil {
				t.Fatal(err)
			}
			desc := "changed"
			if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:x", directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom,
				Schema: map[string]any{"type": "object"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, "r", "", directory.RegistryPatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", "did:web:x", []directory.RecordInput{{RecordName: "a"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "a", "", directory.RecordPatch{Description: &desc}); err != nil {
				t.Errorf("update record: %v", err)
			}
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "a", "", directory.RecordPatch{Description: &desc}); err != nil {
				t.Errorf("update record that changes nothing: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, q := range stmts {
				if strings.Contains(q, "_versions") {
					t.Errorf("a write read a version back: %s", q)
				}
			}
		})
	}
}
