package store

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// Notification is a stored message about a delegated request.
type Notification struct {
	ID                string
	RequestID         string
	NamespaceID       string
	TargetNamespaceID string
	RecipientEmail    string
	ActorEmail        string
	Domain            string
	EventType         string
	Title             string
	Message           string
	Metadata          map[string]any
	IsRead            bool
	ReadAt            *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

type notificationRow struct {
	ID                string  `gorm:"column:id;primaryKey"`
	RequestID         string  `gorm:"column:request_id"`
	NamespaceID       string  `gorm:"column:namespace_id"`
	TargetNamespaceID string  `gorm:"column:target_namespace_id"`
	RecipientEmail    string  `gorm:"column:recipient_email"`
	ActorEmail        *string `gorm:"column:actor_email"`
	Domain            string  `gorm:"column:domain"`
	EventType         string  `gorm:"column:event_type"`
	Title             string  `gorm:"column:title"`
	Message           string  `gorm:"column:message"`
	Metadata          string  `gorm:"column:metadata"`
	IsRead            bool    `gorm:"column:is_read"`
	ReadAt            *int64  `gorm:"column:read_at"`
	CreatedAt         int64   `gorm:"column:created_at"`
	UpdatedAt         int64   `gorm:"column:updated_at"`
}

func (notificationRow) TableName() string { return "notifications" }

func (r notificationRow) notification() (Notification, error) {
	md, err := directory.DecodeObject(r.Metadata)
	if err != nil {
		return Notification{}, err
	}
	return Notification{ID: r.ID, RequestID: r.RequestID, NamespaceID: r.NamespaceID, TargetNamespaceID: r.TargetNamespaceID,
		RecipientEmail: r.RecipientEmail, ActorEmail: deref(r.ActorEmail), Domain: r.Domain, EventType: r.EventType,
		Title: r.Title, Message: r.Message, Metadata: md, IsRead: r.IsRead, ReadAt: msTimePtr(r.ReadAt),
		CreatedAt: msTime(r.CreatedAt), UpdatedAt: msTime(r.UpdatedAt)}, nil
}

// MemberEmails lists the e-mail addresses of the namespace's members (owner and delegates), sorted.
func (t *Tx) MemberEmails(namespaceID string) ([]string, error) {
	var emails []string
	if err := t.db.Raw(`SELECT u.email FROM namespace_members m JOIN users u ON u.id = m.user_id WHERE m.namespace_id = ? ORDER BY u.email`,
		namespaceID).Scan(&emails).Error; err != nil {
		return nil, translate(err, "members")
	}
	return emails, nil
}

// AddNotification stores an unread notification; its id and times are set here (the ones in n
// are ignored, as are IsRead and ReadAt).
func (t *Tx) AddNotification(n Notification) error {
	md, err := directory.CanonicalText(n.Metadata)
	if err != nil {
		return err
	}
	now := t.s.nowMS()
	row := notificationRow{ID: directory.NewUUID(), RequestID: n.RequestID, NamespaceID: n.NamespaceID, TargetNamespaceID: n.TargetNamespaceID,
		RecipientEmail: n.RecipientEmail, ActorEmail: nullable(n.ActorEmail), Domain: n.Domain, EventType: n.EventType, Title: n.Title,
		Message: n.Message, Metadata: md, CreatedAt: now, UpdatedAt: now}
	return translate(t.db.Create(&row).Error, "notification")
}

// Notifications lists the notifications addressed to email, newest first (unread only when
// unreadOnly), but for those cleared (ClearReadNotifications).
func (s *Store) Notifications(ctx context.Context, email string, unreadOnly bool) ([]Notification, error) {
	q := s.db.WithContext(ctx).Where("recipient_email = ? AND cleared_at IS NULL", email)
	if unreadOnly {
		q = q.Where("is_read = ?", false)
	}
	var rows []notificationRow
	if err := q.Order("created_at DESC, id DESC").Limit(1000).Find(&rows).Error; err != nil {
		return nil, translate(err, "notifications")
	}
	out := make([]Notification, len(rows))
	for i, r := range rows {
		n, err := r.notification()
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// MarkNotificationRead marks one of email's notifications read (ErrNotFound for anyone else's).
func (s *Store) MarkNotificationRead(ctx context.Context, id, email string) (Notification, error) {
	var row notificationRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("id = ? AND recipient_email = ?", id, email).Take(&row).Error; err != nil {
			return translate(err, "notification")
		}
		if row.IsRead {
			return nil
		}
		now := s.nowMS()
		row.IsRead, row.ReadAt, row.UpdatedAt = true, &now, now
		return translate(tx.Model(&notificationRow{}).Where("id = ?", id).Updates(map[string]any{"is_read": true, "read_at": now, "updated_at": now}).Error, "mark read")
	})
	if err != nil {
		return Notification{}, err
	}
	return row.notification()
}

// MarkAllNotificationsRead marks every unread notification of email read; it returns how many.
func (s *Store) MarkAllNotificationsRead(ctx context.Context, email string) (int64, error) {
	now := s.nowMS()
	res := s.db.WithContext(ctx).Model(&notificationRow{}).Where("recipient_email = ? AND is_read = ?", email, false).
		Updates(map[string]any{"is_read": true, "read_at": now, "updated_at": now})
	return res.RowsAffected, translate(res.Error, "mark all read")
}

// ClearReadNotifications hides every read notification of email from its history; the rows
// stay (cleared_at is set). It returns how many it hid.
func (s *Store) ClearReadNotifications(ctx context.Context, email string) (int64, error) {
	var n int64
	err := s.tx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&notificationRow{}).Where("recipient_email = ? AND is_read = ? AND cleared_at IS NULL", email, true).
			Update("cleared_at", s.nowMS())
		n = res.RowsAffected
		return translate(res.Error, "clear notifications")
	})
	return n, err
}
