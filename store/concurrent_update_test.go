package store_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// answer is what one update answered: the version it carries, its version_count, and the value
// the request set (description or state), as answered and as the carried version holds it.
type answer struct {
	version       string
	count         int64
	want, got     string
	stored        string
	storedCount   int64
	storedVersion string
}

// checkAnswers asserts that every answer carries a version of its own whose data is what that
// request set, and that the version counts are distinct and consecutive.
func checkAnswers(t *testing.T, what string, answers []answer) {
	t.Helper()
	seen := map[string]bool{}
	var counts []int64
	wrong := 0
	for _, a := range answers {
		if seen[a.version] {
			t.Errorf("%s: version %s answered twice", what, a.version)
		}
		seen[a.version] = true
		counts = append(counts, a.count)
		if a.got != a.want || a.stored != a.want || a.storedCount != a.count || a.storedVersion != a.version {
			wrong++
			t.Errorf("%s: request set %q, answered %q with version %s (#%d), which holds %q (#%d)",
				what, a.want, a.got, a.version, a.count, a.stored, a.storedCount)
		}
	}
	sort.Slice(counts, func(i, j int) bool { return counts[i] < counts[j] })
	for i := 1; i < len(counts); i++ {
		if counts[i] != counts[i-1]+1 {
			t.Errorf("%s: version counts %v are not distinct and consecutive", what, counts)
			break
		}
	}
	if wrong > 0 {
		t.Errorf("%s: %d of %d answers carry another writer's version", what, wrong, len(answers))
	}
}

// parallel runs fn(i) for i in [0, n) at once and returns the answers.
func parallel(t *testing.T, n int, fn func(i int) (answer, error)) []answer {
	t.Helper()
	out := make([]answer, n)
	errs := make([]error, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			out[i], errs[i] = fn(i)
		}()
	}
	start.Done()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	return out
}

