package entries

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

// Delete and restore (directory/deleted.go): each writes new versions in one transaction, after
// the caller is authorized (a namespace: its owner; a registry: the namespace's owner or a
// delegate; records: they, or a delegate of the registry).

// Deleted is what a delete or a restore of a namespace or a registry wrote: the new version, and
// how many registries and public records it hid (or showed again) under it.
type Deleted struct {
	Namespace  directory.Namespace
	Registry   directory.Registry
	Registries int64
	Records    int64
}

// RecordRef names a record of restore/records.
type RecordRef struct {
	Namespace, Registry, Record string
}

// DeleteNamespace writes the tombstone of the namespace (by id or verified domain) for its
// owner, and releases its verified domain.
func (s *Service) DeleteNamespace(ctx context.Context, c Caller, ref, reason string) (Deleted, error) {
	if err := directory.CheckReason(reason); err != nil {
		return Deleted{}, err
	}
	return s.namespaceDelete(ctx, c, ref, directory.ActionDelete, reason)
}

// RestoreNamespace writes a new live version of the deleted namespace (by id: its domain was
// released), for its owner.
func (s *Service) RestoreNamespace(ctx context.Context, c Caller, namespaceID string) (Deleted, error) {
	return s.namespaceDelete(ctx, c, namespaceID, directory.ActionUndelete, "")
}

func (s *Service) namespaceDelete(ctx context.Context, c Caller, ref string, action directory.Action, reason string) (Deleted, error) {
	var out Deleted
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := tx.NamespaceForWrite(ref, c.principal(), true)
		if err != nil {
			return err
		}
		if err := a.Access.WriteNamespace(true); err != nil {
			return err
		}
		next, err := a.SealedNamespace.Delete(action, tx.Stamp())
		if err != nil {
			return err
		}
		if out.Registries, out.Records, err = tx.DeleteNamespace(a.SealedNamespace, next, a.Domain, reason); err != nil {
			return err
		}
		domain := a.Domain
		if action == directory.ActionDelete {
			domain = ""
		}
		out.Namespace, err = next.Namespace(domain, a.RegistryCount)
		return err
	})
	return out, err
}

// DeleteRegistry writes the tombstone of the registry, which hides its records.
func (s *Service) DeleteRegistry(ctx context.Context, c Caller, ref, name, reason string) (Deleted, error) {
	if err := directory.CheckReason(reason); err != nil {
		return Deleted{}, err
	}
	return s.registryDelete(ctx, c, ref, name, directory.ActionDelete, reason)
}

// RestoreRegistry writes a new live version of the deleted registry of a namespace that is not
// deleted (ErrParentDeleted), which shows its records again (those deleted before it stay so).
func (s *Service) RestoreRegistry(ctx context.Context, c Caller, namespaceID, name string) (Deleted, error) {
	return s.registryDelete(ctx, c, namespaceID, name, directory.ActionUndelete, "")
}

func (s *Service) registryDelete(ctx context.Context, c Caller, ref, name string, action directory.Action, reason string) (Deleted, error) {
	var out Deleted
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := registryWithDeleted(tx, c, ref, name, directory.Access.WriteRegistry, action)
		if err != nil {
			return err
		}
		next, changed, err := a.SealedRegistry.Next(directory.RegistryPatch{Action: action}, tx.Stamp())
		if err != nil {
			return err
		}
		if !changed {
			return fmt.Errorf("%s of registry %s changed nothing", action, name)
		}
		if out.Records, err = tx.DeleteRegistry(a.SealedRegistry, next, reason); err != nil {
			return err
		}
		a.SealedRegistry = next
		out.Registry, err = a.Registry()
		return err
	})
	return out, err
}

// registryWithDeleted reads and locks the registry a delete or restore (action) names, deleted
// or not, and authorizes the caller with allow; its namespace must not be deleted (to a delete it
// is missing; a restore is ErrParentDeleted).
func registryWithDeleted(tx *store.Tx, c Caller, ref, name string, allow func(directory.Access) error, action directory.Action) (store.RegistryAccess, error) {
	a, err := tx.RegistryForWrite(ref, name, c.principal())
	if denied := allow(a.Access); denied != nil {
		return a, denied
	}
	switch {
	case err != nil:
		return a, err
	case action == directory.ActionDelete && directory.Gone(a.NamespaceState):
		return a, directory.NotFound(directory.MissingNamespace, ref)
	}
	return a, directory.RestoreUnder("registry", "namespace", a.NamespaceState)
}

// DeleteRecords writes the tombstones of up to directory.MaxBatch records of a registry, all
// or none (directory.ChangeRecords names every record it refuses).
func (s *Service) DeleteRecords(ctx context.Context, c Caller, ref, registry string, names []string, reason string) ([]directory.Record, error) {
	if err := directory.CheckReason(reason); err != nil {
		return nil, err
	}
	var out []directory.Record
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := registryForWrite(tx, c, ref, registry, directory.Access.WriteRecords)
		if err != nil {
			return err
		}
		if err := directory.RegistryWritable(a.State); err != nil {
			return err
		}
		out, err = changeRecords(tx, a, names, directory.ActionDelete, reason)
		return err
	})
	return out, err
}

// RestoreRecords writes new live versions of up to directory.MaxBatch deleted records, named
// by namespace id, registry and record name; their registries and namespaces must not be
// deleted (ErrParentDeleted). All are restored, or none.
func (s *Service) RestoreRecords(ctx context.Context, c Caller, refs []RecordRef) ([]directory.Record, error) {
	if len(refs) == 0 || len(refs) > directory.MaxBatch {
		return nil, directory.Invalid.With("records holds 1 to %d records, got %d", directory.MaxBatch, len(refs))
	}
	type key struct{ ns, reg string }
	var order []key
	names := map[key][]string{}
	for _, r := range refs {
		k := key{r.Namespace, r.Registry}
		if _, ok := names[k]; !ok {
			order = append(order, k)
		}
		names[k] = append(names[k], r.Record)
	}
	var out []directory.Record
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		for _, k := range order {
			a, err := registryWithDeleted(tx, c, k.ns, k.reg, directory.Access.WriteRecords, directory.ActionUndelete)
			if err != nil {
				return err
			}
			if err := directory.RestoreUnder("record", "registry", a.State); err != nil {
				return err
			}
			if err := directory.RegistryWritable(a.State); err != nil {
				return err
			}
			recs, err := changeRecords(tx, a, names[k], directory.ActionUndelete, "")
			if err != nil {
				return err
			}
			out = append(out, recs...)
		}
		return nil
	})
	return out, err
}

// changeRecords deletes or restores the named records of the registry a (read and locked).
func changeRecords(tx *store.Tx, a store.RegistryAccess, names []string, action directory.Action, reason string) ([]directory.Record, error) {
	var heads map[string]directory.SealedRecord
	if len(names) > 0 && len(names) <= directory.MaxBatch {
		var err error
		if heads, err = tx.RecordsForWrite(a.RegistryID, names); err != nil {
			return nil, err
		}
	}
	prev, next, err := directory.ChangeRecords(names, heads, action, tx.Stamp())
	if err != nil {
		return nil, err
	}
	if err := tx.DeleteRecords(prev, next, reason); err != nil {
		return nil, err
	}
	out := make([]directory.Record, len(next))
	for i, n := range next {
		if out[i], err = a.RecordOf(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}
