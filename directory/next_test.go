package directory

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestNextRecord(t *testing.T) {
	cur := RecordContent{Description: "d", Details: `{"a":1}`, Meta: "{}", TTL: 600, State: StateLive}
	if _, changed, err := NextRecord(cur, RecordPatch{Description: ptr("d"), TTL: ptr(int64(600))}); err != nil || changed {
		t.Errorf("a patch that changes nothing: changed %v, %v", changed, err)
	}
	next, changed, err := NextRecord(cur, RecordPatch{Details: map[string]any{"b": true}})
	if err != nil || !changed || next.Details != `{"b":true}` || next.Meta != "{}" {
		t.Errorf("details: %+v %v %v", next, changed, err)
	}
	till := time.UnixMilli(1_800_000_000_000)
	next, _, _ = NextRecord(cur, RecordPatch{ValidTill: &till})
	if next.ValidTill == nil || *next.ValidTill != 1_800_000_000_000 {
		t.Errorf("valid_till: %v", next.ValidTill)
	}
	cleared, changed, _ := NextRecord(next, RecordPatch{ClearValidTo: true})
	if cleared.ValidTill != nil || !changed {
		t.Errorf("clearing valid_till: %v %v", cleared.ValidTill, changed)
	}
	big := map[string]any{"x": strings.Repeat("y", MaxDetails)}
	if _, _, err := NextRecord(cur, RecordPatch{Details: big}); !errors.Is(err, ErrInvalid) {
		t.Errorf("details over 64 KiB: %v", err)
	}
	revoked := cur
	revoked.State = StateRevoked
	if _, _, err := NextRecord(revoked, RecordPatch{Description: ptr("x")}); !errors.Is(err, ErrRecordRevoked) {
		t.Errorf("changing a revoked record: %v", err)
	}
	if _, changed, err := NextRecord(revoked, RecordPatch{Action: ActionRevoke}); err != nil || changed {
		t.Errorf("revoking a revoked record again: changed %v, %v", changed, err)
	}
	next, changed, err = NextRecord(RecordContent{State: StateDraft}, RecordPatch{Action: ActionPublish})
	if err != nil || !changed || next.State != StateLive {
		t.Errorf("publish: %+v %v %v", next, changed, err)
	}
}

func TestNextRegistry(t *testing.T) {
	cur := RegistryContent{Description: "d", Meta: "{}", TTL: 600, QueryAllowed: true, State: StateArchived}
	if _, _, err := NextRegistry(cur, RegistryPatch{Description: ptr("x")}); !errors.Is(err, ErrRegistryArchived) {
		t.Errorf("editing an archived registry: %v", err)
	}
	next, changed, err := NextRegistry(cur, RegistryPatch{Action: ActionRestore})
	if err != nil || !changed || next.State != StateLive {
		t.Errorf("restore: %+v %v %v", next, changed, err)
	}
	cur.State = StateRevoked
	if _, _, err := NextRegistry(cur, RegistryPatch{QueryAllowed: ptr(false)}); !errors.Is(err, ErrRegistryRevoked) {
		t.Errorf("editing a revoked registry: %v", err)
	}
	if _, changed, err := NextRegistry(cur, RegistryPatch{QueryAllowed: ptr(true)}); err != nil || changed {
		t.Errorf("a revoked registry, patch that changes nothing: %v %v", changed, err)
	}
}

func TestNextNamespace(t *testing.T) {
	cur := NamespaceContent{Name: "n", Description: "d", Meta: "{}", TTL: 600}
	if _, changed, err := NextNamespace(cur, NamespacePatch{Name: ptr("n"), Meta: map[string]any{}}); err != nil || changed {
		t.Errorf("no change: %v %v", changed, err)
	}
	next, changed, err := NextNamespace(cur, NamespacePatch{Meta: map[string]any{"k": "v"}})
	if err != nil || !changed || next.Meta != `{"k":"v"}` {
		t.Errorf("meta: %+v %v %v", next, changed, err)
	}
}
