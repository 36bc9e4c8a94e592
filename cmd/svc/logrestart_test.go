package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

// svc log restart starts a new log under a new origin: the old origin and a missing --yes are
// refused; afterwards the old key's integrator refuses the database's log, the new key's logs
// every public version again, and their inclusion proofs verify with the new verifier key only.
func TestLogRestart(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s, dbURL := storetest.OpenURL(t, d)
			u, err := s.EnsureUser(ctx, "owner@example.com")
			if err != nil {
				t.Fatal(err)
			}
			ns, err := s.CreateNamespace(ctx, u, "did:web:example.com", directory.NamespaceInput{Name: "Acme"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:example.com", directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom,
				Schema: map[string]any{"type": "object"}}); err != nil {
				t.Fatal(err)
			}
			in := make([]directory.RecordInput, 6)
			for i := range in {
				in[i] = directory.RecordInput{RecordName: fmt.Sprintf("p%d", i), Details: map[string]any{"i": float64(i)}}
			}
			added, err := s.AddRecords(ctx, ns.NamespaceID, "people", "did:web:example.com", in)
			if err != nil {
				t.Fatal(err)
			}
			keyOf := func(origin string) (translog.Key, string) {
				skey, vkey, err := translog.GenerateKey(origin)
				if err != nil {
					t.Fatal(err)
				}
				k, err := translog.ParseKey(skey)
				if err != nil {
					t.Fatal(err)
				}
				return k, vkey
			}
			drain := func(k translog.Key) error {
				g := translog.NewIntegrator(s, k, nil, nil)
				for {
					n, err := g.IntegrateOnce(ctx)
					if err != nil || n == 0 {
						return err
					}
				}
			}
			oldKey, oldVKey := keyOf("old.example/svc/log")
			if err := drain(oldKey); err != nil {
				t.Fatal(err)
			}

			if code, _, errs := svc(t, "log", "restart", "--database-url", dbURL, "--origin", "old.example/svc/log", "--yes"); code != 1 || !strings.Contains(errs, "new origin") {
				t.Fatalf("restart under the log's own origin: exit %d, %q", code, errs)
			}
			if code, _, _ := svc(t, "log", "restart", "--database-url", dbURL, "--origin", "new.example/svc/log"); code != 2 {
				t.Fatalf("restart without --yes: exit %d, want 2", code)
			}
			// The log was found rolled back by a failover: the restart removes the marker.
			if _, err := s.MarkLogRolledBack(ctx, logstore.Rollback{Behind: 20, Size: 8, Found: "signed or found stored by this instance", At: time.Now()}); err != nil {
				t.Fatal(err)
			}
			code, stdout, errs := svc(t, "log", "restart", "--database-url", dbURL, "--origin", "new.example/svc/log", "--yes")
			if code != 0 || !strings.Contains(stdout, "with 8 versions queued") || !strings.Contains(stdout, "behind a checkpoint of 20") {
				t.Fatalf("restart: exit %d, %q %q", code, stdout, errs)
			}
			if st, err := s.LogState(ctx); err != nil || st.RolledBack.Marked() {
				t.Fatalf("the marker after svc log restart: %+v %v", st.RolledBack, err)
			}

			if err := drain(oldKey); err == nil || !strings.Contains(err.Error(), "origin") {
				t.Fatalf("the old key's integrator on the new log: %v", err)
			}
			newKey, newVKey := keyOf("new.example/svc/log")
			if err := drain(newKey); err != nil {
				t.Fatal(err)
			}
			r := translog.NewReader(s)
			for _, a := range added {
				inc, err := r.Inclusion(ctx, a.Version, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, want, err := s.LogEntry(ctx, a.Version)
				if err != nil {
					t.Fatal(err)
				}
				p := leaf.InclusionProof{LogIndex: inc.Index, TreeSize: inc.TreeSize, Leaf: string(inc.Leaf), Checkpoint: inc.Checkpoint}
				for _, h := range inc.Hashes {
					p.Hashes = append(p.Hashes, h[:])
				}
				c, err := leaf.VerifyInclusion(p, newVKey, want)
				if err != nil || c.Size != 8 {
					t.Fatalf("%s in the new log: %+v, %v", a.RecordName, c, err)
				}
				if _, err := leaf.VerifyInclusion(p, oldVKey, want); err == nil {
					t.Fatalf("%s: the new log's proof verified with the old key", a.RecordName)
				}
			}
		})
	}
}
