package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// lifecycleFixture is a namespace with a registry "people" of records draft, a, b and c.
func lifecycleFixture(t *testing.T, s *store.Store) directory.Namespace {
	t.Helper()
	ctx := context.Background()
	ns := acmePeople(t, s)
	for _, in := range []directory.RecordInput{{RecordName: "draft", State: directory.StateDraft}, {RecordName: "a"}, {RecordName: "b"}, {RecordName: "c"}} {
		in.Details = map[string]any{"n": 1.0}
		if _, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, in); err != nil {
			t.Fatal(err)
		}
	}
	return ns
}

// lifecycleSteps moves and refuses changes of state, checking what each wrote.
type lifecycleSteps struct {
	t    *testing.T
	s    *store.Store
	nsID string
}

// version is what a change answered or found: state, version count, digest and version id.
type version struct {
	state      string
	count      int64
	digest, id string
}

// move applies a change that must make a new version in state want, with a new digest, queued
// for the log.
func (l lifecycleSteps) move(what string, change func() (version, error), before func() version, want string) {
	l.t.Helper()
	was := before()
	got, err := change()
	if err != nil {
		l.t.Fatalf("%s: %v", what, err)
	}
	if got.state != want || got.count != was.count+1 || got.digest == was.digest {
		l.t.Fatalf("%s: state %s, version %d, new digest %v; want %s, %d, a new digest", what, got.state, got.count, got.digest != was.digest, want, was.count+1)
	}
	queued, err := l.s.LogQueuedLeaves(context.Background())
	if err != nil || len(queued) == 0 || queued[len(queued)-1].Version != got.id {
		l.t.Fatalf("%s: the new version is not queued for the log (%v)", what, err)
	}
}

// refuse applies a change that must fail with want, a conflict with a client message, and
// write nothing.
func (l lifecycleSteps) refuse(what string, change func() error, want error) {
	l.t.Helper()
	before := countRows(l.t, l.s)
	queued, _ := l.s.LogQueuedLeaves(context.Background())
	err := change()
	if !errors.Is(err, want) || !errors.Is(err, directory.ErrConflict) {
		l.t.Fatalf("%s: %v, want %v (a conflict)", what, err, want)
	}
	var se *directory.Error
	if !errors.As(err, &se) || se.Message == "" {
		l.t.Fatalf("%s: %v has no message for the client", what, err)
	}
	after, _ := l.s.LogQueuedLeaves(context.Background())
	if c := countRows(l.t, l.s); c != before || len(after) != len(queued) {
		l.t.Fatalf("%s was refused but wrote: %v, then %v", what, before, c)
	}
}

func (l lifecycleSteps) record(name string, a directory.Action) func() (version, error) {
	return func() (version, error) {
		r, err := l.s.UpdateRecord(context.Background(), l.nsID, "people", name, "", directory.RecordPatch{Action: a})
		return version{r.State, r.VersionCount, r.Digest, r.Version}, err
	}
}

func (l lifecycleSteps) recordBefore(name string) func() version {
	return func() version {
		r, err := l.s.GetRecord(context.Background(), l.nsID, "people", name, directory.VersionSel{})
		if err != nil {
			l.t.Fatal(err)
		}
		return version{r.State, r.VersionCount, r.Digest, r.Version}
	}
}

func (l lifecycleSteps) registry(name string, a directory.Action) func() (version, error) {
	return func() (version, error) {
		r, err := l.s.UpdateRegistry(context.Background(), l.nsID, name, "", directory.RegistryPatch{Action: a})
		return version{r.State, r.VersionCount, r.Digest, r.Version}, err
	}
}

func (l lifecycleSteps) registryBefore(name string) func() version {
	return func() version {
		r, err := l.s.GetRegistry(context.Background(), l.nsID, name, directory.VersionSel{})
		if err != nil {
			l.t.Fatal(err)
		}
		return version{r.State, r.VersionCount, r.Digest, r.Version}
	}
}

func (l lifecycleSteps) recordRefused(name string, p directory.RecordPatch) func() error {
	return func() error {
		_, err := l.s.UpdateRecord(context.Background(), l.nsID, "people", name, "", p)
		return err
	}
}

