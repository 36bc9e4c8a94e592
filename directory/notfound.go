package directory

import (
	"fmt"
	"time"
)

// Missing names what a read did not find.
type Missing string

const (
	MissingNamespace Missing = "namespace"
	MissingRegistry  Missing = "registry"
	MissingRecord    Missing = "record"
	// MissingVersion: the entry exists, but not the version the read selected (version_id).
	MissingVersion Missing = "version"
	// MissingYet: the entry exists, but did not exist yet at the date the read selected (as_on).
	MissingYet Missing = "not yet"
)

// NotFoundError is a read that found nothing, saying which level was missing, so that the
// answer can name it without asking again. It matches ErrNotFound.
type NotFoundError struct {
	Missing Missing
	// Kind is the kind of entry a MissingVersion or MissingYet is about.
	Kind string
	// Name is what the request named (a namespace ref, registry or record name, a version id).
	Name string
	// Before is the selected date's end (MissingYet).
	Before time.Time
	// Draft: the record of a MissingVersion or MissingYet has no public version yet (its latest
	// is a draft), so to a caller who does not see drafts the record itself is missing
	// (drafts.go); NamespaceID is its namespace, whose members see it.
	Draft       bool
	NamespaceID string
	// Batch, when set, is the answer's sentence for the records of a batch that were missing
	// (PublishDrafts), which names every one of them.
	Batch string
}

// NotFound is the error of a read that found no such level named name.
func NotFound(m Missing, name string) *NotFoundError { return &NotFoundError{Missing: m, Name: name} }

func (e *NotFoundError) Error() string {
	switch e.Missing {
	case MissingVersion:
		return fmt.Sprintf("version %s of the %s: %v", e.Name, e.Kind, ErrNotFound)
	case MissingYet:
		return fmt.Sprintf("the %s did not exist yet on %s: %v", e.Kind, e.Before.AddDate(0, 0, -1).Format(time.DateOnly), ErrNotFound)
	}
	return fmt.Sprintf("%s %q: %v", e.Missing, e.Name, ErrNotFound)
}

// Is makes a NotFoundError match ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// VersionMissing is the not-found of a read whose entry (of kind "namespace", "registry" or
// "record") is there but not at the version sel selects: MissingVersion for a version id,
// MissingYet for an as_on day.
func VersionMissing(kind string, sel VersionSel) *NotFoundError {
	if sel.VersionID != "" {
		return &NotFoundError{Missing: MissingVersion, Kind: kind, Name: sel.VersionID}
	}
	return &NotFoundError{Missing: MissingYet, Kind: kind, Before: sel.Before}
}
