package directory

import (
	"errors"
	"testing"
	"time"
)

// The lifecycle table, every state against every action of each kind.
func TestLifecycleTable(t *testing.T) {
	recordStates := []string{StateDraft, StateLive, StateSuspended, StateRevoked}
	recordActions := []Action{ActionPublish, ActionSuspend, ActionReinstate, ActionRevoke}
	wantRecord := map[string]map[Action]string{ // "" means refused
		StateDraft:     {ActionPublish: StateLive},
		StateLive:      {ActionSuspend: StateSuspended, ActionRevoke: StateRevoked},
		StateSuspended: {ActionSuspend: StateSuspended, ActionReinstate: StateLive, ActionRevoke: StateRevoked},
		StateRevoked:   {ActionRevoke: StateRevoked},
	}
	wantRecord[StateLive][ActionReinstate] = StateLive // already live: no change
	for _, from := range recordStates {
		for _, a := range recordActions {
			got, err := NextRecordState(from, a)
			want := wantRecord[from][a]
			if want == "" && err == nil {
				t.Errorf("record %s --%s--> %s, want a refusal", from, a, got)
			}
			if want != "" && (err != nil || got != want) {
				t.Errorf("record %s --%s--> %q, %v; want %s", from, a, got, err, want)
			}
			if err != nil && !errors.Is(err, ErrConflict) {
				t.Errorf("record %s --%s--> %v: not a conflict", from, a, err)
			}
		}
	}
	if _, err := NextRecordState(StateLive, ActionPublish); !errors.Is(err, ErrNotDraft) {
		t.Errorf("publishing a live record: %v, want ErrNotDraft", err)
	}
	if _, err := NextRecordState(StateRevoked, ActionReinstate); !errors.Is(err, ErrRecordRevoked) {
		t.Errorf("reinstating a revoked record: %v, want ErrRecordRevoked", err)
	}
	if _, err := NextRecordState(StateLive, ActionArchive); !errors.Is(err, ErrInvalid) {
		t.Errorf("archiving a record: %v, want ErrInvalid", err)
	}
	registryStates := []string{StateLive, StateInactive, StateArchived, StateRevoked}
	wantRegistry := map[string]map[Action]string{
		StateLive:     {ActionDeactivate: StateInactive, ActionActivate: StateLive, ActionArchive: StateArchived, ActionRestore: StateLive, ActionRevoke: StateRevoked},
		StateInactive: {ActionDeactivate: StateInactive, ActionActivate: StateLive, ActionArchive: StateArchived, ActionRevoke: StateRevoked},
		StateArchived: {ActionArchive: StateArchived, ActionRestore: StateLive, ActionRevoke: StateRevoked},
		StateRevoked:  {ActionRevoke: StateRevoked},
	}
	for _, from := range registryStates {
		for _, a := range []Action{ActionDeactivate, ActionActivate, ActionArchive, ActionRestore, ActionRevoke} {
			got, err := NextRegistryState(from, a)
			want := wantRegistry[from][a]
			if want == "" && err == nil {
				t.Errorf("registry %s --%s--> %s, want a refusal", from, a, got)
			}
			if want != "" && (err != nil || got != want) {
				t.Errorf("registry %s --%s--> %q, %v; want %s", from, a, got, err, want)
			}
		}
	}
}

func TestRegistryWritable(t *testing.T) {
	for state, want := range map[string]error{StateLive: nil, StateInactive: ErrRegistryInactive,
		StateArchived: ErrRegistryArchived, StateRevoked: ErrRegistryRevoked} {
		if err := RegistryWritable(state); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", state, err, want)
		}
	}
}

func TestEffectiveState(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Second)
	for _, c := range []struct {
		r    Record
		want string
	}{
		{Record{State: StateLive}, StateLive},
		{Record{State: StateLive, ValidTill: &past}, StateExpired},
		{Record{State: StateLive, ValidTill: &now}, StateExpired},
		{Record{State: StateLive, ValidTill: &future}, StateLive},
		{Record{State: StateSuspended, ValidTill: &past}, StateSuspended},
		{Record{State: StateLive, RegistryState: StateRevoked}, StateRevoked},
		{Record{State: StateDraft, RegistryState: StateArchived}, StateDraft},
		{Record{State: StateLive, OriginState: StateStale}, StateStale},
		{Record{State: StateLive, OriginState: StateWithdrawn, ValidTill: &past}, StateWithdrawn},
		{Record{State: StateLive, OriginState: StateLive, ValidTill: &past}, StateExpired},
		{Record{State: StateLive, OriginState: StateInactive}, StateLive},
		{Record{State: StateSuspended, OriginState: StateStale}, StateSuspended},
	} {
		if got := c.r.EffectiveState(now); got != c.want {
			t.Errorf("%+v: %s, want %s", c.r, got, c.want)
		}
	}
}