// TestParallelUpdatesAnswerTheirOwnVersion: 20 updates at once without If-Match; each answer
// carries the version that request wrote (issue 14: on Postgres 22–46% carried another's).
func TestParallelUpdatesAnswerTheirOwnVersion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, err := s.EnsureUser(ctx, "owner@example.com")
		if err != nil {
			t.Fatal(err)
		}
		ns, err := s.CreateNamespace(ctx, u, creator, directory.NamespaceInput{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		id := ns.NamespaceID
		if _, err := s.CreateRegistry(ctx, id, creator, directory.RegistryInput{RegistryName: "employees", Tag: directory.TagCustom,
			Schema: map[string]any{"type": "object"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddRecords(ctx, id, "employees", creator, []directory.RecordInput{
			{RecordName: "alice", Details: map[string]any{"n": 1.0}},
			{RecordName: "carol", Details: map[string]any{"n": 2.0}, State: directory.StateDraft},
		}); err != nil {
			t.Fatal(err)
		}
		const n = 20

		checkAnswers(t, "update-namespace", parallel(t, n, func(i int) (answer, error) {
			d := fmt.Sprintf("namespace %d", i)
			got, err := s.UpdateNamespace(ctx, id, "", directory.NamespacePatch{Description: &d})
			if err != nil {
				return answer{}, err
			}
			v, err := s.GetNamespace(ctx, id, directory.VersionSel{VersionID: got.Version})
			return answer{got.Version, got.VersionCount, d, got.Description, v.Description, v.VersionCount, v.Version}, err
		}))

		checkAnswers(t, "update-registry", parallel(t, n, func(i int) (answer, error) {
			d := fmt.Sprintf("registry %d", i)
			got, err := s.UpdateRegistry(ctx, id, "employees", "", directory.RegistryPatch{Description: &d})
			if err != nil {
				return answer{}, err
			}
			v, err := s.GetRegistry(ctx, id, "employees", directory.VersionSel{VersionID: got.Version})
			return answer{got.Version, got.VersionCount, d, got.Description, v.Description, v.VersionCount, v.Version}, err
		}))

		// activate/deactivate: every answer has the state its request asked for. A request that
		// finds the state already set makes no version and answers the one it found.
		toggles := parallel(t, n, func(i int) (answer, error) {
			state, action := directory.StateLive, directory.ActionActivate
			if i%2 == 0 {
				state, action = directory.StateInactive, directory.ActionDeactivate
			}
			got, err := s.UpdateRegistry(ctx, id, "employees", "", directory.RegistryPatch{Action: action})
			if err != nil {
				return answer{}, err
			}
			v, err := s.GetRegistry(ctx, id, "employees", directory.VersionSel{VersionID: got.Version})
			return answer{got.Version, got.VersionCount, state, got.State, v.State, v.VersionCount, v.Version}, err
		})
		for _, a := range toggles {
			if a.got != a.want || a.stored != a.want || a.storedVersion != a.version {
				t.Errorf("activate/deactivate: asked for %q, answered %q with version %s, which holds %q", a.want, a.got, a.version, a.stored)
			}
		}
		if _, err := s.UpdateRegistry(ctx, id, "employees", "", directory.RegistryPatch{Action: directory.ActionActivate}); err != nil {
			t.Fatal(err)
		}

		checkAnswers(t, "update-record", parallel(t, n, func(i int) (answer, error) {
			d := fmt.Sprintf("record %d", i)
			got, err := s.UpdateRecord(ctx, id, "employees", "alice", "", directory.RecordPatch{Description: &d})
			if err != nil {
				return answer{}, err
			}
			v, err := s.GetRecord(ctx, id, "employees", "alice", directory.VersionSel{VersionID: got.Version})
			return answer{got.Version, got.VersionCount, d, got.Description, v.Description, v.VersionCount, v.Version}, err
		}))

		// publish-record among description updates of the same draft: the publish answers live,
		// each update the description it set.
		checkAnswers(t, "publish-record and update-record", parallel(t, n, func(i int) (answer, error) {
			if i == 0 {
				got, err := s.UpdateRecord(ctx, id, "employees", "carol", "", directory.RecordPatch{Action: directory.ActionPublish})
				if err != nil {
					return answer{}, err
				}
				v, err := s.GetRecord(ctx, id, "employees", "carol", directory.VersionSel{VersionID: got.Version})
				// a publish keeps the description it found; compare states here
				return answer{got.Version, got.VersionCount, directory.StateLive, got.State, v.State, v.VersionCount, v.Version}, err
			}
			d := fmt.Sprintf("draft %d", i)
			got, err := s.UpdateRecord(ctx, id, "employees", "carol", "", directory.RecordPatch{Description: &d})
			if err != nil {
				return answer{}, err
			}
			v, err := s.GetRecord(ctx, id, "employees", "carol", directory.VersionSel{VersionID: got.Version})
			return answer{got.Version, got.VersionCount, d, got.Description, v.Description, v.VersionCount, v.Version}, err
		}))
	})
}

// TestCreateRegistryAnswersItsFirstVersion: an update racing a create-registry (by the name
// it is about to take) never shows in the create's answer, which is the first version.
func TestCreateRegistryAnswersItsFirstVersion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, err := s.EnsureUser(ctx, "owner@example.com")
		if err != nil {
			t.Fatal(err)
		}
		ns, err := s.CreateNamespace(ctx, u, creator, directory.NamespaceInput{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		wrong := 0
		for i := range 40 {
			name := fmt.Sprintf("r%d", i)
			var wg sync.WaitGroup
			for u := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					d := fmt.Sprintf("updated %d", u)
					for {
						if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, name, "", directory.RegistryPatch{Description: &d}); err == nil {
							return
						}
					}
				}()
			}
			reg, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: name, Tag: directory.TagCustom,
				Schema: map[string]any{"type": "object"}, Description: "created"})
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if reg.VersionCount != 1 || reg.Description != "created" {
				wrong++
			}
		}
		if wrong > 0 {
			t.Fatalf("%d of 40 create-registry answers showed a later version", wrong)
		}
	})
}
