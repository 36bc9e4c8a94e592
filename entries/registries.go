package entries

import (
	"context"
	"errors"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
)

// RegistrySchema is a new registry's tag (default custom) and schema: a custom registry gives
// its JSON Schema, which must compile; a standard tag has a built-in one and takes none.
func RegistrySchema(tag string, schema map[string]any) (string, map[string]any, error) {
	if tag == "" {
		tag = directory.TagCustom
	}
	switch {
	case tag == directory.TagCustom && schema == nil:
		return "", nil, directory.Invalid.With("schema is missing (a custom registry needs a JSON Schema for its records' details)")
	case tag != directory.TagCustom && schema != nil:
		return "", nil, directory.Invalid.With("schema must not be given for tag %s, which has a built-in schema", tag)
	case tag != directory.TagCustom:
		schema = recordschema.Builtin(tag)
	}
	if _, err := recordschema.Compile(schema); err != nil {
		return "", nil, directory.Invalid.With("%v", err)
	}
	return tag, schema, nil
}

// CreateRegistry creates a live registry in the namespace (by id or verified domain), for its
// owner or a delegate. in.Tag and in.Schema are checked by RegistrySchema.
func (s *Service) CreateRegistry(ctx context.Context, c Caller, ref string, in directory.RegistryInput) (directory.Registry, error) {
	var out directory.Registry
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := namespaceForWrite(tx, c, ref, false)
		if err != nil {
			return err
		}
		if err := a.Access.WriteNamespace(false); err != nil {
			return err
		}
		if err := checkNativeName("registry", in.RegistryName, ""); err != nil {
			return err
		}
		if in.Tag, in.Schema, err = RegistrySchema(in.Tag, in.Schema); err != nil {
			return err
		}
		if err := checkRegistryTRQP(tx, a.NamespaceID, in.RegistryName, in.Meta); err != nil {
			return err
		}
		g, name, err := tx.CreateRegistry(a.NamespaceID, c.DID, in)
		if err != nil {
			return err
		}
		out, err = g.Registry(name, 0)
		return err
	})
	return out, err
}

// UpdateRegistry makes a new version of the registry with the patch applied (or with its
// state changed by p.Action), for the namespace's owner or a delegate; ifMatch as for
// UpdateNamespace.
func (s *Service) UpdateRegistry(ctx context.Context, c Caller, ref, name, ifMatch string, p directory.RegistryPatch) (directory.Registry, error) {
	var out store.RegistryAccess
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := registryForWrite(tx, c, ref, name, directory.Access.WriteRegistry)
		if err != nil {
			return err
		}
		if err := stale(ifMatch, a.Version); err != nil {
			return err
		}
		if p.Meta != nil {
			if err := checkRegistryTRQP(tx, a.NamespaceID, a.RegistryName, p.Meta); err != nil {
				return err
			}
		}
		out = a
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

// registryForWrite reads and locks the registry a write names and authorizes the caller with
// allow; a caller who may not write is refused before it learns whether the registry exists.
func registryForWrite(tx *store.Tx, c Caller, ref, name string, allow func(directory.Access) error) (store.RegistryAccess, error) {
	a, err := tx.RegistryForWrite(ref, name, c.principal())
	var nf *directory.NotFoundError
	if err != nil && (!errors.As(err, &nf) || nf.Missing != directory.MissingRegistry) {
		return a, err
	}
	if denied := allow(a.Access); denied != nil {
		return a, denied
	}
	if err == nil {
		// A deleted registry, or one of a deleted namespace, is missing to writes.
		if m := directory.DeletedLevel(a.NamespaceState, a.State, ""); m != "" {
			return a, directory.NotFound(m, []string{ref, name}[map[directory.Missing]int{directory.MissingRegistry: 1}[m]])
		}
	}
	return a, err
}

// namespaceForWrite reads the namespace a write names (NamespaceForWrite) with the caller's
// role; a deleted namespace is missing to writes.
func namespaceForWrite(tx *store.Tx, c Caller, ref string, lock bool) (store.NamespaceAccess, error) {
	a, err := tx.NamespaceForWrite(ref, c.principal(), lock)
	if err == nil && directory.Gone(a.State) {
		return a, directory.NotFound(directory.MissingNamespace, ref)
	}
	return a, err
}
