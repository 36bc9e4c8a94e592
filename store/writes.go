package store

import (
	"context"

	"github.com/svc-directory/svc/directory"
)

// Writes composed of the entry tables' own, each in one transaction, for the callers that act
// on the directory's behalf and need no authorization: the CSV importer (jobs.go), the
// verification workflow's attestations, the seeds of benchmarks, and the store's tests. The
// service's own operations, which authorize their caller, are package entries'.

// CreateNamespace creates a namespace owned by owner, its first version and the owner's
// membership, in one transaction.
func (s *Store) CreateNamespace(ctx context.Context, owner User, creatorDID string, in directory.NamespaceInput) (directory.Namespace, error) {
	var n directory.SealedNamespace
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		if n, err = directory.NewNamespace(owner.ID, creatorDID, in, tx.Stamp()); err != nil {
			return err
		}
		return tx.InsertNamespace(n)
	})
	if err != nil {
		return directory.Namespace{}, err
	}
	return n.Namespace("", 0)
}

// UpdateNamespace makes a new version with the patch applied. ifMatch, when not empty, must be
// the current version (else ErrStaleVersion, nothing written). A patch that changes nothing
// returns the current version without making a new one.
func (s *Store) UpdateNamespace(ctx context.Context, namespaceID, ifMatch string, p directory.NamespacePatch) (directory.Namespace, error) {
	var out NamespaceAccess
	err := s.InTx(ctx, func(tx *Tx) error {
		a, err := tx.NamespaceForWrite(namespaceID, Principal{}, true)
		if err != nil {
			return err
		}
		out = a
		if ifMatch != "" && ifMatch != a.Version {
			return directory.ErrStaleVersion
		}
		next, changed, err := a.SealedNamespace.Next(p, tx.Stamp())
		if err != nil || !changed {
			return err
		}
		out.SealedNamespace = next
		return tx.UpdateNamespace(a.SealedNamespace, next)
	})
	if err != nil {
		return directory.Namespace{}, err
	}
	return out.Namespace()
}

// CreateRegistry creates a live registry in the namespace and counts it on the namespace.
func (s *Store) CreateRegistry(ctx context.Context, namespaceID, creatorDID string, in directory.RegistryInput) (directory.Registry, error) {
	var out directory.Registry
	err := s.InTx(ctx, func(tx *Tx) error {
		g, name, err := tx.CreateRegistry(namespaceID, creatorDID, in)
		if err != nil {
			return err
		}
		out, err = g.Registry(name, 0)
		return err
	})
	return out, err
}

// CreateRegistry creates a live registry in the namespace in the transaction; it returns the
// registry's first version and the namespace's name.
func (t *Tx) CreateRegistry(namespaceID, creatorDID string, in directory.RegistryInput) (directory.SealedRegistry, string, error) {
	name, err := t.CountRegistry(namespaceID)
	if err != nil {
		return directory.SealedRegistry{}, "", err
	}
	g, err := directory.NewRegistry(namespaceID, creatorDID, in, t.Stamp())
	if err != nil {
		return g, "", err
	}
	return g, name, t.InsertRegistry(g)
}

// UpdateRegistry makes a new version with the patch applied (ifMatch as for UpdateNamespace).
func (s *Store) UpdateRegistry(ctx context.Context, namespaceID, name, ifMatch string, p directory.RegistryPatch) (directory.Registry, error) {
	var out RegistryAccess
	err := s.InTx(ctx, func(tx *Tx) error {
		a, err := tx.RegistryForWrite(namespaceID, name, Principal{})
		if err != nil {
			return err
		}
		out = a
		if ifMatch != "" && ifMatch != a.Version {
			return directory.ErrStaleVersion
		}
		next, changed, err := a.SealedRegistry.Next(p, tx.Stamp())
		if err != nil || !changed {
			return err
		}
		out.SealedRegistry = next
		return tx.UpdateRegistry(a.SealedRegistry, next)
	})
	if err != nil {
		return directory.Registry{}, err
	}
	return out.Registry()
}

