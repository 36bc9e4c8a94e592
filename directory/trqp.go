package directory

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// The Trust Registry Query Protocol's declarations and decisions (docs/trqp.md).
//
// A registry declares in its meta, under TRQPKey, which (action, resource) pairs it answers for
// POST /authorization and POST /recognition, its polarity, and how an entity_id is matched; a
// namespace declares there its governance framework URL. Both are part of the entry's meta, so
// they are digested, versioned and logged like any change.

// TRQPKey is the member of a registry's or a namespace's meta that holds its TRQP declaration.
const TRQPKey = "trqp"

// The values of a declaration's polarity and entity.
const (
	TRQPPositive    = "positive"
	TRQPNegative    = "negative"
	TRQPRecordName  = "record_name"
	TRQPDetailsPath = "details."
)

// TRQPPair is an (action, resource) pair a registry answers.
type TRQPPair struct{ Action, Resource string }

// TRQPDeclaration is a registry's meta.trqp, checked (ParseRegistryTRQP).
type TRQPDeclaration struct {
	Authorizations, Recognitions []TRQPPair
	Negative                     bool
	// Entity is "record_name" or "details." followed by a dot path.
	Entity string
}

// DetailsPath is the dot path of details an entity_id is matched against, nil when it is matched
// against the record's name.
func (d TRQPDeclaration) DetailsPath() []string {
	if d.Entity == TRQPRecordName {
		return nil
	}
	return strings.Split(strings.TrimPrefix(d.Entity, TRQPDetailsPath), ".")
}

// Pairs are the pairs of the query kind (recognition: the recognitions, else the authorizations).
func (d TRQPDeclaration) Pairs(recognition bool) []TRQPPair {
	if recognition {
		return d.Recognitions
	}
	return d.Authorizations
}

// maxTRQPText bounds an action, resource or path of a declaration.
const maxTRQPText = 256

