package directory

// What a valid next version is. An update names the fields it changes; the rules below turn
// the current version's content and the update into the next version's content, or refuse it.
// A content equal to the current one is no new version: the caller answers the current version.
// JSON objects are compared and kept as their stored text (CanonicalText of a new value).

// NamespaceContent is what an update of a namespace may change.
type NamespaceContent struct {
	Name, Description, Meta string
	TTL                     int64
}

// NextNamespace applies p to cur.
func NextNamespace(cur NamespaceContent, p NamespacePatch) (next NamespaceContent, changed bool, err error) {
	next = cur
	if p.Name != nil {
		next.Name = *p.Name
	}
	if p.Description != nil {
		next.Description = *p.Description
	}
	if p.Meta != nil {
		if next.Meta, err = CanonicalText(p.Meta); err != nil {
			return cur, false, err
		}
	}
	if p.TTL != nil {
		next.TTL = *p.TTL
	}
	return next, next != cur, nil
}

// RegistryContent is what an update or a change of state of a registry may change.
type RegistryContent struct {
	Description, Meta string
	TTL               int64
	QueryAllowed      bool
	State             string
}

// NextRegistry applies p to cur: an archived registry changes only its state (ErrRegistryArchived),
// a revoked one nothing (ErrRegistryRevoked); p.Action moves the state as the lifecycle allows.
func NextRegistry(cur RegistryContent, p RegistryPatch) (next RegistryContent, changed bool, err error) {
	next = cur
	if p.Description != nil {
		next.Description = *p.Description
	}
	if p.Meta != nil {
		if next.Meta, err = CanonicalText(p.Meta); err != nil {
			return cur, false, err
		}
	}
	if p.TTL != nil {
		next.TTL = *p.TTL
	}
	if p.QueryAllowed != nil {
		next.QueryAllowed = *p.QueryAllowed
	}
	if p.Action != "" {
		if next.State, err = NextRegistryState(cur.State, p.Action); err != nil {
			return cur, false, err
		}
	}
	switch {
	case next == cur:
		return cur, false, nil
	case cur.State == StateRevoked:
		return cur, false, ErrRegistryRevoked
	case cur.State == StateArchived && p.Action == "":
		return cur, false, ErrRegistryArchived
	}
	return next, true, nil
}

// RecordContent is what an update or a change of state of a record may change; ValidTill is
// in Unix milliseconds.
type RecordContent struct {
	Description, Details, Meta string
	TTL                        int64
	State                      string
	ValidTill                  *int64
}

func (a RecordContent) equal(b RecordContent) bool {
	eqTill := (a.ValidTill == nil) == (b.ValidTill == nil) && (a.ValidTill == nil || *a.ValidTill == *b.ValidTill)
	return eqTill && a.Details == b.Details && a.Description == b.Description && a.Meta == b.Meta && a.TTL == b.TTL && a.State == b.State
}

// NextRecord applies p to cur: p.Action moves the state as the lifecycle allows (publishing
// only from draft: ErrNotDraft), and a revoked record refuses every change (ErrRecordRevoked).
// The details must fit MaxDetails.
func NextRecord(cur RecordContent, p RecordPatch) (next RecordContent, changed bool, err error) {
	next = cur
	if p.Details != nil {
		if next.Details, err = CanonicalDetails(p.Details, ""); err != nil {
			return cur, false, err
		}
	}
	if p.Description != nil {
		next.Description = *p.Description
	}
	if p.Meta != nil {
		if next.Meta, err = CanonicalText(p.Meta); err != nil {
			return cur, false, err
		}
	}
	if p.TTL != nil {
		next.TTL = *p.TTL
	}
	if p.ClearValidTo {
		next.ValidTill = nil
	} else if p.ValidTill != nil {
		ms := p.ValidTill.UTC().UnixMilli()
		next.ValidTill = &ms
	}
	if p.Action != "" {
		if next.State, err = NextRecordState(cur.State, p.Action); err != nil {
			return cur, false, err
		}
	}
	if next.equal(cur) {
		return cur, false, nil
	}
	if cur.State == StateRevoked {
		return cur, false, ErrRecordRevoked
	}
	return next, true, nil
}
