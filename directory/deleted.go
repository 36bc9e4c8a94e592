package directory

import (
	"strings"
)

// Deleting and restoring (docs/lifecycle.md, "Delete and restore"). A delete writes a new
// version of the entry in state deleted, a tombstone with its digest, logged like any other
// public version; no version is ever removed. To every latest read and every write but its
// restore, a deleted entry is missing; its versions stay readable by version_id. A restore writes
// a new live version.
//
// Deleting a namespace deletes its registries that are not deleted yet, in the same
// transaction, and releases its verified domain; deleting a registry hides its records without a
// version of each (as a revoked registry's records read as revoked): they are missing while it
// is deleted, and come back with it. Restoring a namespace restores the registries its delete
// deleted, not those deleted before it, nor its domain. A record or registry under a deleted
// parent is not restored on its own (ErrParentDeleted).

// MaxReason is the longest reason a delete may give, in bytes.
const MaxReason = 1000

var (
	// ErrDeleted: the entry is already deleted.
	ErrDeleted = Conflict.With("already deleted")
	// ErrNotDeleted: a restore of an entry that is not deleted.
	ErrNotDeleted = Conflict.With("not deleted")
	// ErrParentDeleted: a restore of an entry whose namespace or registry is deleted.
	ErrParentDeleted = Conflict.With("the parent is deleted")
)

// Gone reports whether an entry in state is missing to latest reads and to writes other than
// its restore.
func Gone(state string) bool { return state == StateDeleted }

// CheckReason refuses a delete's reason that is too long.
func CheckReason(reason string) error {
	if len(reason) > MaxReason {
		return Invalid.With("reason is longer than %d bytes", MaxReason)
	}
	return nil
}

// RestoreUnder refuses the restore of a kind ("registry", "record") whose parent (of kind
// parentKind) is in parentState.
func RestoreUnder(kind, parentKind, parentState string) error {
	if Gone(parentState) {
		return ErrParentDeleted.With("the %s's %s is deleted: restore the %s first", kind, parentKind, parentKind)
	}
	return nil
}

// ChangeRecords makes the version action (ActionDelete or ActionUndelete) makes of each named
// record at st, as PublishDrafts does for publish: 1 to MaxBatch names, each once (invalid);
// names without a record (heads: the registry's records found under the names) are missing and
// named; records the action does not apply to are refused (a conflict naming each).
func ChangeRecords(names []string, heads map[string]SealedRecord, action Action, st Stamp) (prev, next []SealedRecord, err error) {
	rule := batchRule{
		size:    "records holds 1 to %d record names, got %d",
		twice:   "named twice in records: %s",
		refuses: func(r SealedRecord) bool { _, err := NextRecordState(r.State, action); return err != nil },
		refusal: func(refused string) error {
			return Conflict.With("only records that are %s can be %s: %s", fromStates(action), pastTense[action], refused)
		},
	}
	if err := rule.check(names, heads); err != nil {
		return nil, nil, err
	}
	return nextOfEach(names, heads, action, st)
}

func fromStates(a Action) string { return strings.Join(recordLifecycle.actions[a].from, " or ") }

// Delete is the tombstone of n at st (ActionDelete), or the restored live version
// (ActionUndelete), or the lifecycle's refusal.
func (n SealedNamespace) Delete(action Action, st Stamp) (SealedNamespace, error) {
	state, err := NextNamespaceState(n.StateOrLive(), action)
	if err != nil {
		return n, err
	}
	next := n
	next.State = state
	next.VersionCount = n.VersionCount + 1
	return next, next.seal(st)
}

// StateOrLive is the namespace's state (live for a version stored before namespaces had one).
func (n SealedNamespace) StateOrLive() string {
	if n.State == "" {
		return StateLive
	}
	return n.State
}

// DeletedLevel is the level a latest read misses when the entry it found, or an entry above it,
// is deleted: the highest deleted one of the namespace, registry and record states given (""
// for a level the read does not have), or "" when none is.
func DeletedLevel(namespaceState, registryState, recordState string) Missing {
	switch {
	case Gone(namespaceState):
		return MissingNamespace
	case Gone(registryState):
		return MissingRegistry
	case Gone(recordState):
		return MissingRecord
	}
	return ""
}
