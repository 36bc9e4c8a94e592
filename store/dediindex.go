// The writes that index an accepted DeDi file as read-only data of an origin-hosted namespace
// (docs/dedi-files.md, "The server's side"). Which versions to make is package dedi/ingest's;
// the versions themselves are made by the store's usual writes (writes.go), so that they are
// sealed, counted and logged like every public version.

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/translog/leaf"
)

// ErrOriginConflict refuses to index a publisher whose domain a local namespace has verified.
var ErrOriginConflict = directory.Conflict.With("the domain is verified by a local namespace: its DeDi files are not ingested")

// OriginNamespace returns the namespace of the publisher domain, creating it (owned by
// ownerID, named and addressed by the domain) on the first accepted file, or taking back the
// one indexed from the domain before (a publisher removed and added again). A domain that a
// namespace of another owner holds (a local namespace verified it) is ErrOriginConflict. A new
// namespace's binding to the domain is logged (a domain leaf, self_http).
func (t *Tx) OriginNamespace(domain, ownerID, creatorDID string) (string, error) {
	var rows []dediPublisherRow
	if err := t.db.Raw(`SELECT * FROM dedi_publishers WHERE domain = ?`+t.s.d.forUpdate(), domain).Scan(&rows).Error; err != nil {
		return "", translate(err, "publisher")
	}
	if len(rows) == 0 {
		return "", fmt.Errorf("DeDi publisher %q: %w", domain, directory.ErrNotFound)
	}
	var holders []RowNamespace
	if err := t.db.Where("domain = ?", domain).Limit(1).Find(&holders).Error; err != nil {
		return "", translate(err, "domain holder")
	}
	if len(holders) > 0 {
		h := holders[0]
		if h.OwnerID != ownerID {
			return "", ErrOriginConflict
		}
		if deref(rows[0].NamespaceID) != h.NamespaceID {
			err := t.db.Exec(`UPDATE dedi_publishers SET namespace_id = ? WHERE domain = ?`, h.NamespaceID, domain).Error
			originsChanged(t.db)
			return h.NamespaceID, translate(err, "publisher namespace")
		}
		return h.NamespaceID, nil
	}
	n, err := directory.NewNamespace(ownerID, creatorDID, directory.NamespaceInput{Name: domain,
		Description: "Published by " + domain + " as DeDi files, served as received"}, t.Stamp())
	if err != nil {
		return "", err
	}
	if err := t.InsertNamespace(n); err != nil {
		return "", err
	}
	res := t.db.Exec(`UPDATE namespaces SET domain = ? WHERE namespace_id = ? AND domain IS NULL`, domain, n.NamespaceID)
	if err := translate(res.Error, "origin domain"); err != nil {
		if directory.IsConflict(err) {
			return "", ErrOriginConflict
		}
		return "", err
	}
	// The namespace holds the domain by the publisher's own files, served by the domain over
	// HTTPS: its binding is logged as held over HTTP (docs/transparency-log.md, "Domain leaves").
	t.logDomainChange(n.NamespaceID, domain, MethodSelfHTTP, leaf.DomainGained)
	err = t.db.Exec(`UPDATE dedi_publishers SET namespace_id = ? WHERE domain = ?`, n.NamespaceID, domain).Error
	originsChanged(t.db)
	return n.NamespaceID, translate(err, "publisher namespace")
}

// OriginRegistry reads and locks the registry of an origin-hosted namespace; found is false
// when it is not there yet.
func (t *Tx) OriginRegistry(namespaceID, name string) (g directory.SealedRegistry, found bool, err error) {
	a, err := t.RegistryForWrite(namespaceID, name, Principal{})
	var nf *directory.NotFoundError
	if errors.As(err, &nf) && nf.Missing == directory.MissingRegistry {
		return g, false, nil
	}
	if err != nil {
		return g, false, err
	}
	g = a.SealedRegistry
	g.Meta, err = canonicalAgain(g.Meta) // jsonb on Postgres (RecordHeads)
	return g, err == nil, err
}

// RecordHeads reads the heads of every record of a registry (whose row the transaction holds),
// by name.
func (t *Tx) RecordHeads(registryID string) (map[string]directory.SealedRecord, error) {
	var rows []recHeadRow
	if err := t.db.Raw(`SELECT * FROM records WHERE registry_id = ?`, registryID).Scan(&rows).Error; err != nil {
		return nil, translate(err, "records")
	}
	out := make(map[string]directory.SealedRecord, len(rows))
	for _, r := range rows {
		h := r.sealed(r.CreatedAt, r.UpdatedAt)
		// Postgres keeps JSON objects as jsonb, whose text is not canonical: compared with a
		// next version's, an unchanged object would read as changed.
		var err error
		if h.Details, err = canonicalAgain(h.Details); err != nil {
			return nil, err
		}
		if h.Meta, err = canonicalAgain(h.Meta); err != nil {
			return nil, err
		}
		out[r.RecordName] = h
	}
	return out, nil
}

// IsOriginRef says whether a {namespace} path value (a namespace_id or a domain) names a
// namespace indexed from a DeDi publisher, and returns that publisher's domain.
func IsOriginRef(origins map[string]string, ref string) (string, bool) {
	if d, ok := origins[ref]; ok {
		return d, true
	}
	ref = strings.TrimSuffix(strings.ToLower(ref), ".")
	for _, d := range origins {
		if d == ref {
			return d, true
		}
	}
	return "", false
}

// canonicalAgain is the canonical text (directory.CanonicalText) of stored object text.
func canonicalAgain(text string) (string, error) {
	m, err := directory.DecodeObject(text)
	if err != nil {
		return "", err
	}
	return directory.CanonicalText(m)
}

// DomainHolderOwner returns the namespace holding the verified domain and its owner ("" when
// none).
func (s *Store) DomainHolderOwner(ctx context.Context, domain string) (namespaceID, ownerID string, err error) {
	var rows []RowNamespace
	if err := s.db.WithContext(ctx).Where("domain = ?", domain).Limit(1).Find(&rows).Error; err != nil || len(rows) == 0 {
		return "", "", translate(err, "domain holder")
	}
	return rows[0].NamespaceID, rows[0].OwnerID, nil
}
