package directory

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/svc-directory/svc/proof"
)

// Stamp is the moment of a write: its millisecond time, the timestamp string the digest holds,
// and the year of the proof type.
type Stamp struct {
	MS   int64
	Text string
	Year int
}

// StampAt is the stamp of a write at t (cut to the millisecond, in UTC).
func StampAt(t time.Time) Stamp {
	t = t.UTC().Truncate(time.Millisecond)
	return Stamp{MS: t.UnixMilli(), Text: proof.FormatTime(t), Year: t.Year()}
}

// Sealing gives a new version its identity and proof: a fresh version id, the proof type of
// its kind and year, and the digest of its fields (docs/digests.md). A version's JSON objects
// (details, meta, schema) are stored as their canonical text; when a write has just made that
// text from the value (fresh), the digest takes it as it is rather than canonicalizing again.
// Text read back from Postgres is JSONB's rendering, not canonical: it is never passed as fresh.

// SealNamespace seals n as the version made at st.
func SealNamespace(n *Namespace, st Stamp) error {
	n.Version = NewVersion()
	n.UpdatedAt = time.UnixMilli(st.MS).UTC()
	n.ProofType = proof.ProofType(proof.KindNamespace, st.Year)
	d, err := n.Fields().Digest()
	n.Digest = d
	return err
}

// SealRegistry seals r as the version made at st; freshSchema and freshMeta, when not nil, are
// the canonical text of r.Schema and r.Meta as this write made it.
func SealRegistry(r *Registry, st Stamp, freshSchema, freshMeta *string) error {
	r.Version = NewVersion()
	r.ProofType = proof.ProofType(proof.KindRegistry, st.Year)
	var err error
	r.Digest, err = r.Fields().DigestCanonical(freshSchema, freshMeta)
	return err
}

// SealRecord seals r as the version made at st; freshDetails and freshMeta as for SealRegistry.
func SealRecord(r *Record, st Stamp, freshDetails, freshMeta *string) error {
	r.Version = NewVersion()
	r.ProofType = proof.ProofType(proof.KindRecord, st.Year)
	var err error
	r.Digest, err = r.Fields().DigestCanonical(freshDetails, freshMeta)
	return err
}

// CanonicalText is a JSON object as a version stores it: its canonical text (nil is {}).
func CanonicalText(m map[string]any) (string, error) {
	if m == nil {
		return "{}", nil
	}
	b, err := proof.Canonicalize(m)
	if err != nil {
		return "", Invalid.With("%v", err)
	}
	return string(b), nil
}

// CanonicalDetails is CanonicalText for a record's details, refusing more than MaxDetails
// bytes; at prefixes the message (naming the record of a batch).
func CanonicalDetails(details map[string]any, at string) (string, error) {
	text, err := CanonicalText(details)
	if err != nil {
		return "", Invalid.With("%sdetails: %v", at, err)
	}
	if len(text) > MaxDetails {
		return "", Invalid.With("%sdetails are %d bytes; at most %d (64 KiB) are allowed", at, len(text), MaxDetails)
	}
	return text, nil
}

// storedDepth bounds the nesting DecodeObject's strict reading admits: encoding/json's own
// bound, far above what a write accepts.
const storedDepth = 10000

// DecodeObject reads a stored JSON object back (numbers as float64, as JSON.parse reads them;
// "" is {}). Every uncached lookup reads its entry's details, meta and schema through it, so it
// takes proof's parser, twice as fast as encoding/json's reflection into a map and giving the
// same values for every text a write stores (canonical JSON: valid UTF-8, no duplicate keys,
// no -0). A text that parser refuses (none is stored today) is read by encoding/json, as
// before.
func DecodeObject(s string) (map[string]any, error) {
	if s == "" {
		return map[string]any{}, nil
	}
	if v, err := proof.ParseJSON([]byte(s), storedDepth); err == nil {
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
	}
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("stored JSON is corrupt: %w", err)
	}
	return m, nil
}

// NonNil is m, or an empty object for nil.
func NonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
