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

// Writers that add the same record name at once, each with a name of its own beside it, get
// exactly one winner: every other batch is refused whole (naming the taken record) and
// writes nothing, and the registry counts the winner's records only.
func TestAddRecordsRaceHasOneWinner(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns := acmePeople(t, s)
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{
					{RecordName: fmt.Sprintf("own-%d", i)}, {RecordName: "same"}})
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("writers %d and %d both added %q", winner, i, "same")
			case err == nil:
				winner = i
			case !errors.Is(err, directory.ErrNameTaken) || !strings.Contains(err.Error(), `"same"`):
				t.Fatalf("writer %d: %v, want the name taken, naming it", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no writer won")
		}
		for i := range n {
			_, err := s.GetRecord(ctx, ns.NamespaceID, "people", fmt.Sprintf("own-%d", i), directory.VersionSel{})
			if (i == winner) != (err == nil) {
				t.Fatalf("own-%d (winner %d): %v", i, winner, err)
			}
		}
		g, err := s.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{})
		if err != nil || g.RecordCount != 2 {
			t.Fatalf("registry counts %d records (%v), want the winner's 2", g.RecordCount, err)
		}
	})
}
