package directory

import (
	"errors"
	"strings"
	"testing"
)

// Delete and restore in the lifecycle table: which states each applies to, and the refusals of
// deleting what is deleted and restoring what is not.
func TestDeleteTransitions(t *testing.T) {
	for _, c := range []struct {
		kind, from string
		action     Action
		want       string // "" refused (a conflict)
	}{
		{"record", StateLive, ActionDelete, StateDeleted},
		{"record", StateSuspended, ActionDelete, StateDeleted},
		{"record", StateDraft, ActionDelete, ""},
		{"record", StateRevoked, ActionDelete, ""},
		{"record", StateDeleted, ActionDelete, ""},
		{"record", StateDeleted, ActionUndelete, StateLive},
		{"record", StateLive, ActionUndelete, ""},
		{"record", StateDeleted, ActionSuspend, ""},
		{"record", StateDeleted, ActionRevoke, ""},
		{"registry", StateLive, ActionDelete, StateDeleted},
		{"registry", StateInactive, ActionDelete, StateDeleted},
		{"registry", StateArchived, ActionDelete, StateDeleted},
		{"registry", StateRevoked, ActionDelete, ""},
		{"registry", StateDeleted, ActionDelete, ""},
		{"registry", StateDeleted, ActionUndelete, StateLive},
		{"registry", StateArchived, ActionUndelete, ""},
		{"registry", StateDeleted, ActionActivate, ""},
		{"namespace", StateLive, ActionDelete, StateDeleted},
		{"namespace", StateDeleted, ActionDelete, ""},
		{"namespace", StateDeleted, ActionUndelete, StateLive},
		{"namespace", StateLive, ActionUndelete, ""},
	} {
		next := map[string]func(string, Action) (string, error){"record": NextRecordState, "registry": NextRegistryState, "namespace": NextNamespaceState}[c.kind]
		got, err := next(c.from, c.action)
		switch {
		case c.want == "" && (err == nil || !errors.Is(err, ErrConflict)):
			t.Errorf("%s %s --%s--> %q, %v; want a conflict", c.kind, c.from, c.action, got, err)
		case c.want != "" && (err != nil || got != c.want):
			t.Errorf("%s %s --%s--> %q, %v; want %s", c.kind, c.from, c.action, got, err, c.want)
		}
	}
	if _, err := NextRecordState(StateDeleted, ActionDelete); !strings.Contains(err.Error(), "already deleted") {
		t.Errorf("deleting a deleted record: %v", err)
	}
	if _, err := NextRegistryState(StateLive, ActionUndelete); !strings.Contains(err.Error(), "only a deleted registry can be restored") {
		t.Errorf("restoring a live registry: %v", err)
	}
}

func TestDeletedLevelAndRestoreUnder(t *testing.T) {
	for _, c := range []struct {
		ns, reg, rec string
		want         Missing
	}{
		{StateLive, StateLive, StateLive, ""},
		{StateLive, StateRevoked, StateSuspended, ""},
		{StateDeleted, StateLive, StateLive, MissingNamespace},
		{StateLive, StateDeleted, StateLive, MissingRegistry},
		{StateLive, StateLive, StateDeleted, MissingRecord},
		{StateDeleted, StateDeleted, StateDeleted, MissingNamespace},
		{"", "", "", ""},
	} {
		if got := DeletedLevel(c.ns, c.reg, c.rec); got != c.want {
			t.Errorf("DeletedLevel(%s, %s, %s) = %q, want %q", c.ns, c.reg, c.rec, got, c.want)
		}
	}
	if err := RestoreUnder("record", "registry", StateDeleted); !errors.Is(err, ErrParentDeleted) {
		t.Errorf("a record of a deleted registry: %v", err)
	}
	if err := RestoreUnder("record", "registry", StateInactive); err != nil {
		t.Errorf("a record of an inactive registry: %v", err)
	}
	if err := CheckReason(strings.Repeat("x", MaxReason+1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("a long reason: %v", err)
	}
}

func TestChangeRecordsAndNamespaceDelete(t *testing.T) {
	st := StampAt(testNow)
	rec := func(name, state string) SealedRecord {
		return SealedRecord{RecordID: NewUUID(), RecordName: name, RecordContent: RecordContent{Details: "{}", Meta: "{}", State: state, TTL: 600},
			Version: NewVersion(), VersionCount: 1}
	}
	heads := map[string]SealedRecord{"a": rec("a", StateLive), "s": rec("s", StateSuspended), "d": rec("d", StateDraft), "x": rec("x", StateDeleted)}
	prev, next, err := ChangeRecords([]string{"a", "s"}, heads, ActionDelete, st)
	if err != nil || len(next) != 2 || next[0].State != StateDeleted || next[1].VersionCount != 2 || next[0].Digest == prev[0].Digest || next[0].Version == prev[0].Version {
		t.Fatalf("delete: %+v %v", next, err)
	}
	if _, _, err := ChangeRecords([]string{"a", "d", "x"}, heads, ActionDelete, st); !errors.Is(err, ErrConflict) ||
		!strings.Contains(err.Error(), "records[1] (d) is draft, records[2] (x) is deleted") {
		t.Errorf("refused: %v", err)
	}
	if _, next, err := ChangeRecords([]string{"x"}, heads, ActionUndelete, st); err != nil || next[0].State != StateLive {
		t.Errorf("restore: %v", err)
	}
	if _, _, err := ChangeRecords([]string{"a"}, heads, ActionUndelete, st); !errors.Is(err, ErrConflict) {
		t.Errorf("restoring a live record: %v", err)
	}
	var nf *NotFoundError
	if _, _, err := ChangeRecords([]string{"nope"}, heads, ActionDelete, st); !errors.As(err, &nf) {
		t.Errorf("missing: %v", err)
	}
	for _, names := range [][]string{nil, make([]string, MaxBatch+1), {"a", "a"}} {
		if _, _, err := ChangeRecords(names, heads, ActionDelete, st); !errors.Is(err, ErrInvalid) {
			t.Errorf("%d names: %v", len(names), err)
		}
	}

	n, err := NewNamespace("u", "did:web:x", NamespaceInput{Name: "n"}, st)
	if err != nil {
		t.Fatal(err)
	}
	tomb, err := n.Delete(ActionDelete, st)
	if err != nil || tomb.State != StateDeleted || tomb.VersionCount != 2 || tomb.Digest == n.Digest {
		t.Fatalf("namespace tombstone: %+v %v", tomb, err)
	}
	if _, err := tomb.Delete(ActionDelete, st); !errors.Is(err, ErrConflict) {
		t.Errorf("deleting a deleted namespace: %v", err)
	}
	back, err := tomb.Delete(ActionUndelete, st)
	if err != nil || back.State != StateLive || back.VersionCount != 3 {
		t.Errorf("restored namespace: %+v %v", back, err)
	}
}
