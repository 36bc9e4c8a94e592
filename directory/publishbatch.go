package directory

import (
	"fmt"
	"strings"
)

// Publishing drafts in a batch (publish-records): 1 to MaxBatch record names, each once, each a
// draft of the registry; all are published or none. A refusal names every record it refuses.

// maxNamed bounds how many refused records a batch's refusal lists by name.
const maxNamed = 20

// PublishDrafts makes the published version of each named record at st. heads holds the
// records of the registry found under the names (a name without one is missing). Refusals:
// a batch of the wrong size, or a name given twice (invalid); names without a record (a
// *NotFoundError, MissingRecord, naming them); records that are not drafts (ErrNotDraft, naming
// them).
func PublishDrafts(names []string, heads map[string]SealedRecord, st Stamp) (prev, next []SealedRecord, err error) {
	rule := batchRule{
		size:    "a batch holds 1 to %d records, got %d",
		twice:   "named twice in the batch: %s",
		refuses: func(r SealedRecord) bool { return r.State != StateDraft },
		refusal: func(refused string) error { return ErrNotDraft.With("%s", refused) },
	}
	if err := rule.check(names, heads); err != nil {
		return nil, nil, err
	}
	return nextOfEach(names, heads, ActionPublish, st)
}

// batchRule is what a batch of record names is checked against: how its refusals of a size
// and of a name given twice read, which records it refuses and how it says so.
type batchRule struct {
	size, twice string // formats: (MaxBatch, the count); (the names listed)
	refuses     func(r SealedRecord) bool
	refusal     func(refused string) error // refused: the refused records listed, with their states
}

// check refuses a batch of the wrong size or with a name given twice (invalid), names without a
// record in heads (a *NotFoundError, MissingRecord, naming them), and the records the rule
// refuses, naming every one.
func (b batchRule) check(names []string, heads map[string]SealedRecord) error {
	if len(names) == 0 || len(names) > MaxBatch {
		return Invalid.With(b.size, MaxBatch, len(names))
	}
	seen := make(map[string]struct{}, len(names))
	var dup, missing, refused []string
	for i, n := range names {
		at := fmt.Sprintf("records[%d] (%s)", i, n)
		if _, ok := seen[n]; ok {
			dup = append(dup, at)
			continue
		}
		seen[n] = struct{}{}
		r, ok := heads[n]
		switch {
		case !ok:
			missing = append(missing, at)
		case b.refuses(r):
			refused = append(refused, fmt.Sprintf("%s is %s", at, r.State))
		}
	}
	switch {
	case len(dup) > 0:
		return Invalid.With(b.twice, listed(dup))
	case len(missing) > 0:
		return &NotFoundError{Missing: MissingRecord, Name: strings.Join(missing, ", "), Batch: "no such record in the registry: " + listed(missing)}
	case len(refused) > 0:
		return b.refusal(listed(refused))
	}
	return nil
}

// nextOfEach makes the version action makes of each named record (checked: batchRule) at st.
func nextOfEach(names []string, heads map[string]SealedRecord, action Action, st Stamp) (prev, next []SealedRecord, err error) {
	prev, next = make([]SealedRecord, len(names)), make([]SealedRecord, len(names))
	for i, n := range names {
		prev[i] = heads[n]
		var changed bool
		next[i], changed, err = prev[i].Next(RecordPatch{Action: action}, st)
		if err != nil {
			return nil, nil, err
		}
		if !changed {
			return nil, nil, fmt.Errorf("%s of %s changed nothing", action, n)
		}
	}
	return prev, next, nil
}

// listed is the refused records of a batch, the first maxNamed of them by name.
func listed(at []string) string {
	if len(at) <= maxNamed {
		return strings.Join(at, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(at[:maxNamed], ", "), len(at)-maxNamed)
}

// AsDraft is in as save-record-as-draft adds it: in state draft (a state other than draft is
// refused).
func AsDraft(in RecordInput) (RecordInput, error) {
	if in.State != "" && in.State != StateDraft {
		return in, Invalid.With("save-record-as-draft saves drafts; state %q is add-record's", in.State)
	}
	in.State = StateDraft
	return in, nil
}
