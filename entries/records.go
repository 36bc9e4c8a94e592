package entries

import (
	"context"
	"errors"
	"strings"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
)

// recordsRegistry reads and locks the registry whose records a write changes, authorizes the
// caller (the namespace's owner or a delegate, or a delegate of the registry), requires it to
// be live, and returns it with its compiled schema.
func (s *Service) recordsRegistry(tx *store.Tx, c Caller, ref, name string) (store.RegistryAccess, *recordschema.Schema, error) {
	a, err := registryForWrite(tx, c, ref, name, directory.Access.WriteRecords)
	if err != nil {
		return a, nil, err
	}
	if err := directory.RegistryWritable(a.State); err != nil {
		return a, nil, err
	}
	schema, err := s.schemas.GetText(a.RegistryID, a.Schema)
	if err != nil {
		return a, nil, err
	}
	return a, schema, nil
}

// checkDetails applies the registry's schema to a record's details (at names the record of a
// batch); their size limit (directory.MaxDetails) is checked where they are sealed.
func checkDetails(schema *recordschema.Schema, details map[string]any, at string) error {
	if err := schema.Validate(details); err != nil {
		return directory.Invalid.With("%s%v", at, err)
	}
	return nil
}

// checkNativeName applies the native name rule (directory.CheckNativeName) to an entry named
// through the API: only the crawler names entries otherwise, in origin-hosted namespaces.
func checkNativeName(kind, name, at string) error {
	if err := directory.CheckNativeName(name); err != nil {
		var ve *directory.Error
		if errors.As(err, &ve) {
			return directory.Invalid.With("%s%s name: %s", at, kind, strings.TrimPrefix(ve.Message, "Invalid input: "))
		}
		return err
	}
	return nil
}

// AddRecord adds one record to a live registry; the answer is the version it wrote.
func (s *Service) AddRecord(ctx context.Context, c Caller, ref, registry string, in directory.RecordInput) (directory.Record, error) {
	var out directory.Record
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, schema, err := s.recordsRegistry(tx, c, ref, registry)
		if err != nil {
			return err
		}
		if err := checkNativeName("record", in.RecordName, ""); err != nil {
			return err
		}
		if err := checkDetails(schema, in.Details, ""); err != nil {
			return err
		}
		recs, err := directory.NewRecords(a.SealedRegistry, c.DID, []directory.RecordInput{in}, tx.Stamp(), false)
		if err != nil {
			return err
		}
		if err := tx.InsertRecords(recs); err != nil {
			return err
		}
		out, err = a.RecordOf(recs[0])
		return err
	})
	return out, err
}

// AddRecords adds up to directory.MaxBatch records to a live registry: all or none. A refused
// record is named as records[i] (name).
func (s *Service) AddRecords(ctx context.Context, c Caller, ref, registry string, in []directory.RecordInput) ([]directory.AddedRecord, error) {
	var out []directory.AddedRecord
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, schema, err := s.recordsRegistry(tx, c, ref, registry)
		if err != nil {
			return err
		}
		for i, r := range in {
			if err := checkNativeName("record", r.RecordName, batchAt(i, r.RecordName)); err != nil {
				return err
			}
			if err := checkDetails(schema, r.Details, batchAt(i, r.RecordName)); err != nil {
				return err
			}
		}
		recs, err := directory.NewRecords(a.SealedRegistry, c.DID, in, tx.Stamp(), true)
		if err != nil {
			return err
		}
		if err := tx.InsertRecords(recs); err != nil {
			return err
		}
		out = store.Added(recs)
		return nil
	})
	return out, err
}

// UpdateRecord makes a new version of a record of a live registry with the patch applied (or
// its state changed by p.Action); ifMatch as for UpdateNamespace. The answer is the version
// this call wrote, or found when p changes nothing.
func (s *Service) UpdateRecord(ctx context.Context, c Caller, ref, registry, record, ifMatch string, p directory.RecordPatch) (directory.Record, error) {
	var out directory.Record
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, schema, err := s.recordsRegistry(tx, c, ref, registry)
		if err != nil {
			return err
		}
		if p.Details != nil {
			if err := checkDetails(schema, p.Details, ""); err != nil {
				return err
			}
		}
		r, err := tx.RecordForWrite(a.RegistryID, record)
		if err != nil {
			return err
		}
		if directory.Gone(r.State) {
			return directory.NotFound(directory.MissingRecord, record)
		}
		if err := stale(ifMatch, r.Version); err != nil {
			return err
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

// RecordsRegistry authorizes a write of the registry's records by the caller and returns the
// registry, which must be live, for the operations whose writes are their own workflows' (a CSV
// import queues a job that adds the records later).
func (s *Service) RecordsRegistry(ctx context.Context, c Caller, ref, name string) (directory.Registry, error) {
	var out directory.Registry
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, _, err := s.recordsRegistry(tx, c, ref, name)
		if err != nil {
			return err
		}
		out, err = a.Registry()
		return err
	})
	return out, err
}

// PublishRecords publishes up to directory.MaxBatch drafts of a live registry, named by their
// record names: all or none, every refused record named. The answer is the versions written.
func (s *Service) PublishRecords(ctx context.Context, c Caller, ref, registry string, names []string) ([]directory.AddedRecord, error) {
	var out []directory.AddedRecord
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, _, err := s.recordsRegistry(tx, c, ref, registry)
		if err != nil {
			return err
		}
		if len(names) == 0 || len(names) > directory.MaxBatch {
			_, _, err := directory.PublishDrafts(names, nil, tx.Stamp())
			return err
		}
		heads, err := tx.RecordsForWrite(a.RegistryID, names)
		if err != nil {
			return err
		}
		prev, next, err := directory.PublishDrafts(names, heads, tx.Stamp())
		if err != nil {
			return err
		}
		if err := tx.PublishRecords(prev, next); err != nil {
			return err
		}
		out = store.Added(next)
		return nil
	})
	return out, err
}

// SaveRecordAsDraft adds one record to a live registry as a draft (directory.AsDraft).
func (s *Service) SaveRecordAsDraft(ctx context.Context, c Caller, ref, registry string, in directory.RecordInput) (directory.Record, error) {
	in, err := directory.AsDraft(in)
	if err != nil {
		return directory.Record{}, err
	}
	return s.AddRecord(ctx, c, ref, registry, in)
}
