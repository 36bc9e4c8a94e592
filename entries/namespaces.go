package entries

import (
	"context"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

// CreateNamespace creates a namespace owned by the caller.
func (s *Service) CreateNamespace(ctx context.Context, c Caller, in directory.NamespaceInput) (directory.Namespace, error) {
	var n directory.SealedNamespace
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		if err := checkNamespaceTRQP(in.Meta); err != nil {
			return err
		}
		var err error
		if n, err = directory.NewNamespace(c.UserID, c.DID, in, tx.Stamp()); err != nil {
			return err
		}
		return tx.InsertNamespace(n)
	})
	if err != nil {
		return directory.Namespace{}, err
	}
	return n.Namespace("", 0)
}

// UpdateNamespace makes a new version of the namespace (by id or verified domain) with the
// patch applied, for its owner or a delegate. ifMatch ("" for none) must be the current
// version. A patch that changes nothing answers the current version.
func (s *Service) UpdateNamespace(ctx context.Context, c Caller, ref, ifMatch string, p directory.NamespacePatch) (directory.Namespace, error) {
	var out store.NamespaceAccess
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := namespaceForWrite(tx, c, ref, true)
		if err != nil {
			return err
		}
		if err := a.Access.WriteNamespace(false); err != nil {
			return err
		}
		if err := stale(ifMatch, a.Version); err != nil {
			return err
		}
		if err := checkNamespaceTRQP(p.Meta); err != nil {
			return err
		}
		out = a
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

// NamespaceAccess authorizes a write of the namespace (by id or verified domain) by the
// caller, its owner or a delegate (ownerOnly: its owner), for the operations whose writes are
// their own workflows' (delegates, domains); it returns the namespace's id.
func (s *Service) NamespaceAccess(ctx context.Context, c Caller, ref string, ownerOnly bool) (string, error) {
	var id string
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := namespaceForWrite(tx, c, ref, false)
		if err != nil {
			return err
		}
		id = a.NamespaceID
		return a.Access.WriteNamespace(ownerOnly)
	})
	return id, err
}

// TransferOwnership hands the namespace (by id or verified domain) from its owner, the caller,
// to the existing user with this email: a new version of the namespace, logged like any other.
// The old owner stays a delegate when keepAsDelegate.
func (s *Service) TransferOwnership(ctx context.Context, c Caller, ref, email string, keepAsDelegate bool) (directory.Namespace, error) {
	var out store.NamespaceAccess
	err := s.st.InTx(ctx, func(tx *store.Tx) error {
		a, err := namespaceForWrite(tx, c, ref, true)
		if err != nil {
			return err
		}
		if err := a.Access.WriteNamespace(true); err != nil {
			return err
		}
		to, err := tx.UserByEmail(email)
		if err != nil {
			return err
		}
		if err := a.Access.TransferOwnership(a.OwnerID, to.ID); err != nil {
			return err
		}
		next, err := a.SealedNamespace.Transfer(to.ID, tx.Stamp())
		if err != nil {
			return err
		}
		if err := tx.TransferNamespace(a.SealedNamespace, next, keepAsDelegate); err != nil {
			return err
		}
		out = a
		out.SealedNamespace = next
		return nil
	})
	if err != nil {
		return directory.Namespace{}, err
	}
	return out.Namespace()
}