// same applies a change that must leave the entry as it is: the current version, nothing written.
func (l lifecycleSteps) same(what string, change func() (version, error), before func() version) {
	l.t.Helper()
	rows := countRows(l.t, l.s)
	was := before()
	got, err := change()
	if err != nil || got != was || countRows(l.t, l.s) != rows {
		l.t.Fatalf("%s: %+v (was %+v), %v; want the current version and no write", what, got, was, err)
	}
}

// Every record state change: the legal ones make a new version in the new state (with its
// digest, queued for the log); one that finds the state already set answers the current
// version; the illegal ones are conflicts that write nothing; revocation is final.
func TestRecordLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ns := lifecycleFixture(t, s)
		l := lifecycleSteps{t, s, ns.NamespaceID}
		move := func(name string, a directory.Action, want string) {
			t.Helper()
			l.move(string(a)+" "+name, l.record(name, a), l.recordBefore(name), want)
		}
		refuse := func(name string, a directory.Action, want error) {
			t.Helper()
			l.refuse(string(a)+" "+name, l.recordRefused(name, directory.RecordPatch{Action: a}), want)
		}
		same := func(name string, a directory.Action) {
			t.Helper()
			l.same(string(a)+" "+name, l.record(name, a), l.recordBefore(name))
		}

		// A draft is only published.
		refuse("draft", directory.ActionSuspend, directory.ErrConflict)
		refuse("draft", directory.ActionReinstate, directory.ErrConflict)
		refuse("draft", directory.ActionRevoke, directory.ErrConflict)
		move("draft", directory.ActionPublish, directory.StateLive)
		// Live: suspend or revoke; publish is refused, reinstate finds it live.
		refuse("a", directory.ActionPublish, directory.ErrNotDraft)
		same("a", directory.ActionReinstate)
		move("a", directory.ActionSuspend, directory.StateSuspended)
		// Suspended: reinstate or revoke; its details still change.
		same("a", directory.ActionSuspend)
		refuse("a", directory.ActionPublish, directory.ErrNotDraft)
		if rec, err := s.UpdateRecord(context.Background(), ns.NamespaceID, "people", "a", "", directory.RecordPatch{Details: map[string]any{"n": 2.0}}); err != nil || rec.State != directory.StateSuspended {
			t.Fatalf("an update of a suspended record: %v, %v", rec.State, err)
		}
		move("a", directory.ActionReinstate, directory.StateLive)
		move("a", directory.ActionRevoke, directory.StateRevoked)
		move("b", directory.ActionSuspend, directory.StateSuspended)
		move("b", directory.ActionRevoke, directory.StateRevoked)
		// Revoked is final: every other action and every update is refused; revoke finds it revoked.
		same("b", directory.ActionRevoke)
		for _, a := range []directory.Action{directory.ActionPublish, directory.ActionSuspend, directory.ActionReinstate} {
			want := directory.ErrRecordRevoked
			if a == directory.ActionPublish {
				want = directory.ErrNotDraft
			}
			refuse("b", a, want)
		}
		d := "changed"
		l.refuse("update of revoked b", l.recordRefused("b", directory.RecordPatch{Description: &d}), directory.ErrRecordRevoked)
		l.refuse("valid_till of revoked b", l.recordRefused("b", directory.RecordPatch{ValidTill: ptr(time.Now())}), directory.ErrRecordRevoked)
		// Registry actions are not record actions.
		if _, err := s.UpdateRecord(context.Background(), ns.NamespaceID, "people", "c", "", directory.RecordPatch{Action: directory.ActionArchive}); !errors.Is(err, directory.ErrInvalid) {
			t.Fatalf("archive of a record: %v", err)
		}
		// Every version keeps its state: b's history reads revoked, suspended, live (newest first).
		b, err := s.GetRecord(context.Background(), ns.NamespaceID, "people", "b", directory.VersionSel{})
		if err != nil {
			t.Fatal(err)
		}
		ids, err := s.RecordVersions(context.Background(), b.RecordID, true)
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, id := range ids {
			v, err := s.GetRecord(context.Background(), ns.NamespaceID, "people", "b", directory.VersionSel{VersionID: id})
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, v.State)
		}
		if !slices.Equal(states, []string{directory.StateRevoked, directory.StateSuspended, directory.StateLive}) {
			t.Fatalf("b's versions hold %v", states)
		}
	})
}