// AddRecords adds up to directory.MaxBatch records to a live registry in one transaction: all
// or none.
func (s *Store) AddRecords(ctx context.Context, namespaceID, registryName, creatorDID string, in []directory.RecordInput) ([]directory.AddedRecord, error) {
	var out []directory.AddedRecord
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		out, err = tx.AddRecords(namespaceID, registryName, Principal{}, creatorDID, in)
		return err
	})
	return out, err
}

// AddRecords adds records to a live registry in the transaction (as Store.AddRecords), for by:
// a user who must still write the registry's records when it is locked (a CSV job's owner), or
// the directory itself (Principal{}).
func (t *Tx) AddRecords(namespaceID, registryName string, by Principal, creatorDID string, in []directory.RecordInput) ([]directory.AddedRecord, error) {
	a, err := t.RegistryForWrite(namespaceID, registryName, by)
	if err != nil {
		return nil, err
	}
	if by.UserID != "" {
		if err := a.WriteRecords(); err != nil {
			return nil, err
		}
	}
	recs, err := t.addRecords(a.SealedRegistry, creatorDID, in, true)
	if err != nil {
		return nil, err
	}
	return Added(recs), nil
}

// AddRecordsTo seals and inserts new records of the live registry g, whose row the transaction
// holds (RegistryForWrite, or made in it); a refused record is named as records[i] (name).
func (t *Tx) AddRecordsTo(g directory.SealedRegistry, creatorDID string, in []directory.RecordInput) ([]directory.SealedRecord, error) {
	return t.addRecords(g, creatorDID, in, true)
}

// addRecords seals and inserts new records of the registry g, whose row the transaction holds.
func (t *Tx) addRecords(g directory.SealedRegistry, creatorDID string, in []directory.RecordInput, batch bool) ([]directory.SealedRecord, error) {
	if err := directory.RegistryWritable(g.State); err != nil {
		return nil, err
	}
	recs, err := directory.NewRecords(g, creatorDID, in, t.Stamp(), batch)
	if err != nil {
		return nil, err
	}
	return recs, t.InsertRecords(recs)
}

// Added is what add-records answers of the records it wrote.
func Added(recs []directory.SealedRecord) []directory.AddedRecord {
	out := make([]directory.AddedRecord, len(recs))
	for i, r := range recs {
		out[i] = directory.AddedRecord{RecordName: r.RecordName, RecordID: r.RecordID, Digest: r.Digest, Version: r.Version}
	}
	return out
}

// AddRecord adds one record to a live registry and returns it as a lookup of the version it
// wrote shows it.
func (s *Store) AddRecord(ctx context.Context, namespaceID, registryName, creatorDID string, in directory.RecordInput) (directory.Record, error) {
	var out directory.Record
	err := s.InTx(ctx, func(tx *Tx) error {
		a, err := tx.RegistryForWrite(namespaceID, registryName, Principal{})
		if err != nil {
			return err
		}
		recs, err := tx.addRecords(a.SealedRegistry, creatorDID, []directory.RecordInput{in}, false)
		if err != nil {
			return err
		}
		out, err = a.RecordOf(recs[0])
		return err
	})
	return out, err
}

// UpdateRecord makes a new version of a record of a live registry (ifMatch as for
// UpdateNamespace); the answer is the version this call wrote (or found).
func (s *Store) UpdateRecord(ctx context.Context, namespaceID, registryName, recordName, ifMatch string, p directory.RecordPatch) (directory.Record, error) {
	var out directory.Record
	err := s.InTx(ctx, func(tx *Tx) error {
		a, err := tx.RegistryForWrite(namespaceID, registryName, Principal{})
		if err != nil {
			return err
		}
		if err := directory.RegistryWritable(a.State); err != nil {
			return err
		}
		r, err := tx.RecordForWrite(a.RegistryID, recordName)
		if err != nil {
			return err
		}
		if ifMatch != "" && ifMatch != r.Version {
			return directory.ErrStaleVersion
		}
		next, changed, err := r.Next(p, tx.Stamp())
		if err != nil {
			return err
		}
		if changed {
			if err := tx.UpdateRecord(r, next); err != nil {
				return err
			}
		}
		out, err = a.RecordOf(next)
		return err
	})
	return out, err
}
