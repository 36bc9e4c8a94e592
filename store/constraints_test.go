package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/svc-directory/svc/directory"
)

// These tests exercise the schema's own guarantees with raw rows, so that they hold whatever
// code writes: one namespace per verified domain, unique names, no NUL in Postgres text.
// (storetest cannot be imported here: it imports this package.)

func openBoth(t *testing.T) map[string]*Store {
	t.Helper()
	return map[string]*Store{DialectSQLite: openForTest(t, DialectSQLite), DialectPostgres: openForTest(t, DialectPostgres)}
}

func insertUser(t *testing.T, s *Store) string {
	t.Helper()
	u, err := s.EnsureUser(context.Background(), fmt.Sprintf("u%s@example.com", directory.NewProfileID()))
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func insertNamespace(s *Store, owner, id string) error {
	now := s.nowMS()
	return translate(s.db.Exec(`INSERT INTO namespaces (namespace_id, owner_id, created_by, genesis, created_at,
		version, version_count, name, description, meta, ttl, digest, proof_type, updated_at)
		VALUES (?, ?, 'did:web:x:y', '2026-01-01T00:00:00.000Z', ?, ?, 1, 'n', '', '{}', 600, '0x', 'SvcNamespaceProof2026', ?)`,
		id, owner, now, directory.NewVersion(), now).Error, "insert namespace")
}

func TestOneNamespacePerDomainUnderConcurrency(t *testing.T) {
	for d, s := range openBoth(t) {
		t.Run(d, func(t *testing.T) {
			owner := insertUser(t, s)
			const n = 16
			ids := make([]string, n)
			for i := range ids {
				ids[i] = directory.NewNamespaceID()
				if err := insertNamespace(s, owner, ids[i]); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = translate(s.db.Exec(`UPDATE namespaces SET domain = ? WHERE namespace_id = ?`, "race.example", ids[i]).Error, "claim domain")
				}()
			}
			wg.Wait()
			wins := 0
			for _, err := range errs {
				switch {
				case err == nil:
					wins++
				case errors.Is(err, directory.ErrConflict):
				default:
					t.Fatalf("unexpected error: %v", err)
				}
			}
			if wins != 1 {
				t.Fatalf("%d namespaces hold the domain, want exactly 1", wins)
			}
		})
	}
}

func TestUniqueNamesAndNUL(t *testing.T) {
	for d, s := range openBoth(t) {
		t.Run(d, func(t *testing.T) {
			owner := insertUser(t, s)
			ns := directory.NewNamespaceID()
			if err := insertNamespace(s, owner, ns); err != nil {
				t.Fatal(err)
			}
			if err := insertNamespace(s, owner, ns); !errors.Is(err, directory.ErrConflict) {
				t.Fatalf("duplicate namespace id = %v, want ErrConflict", err)
			}
			reg := func(name string) error {
				now := s.nowMS()
				return translate(s.db.Exec(`INSERT INTO registries (registry_id, namespace_id, registry_name, tag, schema,
					created_by, genesis, created_at, version, version_count, description, meta, ttl, state, query_allowed,
					digest, proof_type, updated_at) VALUES (?, ?, ?, 'custom', '{}', 'd', 'g', ?, ?, 1, '', '{}', 600, 'live', ?, '0x', 'p', ?)`,
					directory.NewUUID(), ns, name, now, directory.NewVersion(), true, now).Error, "insert registry")
			}
			if err := reg("employees"); err != nil {
				t.Fatal(err)
			}
			if err := reg("employees"); !errors.Is(err, directory.ErrConflict) {
				t.Fatalf("duplicate registry name = %v, want ErrConflict", err)
			}
			if err := reg("bad state"); err != nil {
				t.Fatal(err)
			}
			if err := translate(s.db.Exec(`UPDATE registries SET state = 'bogus' WHERE registry_name = 'employees'`).Error, "state"); !errors.Is(err, directory.ErrInvalid) {
				t.Fatalf("state outside the CHECK = %v, want ErrInvalid", err)
			}
			if d == DialectPostgres {
				err := translate(s.db.Exec(`UPDATE namespaces SET meta = ? WHERE namespace_id = ?`, `{"a":"x\u0000y"}`, ns).Error, "nul")
				if !errors.Is(err, directory.ErrInvalid) {
					t.Fatalf("NUL in JSONB = %v, want ErrInvalid", err)
				}
			}
		})
	}
}
