package store

import (
	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
)

// The writes of an ownership transfer (entries.TransferOwnership composes them in one
// transaction).

// UserByEmail finds the user with this email in the transaction; a missing or disabled user is
// a *directory.NotFoundError (MissingUser).
func (t *Tx) UserByEmail(email string) (User, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return User{}, err
	}
	var rows []userRow
	if err := t.db.Where("email = ?", e).Limit(1).Find(&rows).Error; err != nil {
		return User{}, translate(err, "user")
	}
	if len(rows) == 0 || rows[0].Disabled {
		return User{}, directory.NotFound(directory.MissingUser, e)
	}
	return rows[0].user(), nil
}

// TransferNamespace writes next (prev with a new owner) as the namespace's head and its new
// version, makes the new owner the owner member (a delegate before, or not a member), and
// leaves the old owner a delegate (keepOld) or no member.
func (t *Tx) TransferNamespace(prev, next directory.SealedNamespace, keepOld bool) error {
	res := t.db.Model(&RowNamespace{}).Where("namespace_id = ? AND version = ?", prev.NamespaceID, prev.Version).Updates(map[string]any{
		"owner_id": next.OwnerID, "version": next.Version, "version_count": next.VersionCount, "digest": next.Digest,
		"proof_type": next.ProofType, "updated_at": next.UpdatedAt,
	})
	if res.Error != nil {
		return translate(res.Error, "transfer namespace")
	}
	if res.RowsAffected != 1 {
		return directory.ErrStaleVersion
	}
	if err := appendVersions(t.db, t.s.sinks, []RowNamespaceVersion{nsVersionOf(next)}); err != nil {
		return err
	}
	owner := memberRow{NamespaceID: next.NamespaceID, UserID: next.OwnerID, Role: directory.RoleOwner, CreatedAt: next.UpdatedAt}
	err := t.db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "namespace_id"}, {Name: "user_id"}},
		DoUpdates: clause.Assignments(map[string]any{"role": directory.RoleOwner})}).Create(&owner).Error
	if err != nil {
		return translate(err, "new owner")
	}
	old := t.db.Where("namespace_id = ? AND user_id = ?", prev.NamespaceID, prev.OwnerID)
	if keepOld {
		err = old.Model(&memberRow{}).Update("role", directory.RoleDelegate).Error
	} else {
		err = old.Delete(&memberRow{}).Error
	}
	return translate(err, "old owner")
}
