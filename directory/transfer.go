package directory

// Ownership transfer: the owner of a namespace hands it to another existing user. The new owner
// takes the owner's place among the members; the old one stays a delegate unless told not to.
// The transfer is a new version of the namespace, sealed and logged like any other.

// MissingUser: the user a write named (by email) does not exist.
const MissingUser Missing = "user"

var errTransferToOwner = Conflict.With("that user already owns the namespace")

// TransferOwnership allows the transfer of a namespace owned by ownerID to the user toID: only
// by its owner, and not to the owner itself.
func (a Access) TransferOwnership(ownerID, toID string) error {
	if err := a.WriteNamespace(true); err != nil {
		return err
	}
	if toID == ownerID {
		return errTransferToOwner
	}
	return nil
}

// Transfer is the next version of n, owned by toID, made at st.
func (n SealedNamespace) Transfer(toID string, st Stamp) (SealedNamespace, error) {
	next := n
	next.OwnerID = toID
	next.VersionCount = n.VersionCount + 1
	return next, next.seal(st)
}
