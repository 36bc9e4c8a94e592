package directory

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Lifecycle states (docs/lifecycle.md).
//
// A record is a draft until published, then live; a live record can be suspended and
// reinstated, and revoked from live or suspended. A registry is live or inactive (deactivate,
// activate), archived (read-only: restore makes it live again) or revoked. Revocation is
// final for both: a revoked entry takes no further change of any kind. Each change of state
// is a new version with its digest, logged like any other public version.
//
// expired is not stored: a live record whose valid_till has passed reads as expired, and
// every record of a revoked registry reads as revoked (EffectiveState). The digest covers the
// stored state, which a lookup answers as state, beside effective_state.
const (
	StateLive      = "live"
	StateInactive  = "inactive"
	StateDraft     = "draft"
	StateSuspended = "suspended"
	StateRevoked   = "revoked"
	StateArchived  = "archived"
	StateExpired   = "expired"
	// StateDeleted is a tombstone (deleted.go): the entry is missing to latest reads and writes,
	// its versions stay readable by version_id, and restore makes it live again.
	StateDeleted = "deleted"
	// The states of an origin-hosted registry's file (OriginState) that its records read as.
	StateStale     = "stale"     // past next_update with no successful refresh: still served
	StateWithdrawn = "withdrawn" // no longer authentic: key removed, file unlisted, signature or digest broken
)

var (
	// EffectiveRecordStates are the states a record reads as (EffectiveState), the values of
	// the record state filters.
	EffectiveRecordStates = []string{StateDraft, StateLive, StateSuspended, StateRevoked, StateExpired, StateStale, StateWithdrawn, StateDeleted}
	// RegistryStates are the states of a registry, the values of the registry state filter.
	RegistryStates = []string{StateLive, StateInactive, StateArchived, StateRevoked, StateDeleted}
)

// Action is a change of an entry's state: the operations publish-record, suspend-record,
// reinstate-record and revoke-record of a record, and deactivate-registry,
// activate-registry, archive-registry, restore-registry and revoke-registry of a registry.
type Action string

const (
	ActionPublish    Action = "publish"
	ActionSuspend    Action = "suspend"
	ActionReinstate  Action = "reinstate"
	ActionRevoke     Action = "revoke"
	ActionDeactivate Action = "deactivate"
	ActionActivate   Action = "activate"
	ActionArchive    Action = "archive"
	ActionRestore    Action = "restore"
	// ActionDelete and ActionUndelete are delete-namespace, delete-registry and delete-records,
	// and their restore (restore/namespace, restore/registry, restore/records: deleted.go).
	ActionDelete   Action = "delete"
	ActionUndelete Action = "undelete"
)

// transition is what an action does: the states it applies to, and the state it leaves.
type transition struct {
	from []string
	to   string
}

// lifecycle is the table of an entry kind's actions.
type lifecycle struct {
	kind    string // record, registry
	actions map[Action]transition
	revoked error // the refusal of any change of a revoked entry
}

var (
	recordLifecycle = lifecycle{"record", map[Action]transition{
		ActionPublish:   {[]string{StateDraft}, StateLive},
		ActionSuspend:   {[]string{StateLive}, StateSuspended},
		ActionReinstate: {[]string{StateSuspended}, StateLive},
		ActionRevoke:    {[]string{StateLive, StateSuspended}, StateRevoked},
		ActionDelete:    {[]string{StateLive, StateSuspended}, StateDeleted},
		ActionUndelete:  {[]string{StateDeleted}, StateLive},
	}, ErrRecordRevoked}
	registryLifecycle = lifecycle{"registry", map[Action]transition{
		ActionDeactivate: {[]string{StateLive}, StateInactive},
		ActionActivate:   {[]string{StateInactive}, StateLive},
		ActionArchive:    {[]string{StateLive, StateInactive}, StateArchived},
		ActionRestore:    {[]string{StateArchived}, StateLive},
		ActionRevoke:     {[]string{StateLive, StateInactive, StateArchived}, StateRevoked},
		ActionDelete:     {[]string{StateLive, StateInactive, StateArchived}, StateDeleted},
		ActionUndelete:   {[]string{StateDeleted}, StateLive},
	}, ErrRegistryRevoked}
	// A namespace has no other state than live and deleted.
	namespaceLifecycle = lifecycle{"namespace", map[Action]transition{
		ActionDelete:   {[]string{StateLive}, StateDeleted},
		ActionUndelete: {[]string{StateDeleted}, StateLive},
	}, nil}
)

var pastTense = map[Action]string{ActionPublish: "published", ActionSuspend: "suspended", ActionReinstate: "reinstated",
	ActionRevoke: "revoked", ActionDeactivate: "deactivated", ActionActivate: "activated", ActionArchive: "archived",
	ActionRestore: "restored", ActionDelete: "deleted", ActionUndelete: "restored"}

// next returns the state action moves an entry in state from to, or the conflict that refuses
// it. An action that leaves the entry in the state it is in changes nothing (a retried request
// answers the current version), except publish, which applies to drafts only (ErrNotDraft), and
// delete and its restore, which refuse an entry already deleted, or not deleted (deleted.go).
func (l lifecycle) next(from string, action Action) (string, error) {
	t, ok := l.actions[action]
	switch {
	case !ok:
		return "", fmt.Errorf("%w: %s has no action %q", ErrInvalid, l.kind, action)
	case action == ActionPublish && from != StateDraft:
		return "", ErrNotDraft
	case action == ActionDelete && from == StateDeleted:
		return "", ErrDeleted.With("the %s is already deleted", l.kind)
	case action == ActionUndelete && from != StateDeleted:
		return "", ErrNotDeleted.With("the %s is %s, and only a deleted %s can be restored", l.kind, from, l.kind)
	case from == t.to:
		return from, nil
	case from == StateRevoked:
		return "", l.revoked
	case !slices.Contains(t.from, from):
		return "", Conflict.With("the %s is %s, and only a %s that is %s can be %s", l.kind, from, l.kind, strings.Join(t.from, " or "), pastTense[action])
	}
	return t.to, nil
}

// NextRecordState is the state action moves a record in state from to, or its refusal.
func NextRecordState(from string, action Action) (string, error) {
	return recordLifecycle.next(from, action)
}

// NextRegistryState is the state action moves a registry in state from to, or its refusal.
func NextRegistryState(from string, action Action) (string, error) {
	return registryLifecycle.next(from, action)
}

// NextNamespaceState is the state action moves a namespace in state from to, or its refusal.
func NextNamespaceState(from string, action Action) (string, error) {
	return namespaceLifecycle.next(from, action)
}

// RegistryWritable refuses a write of records in a registry that is not live.
func RegistryWritable(state string) error {
	switch state {
	case StateLive:
		return nil
	case StateArchived:
		return ErrRegistryArchived
	case StateRevoked:
		return ErrRegistryRevoked
	}
	return ErrRegistryInactive
}

// EffectiveState is the state the record reads as at now: revoked in a revoked registry; for a
// record that would read as live or expired, the state of its origin-hosted registry's file
// when that is stale or withdrawn (OriginState); expired when it is live and its valid_till has
// passed; else its own state. It is derived when the record is answered, so that it is never
// older than the answer (a lookup of a record with a valid_till is not cached).
func (r Record) EffectiveState(now time.Time) string {
	switch {
	case r.RegistryState == StateRevoked:
		return StateRevoked
	case r.State == StateLive && (r.OriginState == StateStale || r.OriginState == StateWithdrawn):
		return r.OriginState
	case r.State == StateLive && r.ValidTill != nil && !r.ValidTill.After(now):
		return StateExpired
	}
	return r.State
}
