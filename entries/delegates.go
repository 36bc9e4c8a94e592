package entries

import (
	"context"
	"errors"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

// Who may write (docs/delegates.md): each change of it is authorized and written in one
// transaction, with the namespace (or the registry) locked FOR UPDATE before the caller's
// access is read, so that it is ordered with every other change of who may write there and
// with every write that such a change would refuse.

// AddDelegate makes the user with this email a delegate of the namespace (by id or verified
// domain), for its owner. It returns the namespace's id.
func (s *Service) AddDelegate(ctx context.Context, c Caller, ref, email string) (string, error) {
	return s.delegates(ctx, c, ref, func(tx *store.Tx, id string) error { return tx.AddDelegate(id, email) })
}

// RemoveDelegate removes a delegate of the namespace (by id or verified domain), for its
// owner. It returns the namespace's id.
func (s *Service) RemoveDelegate(ctx context.Context, c Caller, ref, email string) (string, error) {
	return s.delegates(ctx, c, ref, func(tx *store.Tx, id string) error { return tx.RemoveDelegate(id, email) })
}

func (s *Service) delegates(ctx context.Context, c Caller, ref string, write func(tx *store.Tx, namespaceID string) error) (string, error) {
	var id string
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := namespaceForWrite(tx, c, ref, true)
		if err != nil {
			return err
		}
		if err := a.WriteNamespace(true); err != nil {
			return err
		}
		id = a.NamespaceID
		return write(tx, id)
	})
	return id, err
}

// AddRegistryDelegate makes the user with this email a delegate of the registry, for the
// namespace's owner or a delegate. It returns the namespace's id.
func (s *Service) AddRegistryDelegate(ctx context.Context, c Caller, ref, registry, email string) (string, error) {
	return s.registryDelegates(ctx, c, ref, registry, func(tx *store.Tx, a store.RegistryAccess) error {
		return tx.AddRegistryDelegate(a.NamespaceID, a.RegistryID, email)
	})
}

// RemoveRegistryDelegate removes a delegate of the registry, for the namespace's owner or a
// delegate. It returns the namespace's id.
func (s *Service) RemoveRegistryDelegate(ctx context.Context, c Caller, ref, registry, email string) (string, error) {
	return s.registryDelegates(ctx, c, ref, registry, func(tx *store.Tx, a store.RegistryAccess) error {
		return tx.RemoveRegistryDelegate(a.RegistryID, email)
	})
}

// registryDelegates runs a change of the registry's delegates: the registry locked, the caller
// a member of its namespace (a deleted registry's delegates are kept and managed as before).
func (s *Service) registryDelegates(ctx context.Context, c Caller, ref, registry string, write func(*store.Tx, store.RegistryAccess) error) (string, error) {
	var id string
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := tx.RegistryForWrite(ref, registry, c.principal())
		var nf *directory.NotFoundError
		switch {
		case err != nil && (!errors.As(err, &nf) || nf.Missing != directory.MissingRegistry):
			return err
		case directory.Gone(a.NamespaceState):
			return directory.NotFound(directory.MissingNamespace, ref)
		}
		// A caller who may not write is refused before it learns whether the registry exists.
		if denied := a.WriteRegistry(); denied != nil {
			return denied
		}
		if err != nil {
			return err
		}
		id = a.NamespaceID
		return write(tx, a)
	})
	return id, err
}
