package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/svc-directory/svc/directory"
)

// The members of a namespace: its owner and its delegates (table namespace_members).

// memberRow is a namespace's owner or delegate.
type memberRow struct {
	NamespaceID string `gorm:"column:namespace_id;primaryKey"`
	UserID      string `gorm:"column:user_id;primaryKey"`
	Role        string `gorm:"column:role"`
	CreatedAt   int64  `gorm:"column:created_at"`
}

func (memberRow) TableName() string { return "namespace_members" }

// Member is a namespace's owner or delegate.
type Member struct {
	Email     string
	Role      string
	AddedAt   time.Time
	UserID    string
	ProfileID string
}

// MemberRole returns "owner", "delegate" or "" for the user in the namespace.
func (s *Store) MemberRole(ctx context.Context, namespaceID, userID string) (string, error) {
	var roles []string
	err := s.db.WithContext(ctx).Model(&memberRow{}).Where("namespace_id = ? AND user_id = ?", namespaceID, userID).Pluck("role", &roles).Error
	if err != nil || len(roles) == 0 {
		return "", translate(err, "membership")
	}
	return roles[0], nil
}

// Members lists the owner and delegates, owner first, then by when they were added.
func (s *Store) Members(ctx context.Context, namespaceID string) ([]Member, error) {
	var rows []struct {
		Email, Role, UserID, ProfileID string
		AddedAt                        int64
	}
	err := s.rdb(ctx).Raw(`SELECT u.email, m.role, m.created_at AS added_at, u.id AS user_id, u.profile_id
		FROM namespace_members m JOIN users u ON u.id = m.user_id WHERE m.namespace_id = ?
		ORDER BY CASE m.role WHEN 'owner' THEN 0 ELSE 1 END, m.created_at, u.email`, namespaceID).Scan(&rows).Error
	if err != nil {
		return nil, translate(err, "members")
	}
	out := make([]Member, len(rows))
	for i, r := range rows {
		out[i] = Member{Email: r.Email, Role: r.Role, AddedAt: msTime(r.AddedAt), UserID: r.UserID, ProfileID: r.ProfileID}
	}
	return out, nil
}

// AddDelegate makes the user with this email (created when new) a delegate of the namespace,
// whose row the caller holds locked (NamespaceForWrite with lock, which authorized the owner).
// Adding an existing member is ErrConflict.
func (t *Tx) AddDelegate(namespaceID, email string) error {
	u, err := t.s.ensureUserTx(t.db, email)
	if err != nil {
		return err
	}
	m := memberRow{NamespaceID: namespaceID, UserID: u.ID, Role: directory.RoleDelegate, CreatedAt: t.s.nowMS()}
	if err := t.db.Create(&m).Error; err != nil {
		err = translate(err, "add delegate")
		if errors.Is(err, directory.ErrConflict) {
			return directory.Conflict.With("%s is already a member of the namespace", u.Email)
		}
		return err
	}
	return nil
}

// RemoveDelegate removes a delegate of the namespace, whose row the caller holds locked
// (NamespaceForWrite with lock); ErrNotFound when the email is not a delegate.
func (t *Tx) RemoveDelegate(namespaceID, email string) error {
	e, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	var rows []memberRow
	if err := t.db.Raw(`SELECT m.* FROM namespace_members m JOIN users u ON u.id = m.user_id
		WHERE m.namespace_id = ? AND u.email = ?`, namespaceID, e).Scan(&rows).Error; err != nil {
		return translate(err, "remove delegate")
	}
	if len(rows) == 0 {
		return fmt.Errorf("delegate %s: %w", e, directory.ErrNotFound)
	}
	if rows[0].Role == directory.RoleOwner {
		return directory.ErrOwner
	}
	return translate(t.db.Where("namespace_id = ? AND user_id = ?", namespaceID, rows[0].UserID).Delete(&memberRow{}).Error, "remove delegate")
}

// FirstNamespaceOf returns the oldest namespace the user owns ("" when none).
func (s *Store) FirstNamespaceOf(ctx context.Context, userID string) (string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Model(&RowNamespace{}).Where("owner_id = ?", userID).Order("created_at, namespace_id").Limit(1).Pluck("namespace_id", &ids).Error
	if err != nil || len(ids) == 0 {
		return "", translate(err, "namespaces of user")
	}
	return ids[0], nil
}
