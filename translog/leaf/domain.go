package leaf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// KindDomain is the kind of a domain-binding leaf: a namespace gained or lost a verified
// domain (docs/transparency-log.md, "Domain leaves"). The store queues it in the transaction
// that changes the binding (store/domainleaves.go).
const KindDomain = "domain"

// The changes a domain leaf records.
const (
	DomainGained = "gained"
	DomainLost   = "lost"
)

// The methods by which a namespace holds a domain (the verification_method of the publish
// side, docs/api-guide.md): verified itself over DNS or HTTP, or delegated by the domain's
// self-verified holder.
const (
	MethodSelfDNS   = "self_dns"
	MethodSelfHTTP  = "self_http"
	MethodDelegated = "request_other_namespace"
)

// DomainLeaf is the log leaf of a domain binding's change: at Time, namespace NamespaceID
// gained (or lost) the verified domain Domain, held by Method.
type DomainLeaf struct {
	Domain      string `json:"domain"` // normalized: lowercase, punycode, no trailing dot
	NamespaceID string `json:"namespace_id"`
	Method      string `json:"method"` // MethodSelfDNS, MethodSelfHTTP or MethodDelegated
	Change      string `json:"change"` // DomainGained or DomainLost
	Time        string `json:"time"`   // UTC with milliseconds, as toISOString writes it: 2026-11-27T20:00:00.000Z
}

// NewDomainLeaf returns the leaf of a binding's change at t, checked (Check).
func NewDomainLeaf(domain, namespaceID, method, change string, t time.Time) (DomainLeaf, error) {
	l := DomainLeaf{Domain: domain, NamespaceID: namespaceID, Method: method, Change: change, Time: DomainTime(t)}
	return l, l.Check()
}

// DomainTime writes t as a domain leaf's time: UTC, milliseconds, a Z.
func DomainTime(t time.Time) string { return t.UTC().Format(domainTimeLayout) }

const domainTimeLayout = "2006-01-02T15:04:05.000Z"

// Canonical returns the leaf text: RFC 8785 canonical JSON of {kind "domain", change, domain,
// method, namespace_id, time}. It fails on a field that is not valid UTF-8.
func (l DomainLeaf) Canonical() ([]byte, error) {
	// Members in RFC 8785 order: change, domain, kind, method, namespace_id, time.
	w := jsonWriter{b: make([]byte, 0, 192)}
	w.b = append(w.b, '{')
	w.member("change", l.Change)
	w.member("domain", l.Domain)
	w.member("kind", KindDomain)
	w.member("method", l.Method)
	w.member("namespace_id", l.NamespaceID)
	w.member("time", l.Time)
	w.b = append(w.b, '}')
	if w.bad != "" {
		return nil, fmt.Errorf("leaf: %s of the domain leaf of %q is not valid UTF-8", w.bad, l.Domain)
	}
	return w.b, nil
}

// Check reports the first field of l that a domain leaf may not hold: an empty or
// unnormalized domain (not lowercase ASCII letters, digits, '-' and '.', with a dot, no empty
// label, no trailing dot), an empty namespace_id, an unknown method or change, or a time not
// in the form DomainTime writes.
func (l DomainLeaf) Check() error {
	if !normalDomain(l.Domain) {
		return failf("domain leaf: domain %q is not a normalized domain (lowercase, punycode, a dot, no trailing dot)", l.Domain)
	}
	if l.NamespaceID == "" {
		return failf("domain leaf of %q: namespace_id is empty", l.Domain)
	}
	switch l.Method {
	case MethodSelfDNS, MethodSelfHTTP, MethodDelegated:
	default:
		return failf("domain leaf of %q: method %q is not one of %s, %s, %s", l.Domain, l.Method, MethodSelfDNS, MethodSelfHTTP, MethodDelegated)
	}
	if l.Change != DomainGained && l.Change != DomainLost {
		return failf("domain leaf of %q: change %q is not %s or %s", l.Domain, l.Change, DomainGained, DomainLost)
	}
	if t, err := time.Parse(domainTimeLayout, l.Time); err != nil || DomainTime(t) != l.Time {
		return failf("domain leaf of %q: time %q is not UTC with milliseconds (2026-11-27T20:00:00.000Z)", l.Domain, l.Time)
	}
	return nil
}

// normalDomain reports whether d has the form of a normalized domain (DECISIONS §8): ASCII
// lowercase letters, digits and '-', labels of 1 to 63 characters joined by dots, at least two
// labels, at most 253 characters, no label starting or ending with '-'.
func normalDomain(d string) bool {
	if len(d) == 0 || len(d) > 253 {
		return false
	}
	labels, start := 0, 0
	for i := 0; i <= len(d); i++ {
		if i < len(d) && d[i] != '.' {
			c := d[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		label := d[start:i]
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		labels++
		start = i + 1
	}
	return labels >= 2
}

// ParseDomain parses a domain leaf and checks it: kind domain, no other members, the fields
// as Check wants them, and the text byte for byte as Canonical writes it.
func ParseDomain(text []byte) (DomainLeaf, error) {
	var raw struct {
		Kind        string `json:"kind"`
		Change      string `json:"change"`
		Domain      string `json:"domain"`
		Method      string `json:"method"`
		NamespaceID string `json:"namespace_id"`
		Time        string `json:"time"`
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return DomainLeaf{}, failf("domain leaf %q: %v", text, err)
	}
	if raw.Kind != KindDomain {
		return DomainLeaf{}, failf("leaf %q is not a %s leaf", text, KindDomain)
	}
	l := DomainLeaf{Domain: raw.Domain, NamespaceID: raw.NamespaceID, Method: raw.Method, Change: raw.Change, Time: raw.Time}
	if err := l.Check(); err != nil {
		return DomainLeaf{}, err
	}
	canon, err := l.Canonical()
	if err != nil || !bytes.Equal(canon, text) {
		return DomainLeaf{}, failf("leaf %q is not a canonical domain leaf", text)
	}
	return l, nil
}
