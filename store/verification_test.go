package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// Concurrent log writes are grouped into shared statements; every caller learns its own
// outcome, and a bad row fails only its caller.
func TestConcurrentVerificationLogs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, _ := s.EnsureUser(ctx, "v@example.com")
		const n = 60
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				user := u.ID
				if i == 17 {
					user = "no-such-user" // violates the foreign key
				}
				_, errs[i] = s.AddVerificationLog(ctx, store.VerificationLog{LookupType: "record", VerifiedID: "rec-1",
					UserID: user, VerifiedBy: "did:web:x:v", Result: store.ResultSuccess, Request: map[string]any{"i": float64(i)}})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if (err != nil) != (i == 17) {
				t.Fatalf("attempt %d: %v", i, err)
			}
		}
		logs, total, err := s.VerificationLogs(ctx, "record", "rec-1", "", 1, 100)
		if err != nil || total != n-1 || len(logs) != n-1 {
			t.Fatalf("%d logs (%d listed), %v; want %d", total, len(logs), err, n-1)
		}
		seen := map[string]bool{}
		for _, l := range logs {
			seen[fmt.Sprint(l.Request["i"])] = true
		}
		if len(seen) != n-1 || seen["17"] {
			t.Fatalf("logged attempts: %v", seen)
		}
	})
}

// A log row beyond the bounds is refused (ErrInvalid) and nothing is written: what a caller
// submits cannot drive the size of the log.
func TestVerificationLogRowsAreBounded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, _ := s.EnsureUser(ctx, "v@example.com")
		ok := store.VerificationLog{LookupType: "record", VerifiedID: "rec-1", UserID: u.ID, VerifiedBy: "did:web:x:v",
			Result: store.ResultFailed, Reason: strings.Repeat("r", store.MaxLogReason),
			Request: map[string]any{"data": map[string]any{"record_id": "rec-1"}}}
		if _, err := s.AddVerificationLog(ctx, ok); err != nil {
			t.Fatalf("a row at the bounds: %v", err)
		}
		big := strings.Repeat("x", 1<<20)
		for name, mutate := range map[string]func(*store.VerificationLog){
			"verified_id": func(l *store.VerificationLog) { l.VerifiedID = big },
			"reason":      func(l *store.VerificationLog) { l.Reason = big },
			"request":     func(l *store.VerificationLog) { l.Request = map[string]any{"message": big} },
		} {
			l := ok
			mutate(&l)
			if _, err := s.AddVerificationLog(ctx, l); !errors.Is(err, directory.ErrInvalid) {
				t.Fatalf("%s of 1 MiB: %v, want ErrInvalid", name, err)
			}
		}
		if _, total, err := s.VerificationLogs(ctx, "record", "rec-1", "", 1, 10); err != nil || total != 1 {
			t.Fatalf("%d rows, %v; want only the one within the bounds", total, err)
		}
	})
}
