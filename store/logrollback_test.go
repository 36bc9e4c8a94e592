package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/translog/logstore"
)

// The rollback marker: recorded once (the first finding is kept), read back with the log's
// state and in every integration's batch, refused when it says nothing, and cleared by a log
// restart.
func TestLogRollbackMarker(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openForTest(t, d)
			ns := newPeople(t, s, "Acme")
			addNamed(t, s, ctx, ns.NamespaceID, "a", 3, "")
			integrateAll(t, s, 100)
			if st, err := s.LogState(ctx); err != nil || st.RolledBack.Marked() {
				t.Fatalf("a new log's marker: %+v %v", st.RolledBack, err)
			}
			for _, bad := range []logstore.Rollback{{}, {Behind: 5, Size: 5}, {Behind: 5, Size: 7}} {
				if _, err := s.MarkLogRolledBack(ctx, bad); !errors.Is(err, directory.ErrInvalid) {
					t.Fatalf("marker %+v: %v, want directory.ErrInvalid", bad, err)
				}
			}
			at := time.UnixMilli(1_790_000_000_123).UTC()
			first := logstore.Rollback{Behind: 9, Size: 5, Found: "cosigned by the witness w.example", At: at}
			if ok, err := s.MarkLogRolledBack(ctx, first); err != nil || !ok {
				t.Fatalf("marking: %v %v", ok, err)
			}
			if ok, err := s.MarkLogRolledBack(ctx, logstore.Rollback{Behind: 12, Size: 5, Found: "another", At: at.Add(time.Hour)}); err != nil || ok {
				t.Fatalf("a second marker: recorded %v, %v; the first is kept", ok, err)
			}
			st, err := s.LogState(ctx)
			if err != nil || st.RolledBack != first {
				t.Fatalf("the marker read back: %+v %v, want %+v", st.RolledBack, err, first)
			}
			addNamed(t, s, ctx, ns.NamespaceID, "b", 1, "")
			var seen logstore.Rollback
			refused := errors.New("refused")
			if _, err := s.IntegrateLog(ctx, 100, func(b *logstore.Batch) (logstore.Update, error) {
				seen = b.State.RolledBack
				return logstore.Update{}, refused
			}); !errors.Is(err, refused) || seen != first {
				t.Fatalf("the batch's marker: %+v (%v), want %+v", seen, err, first)
			}
			if _, err := s.RestartLog(ctx, "new.example/log"); err != nil {
				t.Fatal(err)
			}
			if st, err := s.LogState(ctx); err != nil || st.RolledBack.Marked() {
				t.Fatalf("the marker after a log restart: %+v %v", st.RolledBack, err)
			}
			if ok, err := s.MarkLogRolledBack(ctx, first); err != nil || !ok {
				t.Fatalf("marking the new log: %v %v", ok, err)
			}
		})
	}
}