func countRows(t *testing.T, s *store.Store) store.Counts {
	t.Helper()
	c, err := s.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every registry state change, legal and illegal, and what each state lets its records do.
func TestRegistryLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns := lifecycleFixture(t, s)
		l := lifecycleSteps{t, s, ns.NamespaceID}
		move := func(a directory.Action, want string) {
			t.Helper()
			l.move(string(a)+" people", l.registry("people", a), l.registryBefore("people"), want)
		}
		refuse := func(a directory.Action, want error) {
			t.Helper()
			l.refuse(string(a)+" people", func() error {
				_, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Action: a})
				return err
			}, want)
		}
		same := func(a directory.Action) {
			t.Helper()
			l.same(string(a)+" people", l.registry("people", a), l.registryBefore("people"))
		}
		// recordWrites checks that each kind of record write gets want (nil: it is allowed).
		recordWrites := func(state string, want error) {
			t.Helper()
			d := "from " + state
			writes := map[string]func() error{
				"add-record": func() error {
					_, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, directory.RecordInput{RecordName: "new-in-" + state, Details: map[string]any{}})
					return err
				},
				"update-record":  l.recordRefused("c", directory.RecordPatch{Description: &d}),
				"suspend-record": l.recordRefused("c", directory.RecordPatch{Action: directory.ActionSuspend}),
			}
			for _, what := range []string{"add-record", "update-record", "suspend-record"} {
				if want == nil {
					if err := writes[what](); err != nil {
						t.Fatalf("%s in a %s registry: %v", what, state, err)
					}
					continue
				}
				l.refuse(what+" in a "+state+" registry", writes[what], want)
			}
			if want == nil { // undo the suspension
				if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "c", "", directory.RecordPatch{Action: directory.ActionReinstate}); err != nil {
					t.Fatal(err)
				}
			}
		}

		// Live: restore and activate find it live; records are written.
		same(directory.ActionActivate)
		same(directory.ActionRestore)
		recordWrites(directory.StateLive, nil)
		// Inactive: records are refused; archive applies, restore does not.
		move(directory.ActionDeactivate, directory.StateInactive)
		same(directory.ActionDeactivate)
		move(directory.ActionActivate, directory.StateLive)
		move(directory.ActionDeactivate, directory.StateInactive)
		refuse(directory.ActionRestore, directory.ErrConflict)
		recordWrites(directory.StateInactive, directory.ErrRegistryInactive)
		move(directory.ActionArchive, directory.StateArchived)
		// Archived: read-only, for records and for the registry's own fields; only restore and
		// revoke apply.
		same(directory.ActionArchive)
		refuse(directory.ActionActivate, directory.ErrConflict)
		refuse(directory.ActionDeactivate, directory.ErrConflict)
		recordWrites(directory.StateArchived, directory.ErrRegistryArchived)
		d := "changed"
		l.refuse("update of an archived registry", func() error {
			_, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Description: &d})
			return err
		}, directory.ErrRegistryArchived)
		move(directory.ActionRestore, directory.StateLive)
		recordWrites(directory.StateLive+" again", nil)
		move(directory.ActionArchive, directory.StateArchived)
		move(directory.ActionRevoke, directory.StateRevoked)
		// Revoked: final.
		same(directory.ActionRevoke)
		for _, a := range []directory.Action{directory.ActionActivate, directory.ActionDeactivate, directory.ActionArchive, directory.ActionRestore} {
			refuse(a, directory.ErrRegistryRevoked)
		}
		recordWrites(directory.StateRevoked, directory.ErrRegistryRevoked)
		l.refuse("update of a revoked registry", func() error {
			_, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Description: &d})
			return err
		}, directory.ErrRegistryRevoked)
		if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Action: directory.ActionSuspend}); !errors.Is(err, directory.ErrInvalid) {
			t.Fatalf("suspend of a registry: %v", err)
		}
		// A live registry can also be revoked directly, and an inactive one.
		for _, from := range []directory.Action{"", directory.ActionDeactivate} {
			name := "other" + string(from)
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: name, Tag: directory.TagCustom,
				Schema: map[string]any{"type": "object"}}); err != nil {
				t.Fatal(err)
			}
			if from != "" {
				if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, name, "", directory.RegistryPatch{Action: from}); err != nil {
					t.Fatal(err)
				}
			}
			l.move("revoke "+name, l.registry(name, directory.ActionRevoke), l.registryBefore(name), directory.StateRevoked)
		}
	})
}
