package directory

// Who may write what (docs/delegates.md). The owner of a namespace and its delegates write
// everything in it; only the owner manages its delegates; a delegate of one registry writes that
// registry's records and nothing else.

// Access is what a caller is to a namespace: its role there ("" none) and, for a write that
// names a registry, whether it is a delegate of that registry. Lapsed is a caller whose API key
// was revoked, or whose user was disabled, after its request was authenticated: it may write
// nothing, whatever it was.
type Access struct {
	Role             string
	RegistryDelegate bool
	Lapsed           bool
}

var (
	// ErrLapsed refuses a caller whose key was revoked, or whose user was disabled, while its
	// request was under way.
	ErrLapsed        = Forbidden.With("your API key was revoked, or your user disabled, while this request was under way; nothing was written")
	errNotMember     = Forbidden.With("you are not the owner or a delegate of this namespace")
	errNotOwner      = Forbidden.With("only the owner of the namespace may do this")
	errNotRecordsMem = Forbidden.With("you are not the owner or a delegate of this namespace, nor a delegate of this registry")
)

// WriteNamespace allows a write of the namespace itself or its registries: its owner or a
// delegate (ownerOnly: its owner).
func (a Access) WriteNamespace(ownerOnly bool) error {
	switch {
	case a.Lapsed:
		return ErrLapsed
	case a.Role == "":
		return errNotMember
	case ownerOnly && a.Role != RoleOwner:
		return errNotOwner
	}
	return nil
}

// WriteRegistry allows a write of a registry itself (its fields, its state): the namespace's
// owner or a delegate.
func (a Access) WriteRegistry() error { return a.WriteNamespace(false) }

// WriteRecords allows a write of a registry's records: the namespace's owner or a delegate, or
// a delegate of the registry.
func (a Access) WriteRecords() error {
	if a.Lapsed {
		return ErrLapsed
	}
	if a.Role == "" && !a.RegistryDelegate {
		return errNotRecordsMem
	}
	return nil
}
