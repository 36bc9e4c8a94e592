package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// Registry delegates: users who may add and change the records of one registry (table
// registry_delegates). The namespace's owner and delegates, who write every registry of the
// namespace already, are not registry delegates as well.

type registryDelegateRow struct {
	RegistryID string `gorm:"column:registry_id;primaryKey"`
	UserID     string `gorm:"column:user_id;primaryKey"`
	CreatedAt  int64  `gorm:"column:created_at"`
}

func (registryDelegateRow) TableName() string { return "registry_delegates" }

// RegistryDelegate is a registry delegate: the user's email and when it was added.
type RegistryDelegate struct {
	Email   string
	AddedAt time.Time
}

// registryID finds the registry's id by namespace and name (ErrNotFound when there is none).
func registryID(db *gorm.DB, namespaceID, registryName string) (string, error) {
	var ids []string
	if err := db.Model(&regHeadRow{}).Where("namespace_id = ? AND registry_name = ?", namespaceID, registryName).
		Limit(1).Pluck("registry_id", &ids).Error; err != nil {
		return "", translate(err, "registry")
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("registry %s: %w", registryName, directory.ErrNotFound)
	}
	return ids[0], nil
}

// AddRegistryDelegate makes the user with this email (created when new) a delegate of the
// registry registryID of the namespace, whose row the caller holds locked (RegistryForWrite). A
// member of the namespace, or a delegate already, is ErrConflict.
func (t *Tx) AddRegistryDelegate(namespaceID, registryID, email string) error {
	u, err := t.s.ensureUserTx(t.db, email)
	if err != nil {
		return err
	}
	var roles []string
	if err := t.db.Model(&memberRow{}).Where("namespace_id = ? AND user_id = ?", namespaceID, u.ID).Pluck("role", &roles).Error; err != nil {
		return translate(err, "membership")
	}
	if len(roles) > 0 {
		return directory.Conflict.With("%s is the namespace's %s and writes every registry of it already", u.Email, roles[0])
	}
	err = translate(t.db.Create(&registryDelegateRow{RegistryID: registryID, UserID: u.ID, CreatedAt: t.s.nowMS()}).Error, "add registry delegate")
	if errors.Is(err, directory.ErrConflict) {
		return directory.Conflict.With("%s is already a delegate of the registry", u.Email)
	}
	return err
}

// RemoveRegistryDelegate removes a delegate of the registry registryID, whose row the caller
// holds locked (RegistryForWrite); ErrNotFound when the email is not one.
func (t *Tx) RemoveRegistryDelegate(registryID, email string) error {
	e, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	res := t.db.Where("registry_id = ? AND user_id IN (SELECT id FROM users WHERE email = ?)", registryID, e).Delete(&registryDelegateRow{})
	if res.Error != nil {
		return translate(res.Error, "remove registry delegate")
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("registry delegate %s: %w", e, directory.ErrNotFound)
	}
	return nil
}

// RegistryDelegates lists the delegates of the registry by when they were added.
func (s *Store) RegistryDelegates(ctx context.Context, namespaceID, registryName string) ([]RegistryDelegate, error) {
	db := s.db.WithContext(ctx)
	regID, err := registryID(db, namespaceID, registryName)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		Email   string `gorm:"column:email"`
		AddedAt int64  `gorm:"column:added_at"`
	}
	if err := db.Raw(`SELECT u.email, d.created_at AS added_at FROM registry_delegates d JOIN users u ON u.id = d.user_id
		WHERE d.registry_id = ? ORDER BY d.created_at, u.email`, regID).Scan(&rows).Error; err != nil {
		return nil, translate(err, "registry delegates")
	}
	out := make([]RegistryDelegate, len(rows))
	for i, r := range rows {
		out[i] = RegistryDelegate{Email: r.Email, AddedAt: msTime(r.AddedAt)}
	}
	return out, nil
}

// IsRegistryDelegate reports whether the user is a delegate of the registry.
func (s *Store) IsRegistryDelegate(ctx context.Context, namespaceID, registryName, userID string) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM registry_delegates d JOIN registries g ON g.registry_id = d.registry_id
		WHERE g.namespace_id = ? AND g.registry_name = ? AND d.user_id = ?`, namespaceID, registryName, userID).Scan(&n).Error
	if err != nil {
		return false, translate(err, "registry delegate")
	}
	return n > 0, nil
}