// ParseRegistryTRQP reads a registry meta's TRQP declaration: nil when the meta has none; an
// Invalid refusal naming what is wrong when it is malformed.
func ParseRegistryTRQP(meta map[string]any) (*TRQPDeclaration, error) {
	raw, ok := meta[TRQPKey]
	if !ok {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, Invalid.With("meta.trqp must be an object")
	}
	d := &TRQPDeclaration{Entity: TRQPRecordName}
	for k, v := range m {
		var err error
		switch k {
		case "authorizations":
			d.Authorizations, err = trqpPairs(k, v)
		case "recognitions":
			d.Recognitions, err = trqpPairs(k, v)
		case "polarity":
			switch v {
			case TRQPPositive:
			case TRQPNegative:
				d.Negative = true
			default:
				err = Invalid.With("meta.trqp.polarity must be %q or %q", TRQPPositive, TRQPNegative)
			}
		case "entity":
			s, _ := v.(string)
			if d.Entity, err = trqpEntity(s); err != nil {
				return nil, err
			}
		case "governance_framework":
			err = Invalid.With("meta.trqp.governance_framework belongs in the namespace's meta, not a registry's")
		default:
			err = Invalid.With("meta.trqp.%s is not a known member (authorizations, recognitions, polarity, entity)", k)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(d.Authorizations) == 0 && len(d.Recognitions) == 0 {
		return nil, Invalid.With("meta.trqp declares no pair: give authorizations or recognitions")
	}
	return d, nil
}

func trqpEntity(s string) (string, error) {
	if s == TRQPRecordName {
		return s, nil
	}
	path, ok := strings.CutPrefix(s, TRQPDetailsPath)
	if !ok || path == "" || len(s) > maxTRQPText || slices.Contains(strings.Split(path, "."), "") {
		return "", Invalid.With("meta.trqp.entity must be %q or %q followed by a dot path (e.g. details.did)", TRQPRecordName, TRQPDetailsPath)
	}
	return s, nil
}

func trqpPairs(key string, v any) ([]TRQPPair, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, Invalid.With("meta.trqp.%s must be an array of {action, resource} objects", key)
	}
	out := make([]TRQPPair, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok || len(m) != 2 {
			return nil, Invalid.With("meta.trqp.%s[%d] must be an object with exactly action and resource", key, i)
		}
		a, _ := m["action"].(string)
		r, _ := m["resource"].(string)
		if a == "" || r == "" || len(a) > maxTRQPText || len(r) > maxTRQPText {
			return nil, Invalid.With("meta.trqp.%s[%d]: action and resource must be non-empty strings of at most %d bytes", key, i, maxTRQPText)
		}
		p := TRQPPair{a, r}
		if slices.Contains(out, p) {
			return nil, Invalid.With("meta.trqp.%s[%d]: the pair (%s, %s) appears twice", key, i, a, r)
		}
		out = append(out, p)
	}
	return out, nil
}

// ParseNamespaceTRQP reads a namespace meta's TRQP declaration, its governance framework URL:
// "" when the meta has none; an Invalid refusal when it is malformed.
func ParseNamespaceTRQP(meta map[string]any) (string, error) {
	raw, ok := meta[TRQPKey]
	if !ok {
		return "", nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return "", Invalid.With("meta.trqp must be an object")
	}
	gf := ""
	for k, v := range m {
		if k != "governance_framework" {
			return "", Invalid.With("meta.trqp.%s is not a known member of a namespace's declaration (governance_framework)", k)
		}
		s, _ := v.(string)
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(s) > 2048 {
			return "", Invalid.With("meta.trqp.governance_framework must be an http or https URL")
		}
		gf = s
	}
	return gf, nil
}

// TRQPConflict refuses a registry's declaration d that declares a pair another registry of its
// namespace already declares (others: their names and declarations).
func TRQPConflict(d *TRQPDeclaration, others map[string]*TRQPDeclaration) error {
	if d == nil {
		return nil
	}
	names := make([]string, 0, len(others))
	for n := range others {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := others[n]
		if o == nil {
			continue
		}
		for _, k := range []struct {
			word string
			rec  bool
		}{{"authorizations", false}, {"recognitions", true}} {
			for _, p := range d.Pairs(k.rec) {
				if slices.Contains(o.Pairs(k.rec), p) {
					return Conflict.With("registry %s already declares the pair (%s, %s) in its meta.trqp.%s", n, p.Action, p.Resource, k.word)
				}
			}
		}
	}
	return nil
}

// TRQPDecision is the answer of a declared registry to one entity at one instant.
type TRQPDecision struct {
	Yes     bool
	Message string
}

// DecideTRQP answers for a registry declared by d, whose version in effect at the instant is
// registryState (originState: the state of its publisher's file when it is origin-hosted, else
// ""), and the entity's record version in effect then (nil: the registry does not list the
// entity, or lists it only as a draft). The rules of docs/trqp.md, Polarity.
func DecideTRQP(d TRQPDeclaration, registryState, originState string, rec *Record, at time.Time) TRQPDecision {
	switch {
	case registryState != StateLive:
		return TRQPDecision{false, fmt.Sprintf("the registry is %s", registryState)}
	case originState == StateStale || originState == StateWithdrawn:
		return TRQPDecision{false, fmt.Sprintf("the registry's publisher file is %s", originState)}
	}
	listed := rec != nil && rec.State != StateDraft
	state := ""
	if listed {
		r := *rec
		r.RegistryState, r.OriginState = registryState, originState
		state = r.EffectiveState(at)
	}
	if d.Negative {
		if listed && state == StateLive {
			return TRQPDecision{false, "listed as revoked"}
		}
		if !listed {
			return TRQPDecision{true, "not listed"}
		}
		return TRQPDecision{true, "the listing is " + state}
	}
	switch state {
	case "":
		return TRQPDecision{false, "not listed"}
	case StateLive:
		return TRQPDecision{true, "listed and live"}
	}
	return TRQPDecision{false, "the record is " + state}
}

// DetailsValue is the string at path in details ("" and false when there is none, or it is not a
// string).
func DetailsValue(details map[string]any, path []string) (string, bool) {
	var v any = details
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		v = m[k]
	}
	s, ok := v.(string)
	return s, ok
}
