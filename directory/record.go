package directory

import "fmt"

// SealedRecord is a record version as it is sealed and stored (details and meta as canonical
// text); CreatedAt and UpdatedAt as for SealedNamespace.
type SealedRecord struct {
	RecordID, RegistryID, NamespaceID, RegistryName, RecordName, CreatedBy, Genesis string
	RecordContent
	Version              string
	VersionCount         int64
	Digest, ProofType    string
	CreatedAt, UpdatedAt int64
	// DetailsValue is Details decoded, when the write that sealed the version had it (nil: not
	// at hand), so that what is derived from it (the search text) need not decode it again.
	DetailsValue map[string]any
}

// NewRecords are the first versions of records added to the registry g by creatorDID at st:
// 1 to MaxBatch of them, with names unique in the batch (ErrNameTaken). batch names a refused
// record as records[i] (name) in the message.
func NewRecords(g SealedRegistry, creatorDID string, in []RecordInput, st Stamp, batch bool) ([]SealedRecord, error) {
	if len(in) == 0 || len(in) > MaxBatch {
		return nil, Invalid.With("a batch holds 1 to %d records, got %d", MaxBatch, len(in))
	}
	seen := make(map[string]struct{}, len(in))
	out := make([]SealedRecord, len(in))
	for i, r := range in {
		if _, dup := seen[r.RecordName]; dup {
			return nil, ErrNameTaken.With("record %q appears twice in the batch", r.RecordName)
		}
		seen[r.RecordName] = struct{}{}
		at := ""
		if batch {
			at = fmt.Sprintf("records[%d] (%s): ", i, r.RecordName)
		}
		details, err := CanonicalDetails(r.Details, at)
		if err != nil {
			return nil, err
		}
		meta, err := CanonicalText(r.Meta)
		if err != nil {
			return nil, err
		}
		state := r.State
		if state == "" {
			state = StateLive
		}
		var till *int64
		if r.ValidTill != nil {
			ms := r.ValidTill.UTC().UnixMilli()
			till = &ms
		}
		rec := SealedRecord{RecordID: NewUUID(), RegistryID: g.RegistryID, NamespaceID: g.NamespaceID,
			RegistryName: g.RegistryName, RecordName: r.RecordName, CreatedBy: creatorDID, Genesis: st.Text,
			RecordContent: RecordContent{Description: r.Description, Details: details, Meta: meta,
				TTL: TTLOr(r.TTL, DefaultTTL), State: state, ValidTill: till},
			VersionCount: 1, CreatedAt: st.MS, UpdatedAt: st.MS, DetailsValue: NonNil(r.Details)}
		v := rec.lookup(nil, nil, nil, "", "")
		if err := SealRecord(&v, st, &rec.Details, &rec.Meta); err != nil {
			return nil, err
		}
		rec.Version, rec.ProofType, rec.Digest = v.Version, v.ProofType, v.Digest
		out[i] = rec
	}
	return out, nil
}

// Next is the version p makes of r at st, or r itself when p changes nothing (NextRecord).
func (r SealedRecord) Next(p RecordPatch, st Stamp) (next SealedRecord, changed bool, err error) {
	content, changed, err := NextRecord(r.RecordContent, p)
	if err != nil || !changed {
		return r, false, err
	}
	next = r
	next.RecordContent = content
	next.VersionCount = r.VersionCount + 1
	next.UpdatedAt = st.MS
	details, freshDetails := p.Details, &next.Details
	if details == nil {
		freshDetails = nil
		if details, err = DecodeObject(next.Details); err != nil {
			return r, false, err
		}
	}
	meta, freshMeta := p.Meta, &next.Meta
	if meta == nil {
		freshMeta = nil
		if meta, err = DecodeObject(next.Meta); err != nil {
			return r, false, err
		}
	}
	next.DetailsValue = details
	v := next.lookup(details, meta, nil, "", "")
	if err := SealRecord(&v, st, freshDetails, freshMeta); err != nil {
		return r, false, err
	}
	next.Version, next.ProofType, next.Digest = v.Version, v.ProofType, v.Digest
	return next, true, nil
}

// Record is the version as a lookup shows it, with the namespace's current name, the
// registry's current state and its schema (decoded).
func (r SealedRecord) Record(namespaceName, registryState string, schema map[string]any) (Record, error) {
	details, err := DecodeObject(r.Details)
	if err != nil {
		return Record{}, err
	}
	meta, err := DecodeObject(r.Meta)
	if err != nil {
		return Record{}, err
	}
	return r.lookup(details, meta, schema, namespaceName, registryState), nil
}

func (r SealedRecord) lookup(details, meta, schema map[string]any, namespaceName, registryState string) Record {
	return Record{RecordID: r.RecordID, RegistryID: r.RegistryID, NamespaceID: r.NamespaceID, NamespaceName: namespaceName,
		RegistryName: r.RegistryName, RegistryState: registryState, Schema: NonNil(schema), RecordName: r.RecordName,
		Description: r.Description, Details: NonNil(details), Meta: NonNil(meta), TTL: r.TTL, State: r.State,
		ValidTill: msTimePtr(r.ValidTill), CreatedBy: r.CreatedBy, Genesis: r.Genesis, CreatedAt: msTime(r.CreatedAt),
		UpdatedAt: msTime(r.UpdatedAt), Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest,
		ProofType: r.ProofType, LatestState: r.State} // a read of an older version sets the latest's state
}
