package directory

// Drafts are private (DECISIONS §4): only the owner and the delegates of a record's namespace
// see its draft versions. To anyone else a record exists from its first public version on.
// Since a record's drafts all come before its public versions, a draft a read selected by
// version_id or as_on means that the record had no public version then, and a draft as the
// latest means that it has none yet.

// HiddenDraft is what a caller who does not see drafts gets instead of rec, a draft version the
// read sel selected: the record is missing when it has no public version yet (or the read asked
// for the latest), else the selected version is.
func HiddenDraft(rec Record, sel VersionSel) *NotFoundError {
	if sel.Latest() || rec.LatestState == StateDraft {
		return NotFound(MissingRecord, rec.RecordName)
	}
	return VersionMissing("record", sel)
}

// Hidden is what a caller who does not see drafts gets instead of the not-found e: a version
// missing of a record that has no public version yet is the record missing.
func (e *NotFoundError) Hidden() *NotFoundError {
	if e.Draft {
		return NotFound(MissingRecord, "")
	}
	return e
}
