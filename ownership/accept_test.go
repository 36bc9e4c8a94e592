package ownership_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/ownership"
	"github.com/svc-directory/svc/store"
)

// acceptSetup makes an attester namespace self-verified for attester.test, a requester namespace
// with a pending delegated request for carol.test (allowed), and returns them with the
// attester's owner.
func acceptSetup(t *testing.T, s *store.Store, v *ownership.Service) (attester, requester string, owner store.User, requestID string) {
	t.Helper()
	ctx := context.Background()
	owner, _ = s.EnsureUser(ctx, "alice@example.com")
	carol, _ := s.EnsureUser(ctx, "carol@example.com")
	a, err := s.CreateNamespace(ctx, owner, "did:web:x:alice", directory.NamespaceInput{Name: "Attester"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.CreateNamespace(ctx, carol, "did:web:x:carol", directory.NamespaceInput{Name: "Carol"})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"attester.test", "carol.test"} {
		if err := s.AllowDomain(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.MarkSelfVerified(ctx, a.NamespaceID, "attester.test", store.MethodSelfDNS, store.Principal{}); err != nil {
		t.Fatal(err)
	}
	g, err := v.Generate(ctx, ownership.Generate{NamespaceID: c.NamespaceID, Domain: "carol.test", Method: store.MethodDelegated,
		Target: a.NamespaceID, By: carol})
	if err != nil || g.Request == nil || !g.Created {
		t.Fatalf("request: %+v %v", g, err)
	}
	return a.NamespaceID, c.NamespaceID, owner, g.Request.RequestID
}

// TestAcceptWaitsForConcurrentChanges (Postgres): an accept that runs while another
// transaction disallows the domain, or takes the attester's verification away, waits for it and
// then refuses; it does not attest on what it read before that transaction committed.
func TestAcceptWaitsForConcurrentChanges(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stmts []string // the concurrent transaction ($1: the attester's namespace id)
		want  error
	}{
		{"disallow", []string{`DELETE FROM domain_allowlist WHERE pattern = 'carol.test'`}, ownership.ErrNotDelegable},
		{"attester loses its verification", []string{`DELETE FROM domain_sources WHERE namespace_id = $1`,
			`UPDATE namespaces SET domain = NULL WHERE namespace_id = $1`}, ownership.ErrTargetNotSelfVerified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, dbURL := storetest.OpenURL(t, store.DialectPostgres)
			v := ownership.New(ownership.Config{Store: s})
			attester, requester, owner, id := acceptSetup(t, s, v)
			ctx := context.Background()
			db, err := sql.Open("pgx", dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			other, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = other.Rollback() }()
			for _, q := range tc.stmts {
				args := []any{}
				if strings.Contains(q, "$1") {
					args = append(args, attester)
				}
				if _, err := other.ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() {
				_, err := v.Accept(ctx, id, owner, "did:web:x:alice")
				done <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("accept did not wait for the concurrent transaction: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
			if err := other.Commit(); err != nil {
				t.Fatal(err)
			}
			err = <-done
			var r *ownership.Refusal
			if !errors.As(err, &r) || r.Kind != ownership.Conflict || !errors.Is(err, tc.want) {
				t.Fatalf("accept after the concurrent change: %v, want a conflict refusal matching %v", err, tc.want)
			}
			req, err := s.GetRequest(ctx, id)
			if err != nil || req.Status != store.RequestPending {
				t.Fatalf("request %+v %v, want it still pending", req, err)
			}
			if got, _ := s.GetNamespace(ctx, requester, directory.VersionSel{}); got.Domain != "" {
				t.Fatalf("the requester holds %q", got.Domain)
			}
		})
	}
}
