package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
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
