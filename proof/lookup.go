package proof

import (
	"fmt"
	"math"
	"regexp"
)

// FirstProofYear is the first proof-type year a verifier accepts (docs/digests.md).
const FirstProofYear = 2025

var digestForm = regexp.MustCompile(`^0x[0-9a-f]{64}$`)

// idFields names the identifying field of each kind.
var idFields = map[Kind]string{KindNamespace: "namespace_id", KindRegistry: "registry_id", KindRecord: "record_id"}

// IDField is the name of the field that identifies an entry of the kind in lookup data.
func IDField(k Kind) string { return idFields[k] }

// CheckLookup checks the data of a lookup response on its own, as anyone can without the
// directory: the proof is of the kind and of a year from FirstProofYear to maxYear, its
// identifiers match the data, and the digest recomputed from the data's digest fields (genesis
// in either form; a namespace's state, when absent, is live) equals proof.digest (and data.digest
// when present). It returns the first failure, or nil.
func CheckLookup(kind Kind, data map[string]any, maxYear int) error {
	p, ok := data["proof"].(map[string]any)
	if !ok {
		return fmt.Errorf("data.proof is missing or not an object")
	}
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	ptype := str(p, "type")
	k, year, err := ParseProofType(ptype)
	switch {
	case err != nil:
		return fmt.Errorf("proof.type: %v", err)
	case k != kind:
		return fmt.Errorf("proof.type %s is a %s proof, not a %s proof", ptype, k, kind)
	case year < FirstProofYear || year > maxYear:
		return fmt.Errorf("proof.type %s has a year outside %d..%d", ptype, FirstProofYear, maxYear)
	}
	claimed := str(p, "digest")
	if !digestForm.MatchString(claimed) {
		return fmt.Errorf("proof.digest is missing or not 0x + 64 hex digits")
	}
	if d, present := data["digest"]; present && d != claimed {
		return fmt.Errorf("data.digest differs from proof.digest")
	}
	if str(p, "namespace_did") != str(data, "namespace_id") {
		return fmt.Errorf("proof.namespace_did differs from data.namespace_id")
	}
	if kind != KindNamespace && str(p, "registry_identifier") != str(data, "registry_id") {
		return fmt.Errorf("proof.registry_identifier differs from data.registry_id")
	}
	if kind == KindRecord && str(p, "record_identifier") != str(data, "record_id") {
		return fmt.Errorf("proof.record_identifier differs from data.record_id")
	}
	computed, err := RecomputeDigest(kind, data)
	if err != nil {
		return err
	}
	if computed != claimed {
		return fmt.Errorf("recomputed digest %s differs from proof.digest %s", computed, claimed)
	}
	return nil
}

// RecomputeDigest builds the digest-field object of lookup data and digests it.
func RecomputeDigest(kind Kind, data map[string]any) (string, error) {
	r := &fieldReader{data: data}
	var digest func() (string, error)
	switch kind {
	case KindNamespace:
		digest = fromData(r, namespaceMembers).Digest
	case KindRegistry:
		digest = fromData(r, registryMembers).Digest
	case KindRecord:
		digest = fromData(r, recordMembers).Digest
	default:
		return "", fmt.Errorf("unknown kind %v", kind)
	}
	if r.err != nil {
		return "", r.err
	}
	return digest()
}

// fieldReader reads digest fields out of lookup data, remembering the first problem.
type fieldReader struct {
	data map[string]any
	err  error
}

func (r *fieldReader) str(name string) string {
	v, ok := r.data[name].(string)
	if !ok && r.err == nil {
		r.err = fmt.Errorf("data.%s is missing or not a string", name)
	}
	return v
}

// optionalStr reads a text field that lookup data may leave out ("" then): a namespace's state,
// absent from lookups made before namespaces had one.
func (r *fieldReader) optionalStr(name string) string {
	v, present := r.data[name]
	if !present {
		return ""
	}
	s, ok := v.(string)
	if !ok && r.err == nil {
		r.err = fmt.Errorf("data.%s is not a string", name)
	}
	return s
}

func (r *fieldReader) integer(name string) int64 {
	f, ok := r.data[name].(float64)
	if (!ok || f != math.Trunc(f) || math.Abs(f) > 1<<53) && r.err == nil {
		r.err = fmt.Errorf("data.%s is missing or not an integer", name)
	}
	return int64(f)
}

func (r *fieldReader) object(name string) map[string]any {
	m, ok := r.data[name].(map[string]any)
	if !ok && r.err == nil {
		r.err = fmt.Errorf("data.%s is missing or not an object", name)
	}
	return m
}

func (r *fieldReader) genesis() string {
	g, err := GenesisFromEither(r.str("genesis"))
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("data.genesis: %v", err)
	}
	return g
}
