package store

import (
	"context"

	"github.com/svc-directory/svc/directory"
)

// The lists of what a user may restore (GET /svc/deleted/...): deleted entries whose parents are
// not deleted, in the namespaces where the user may restore them, newest delete first.

// DeletedOptions pages a list of deleted entries; Namespace (an id) and Registry narrow it.
type DeletedOptions struct {
	Page, Size          int
	Namespace, Registry string
}

// Deleted is a deleted entry (its tombstone, the latest version) with the reason of its delete.
type Deleted[T any] struct {
	Entry  T
	Reason string
}

// deletedPage runs the count and the page of a list of deleted entries.
func deletedPage[R any](ctx context.Context, s *Store, cols, from string, args []any, order string, o DeletedOptions) ([]R, int64, error) {
	var total int64
	if err := s.rawRow(ctx, `SELECT COUNT(*) `+from, args, &total); err != nil {
		return nil, 0, translate(err, "deleted")
	}
	var rows []R
	if total > 0 {
		q := `SELECT ` + cols + ` ` + from + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
		if err := s.rdb(ctx).Raw(q, append(args, o.Size, (o.Page-1)*o.Size)...).Scan(&rows).Error; err != nil {
			return nil, 0, translate(err, "deleted")
		}
	}
	return rows, total, nil
}

// DeletedNamespaces lists the deleted namespaces the user owns.
func (s *Store) DeletedNamespaces(ctx context.Context, userID string, o DeletedOptions) ([]Deleted[directory.Namespace], int64, error) {
	type row struct {
		RowNamespace  `gorm:"embedded"`
		DeletedReason string `gorm:"column:deleted_reason"`
	}
	rows, total, err := deletedPage[row](ctx, s, `n.*`, `FROM namespaces n
		JOIN namespace_members m ON m.namespace_id = n.namespace_id AND m.user_id = ? AND m.role = ?
		WHERE n.state = ?`, []any{userID, directory.RoleOwner, directory.StateDeleted}, `n.updated_at DESC, n.namespace_id`, o)
	out := make([]Deleted[directory.Namespace], len(rows))
	for i, r := range rows {
		if err == nil {
			out[i].Entry, err = r.namespace()
			out[i].Reason = r.DeletedReason
		}
	}
	return out, total, err
}

// DeletedRegistries lists the deleted registries of the namespaces (not deleted) where the user
// is the owner or a delegate.
func (s *Store) DeletedRegistries(ctx context.Context, userID string, o DeletedOptions) ([]Deleted[directory.Registry], int64, error) {
	type row struct {
		RowRegistry   `gorm:"embedded"`
		CreatedAt     int64  `gorm:"column:created_at"`
		UpdatedAt     int64  `gorm:"column:updated_at"`
		RecordCount   int64  `gorm:"column:record_count"`
		DraftCount    int64  `gorm:"column:draft_count"`
		NamespaceName string `gorm:"column:namespace_name"`
		DeletedReason string `gorm:"column:deleted_reason"`
	}
	from := `FROM registries g JOIN namespaces n ON n.namespace_id = g.namespace_id
		JOIN namespace_members m ON m.namespace_id = n.namespace_id AND m.user_id = ?
		WHERE g.state = ? AND n.state <> ?`
	args := []any{userID, directory.StateDeleted, directory.StateDeleted}
	if o.Namespace != "" {
		from += ` AND n.namespace_id = ?`
		args = append(args, o.Namespace)
	}
	rows, total, err := deletedPage[row](ctx, s, `g.*, n.name AS namespace_name`, from, args, `g.updated_at DESC, g.registry_id`, o)
	out := make([]Deleted[directory.Registry], len(rows))
	for i, r := range rows {
		if err == nil {
			out[i].Entry, err = r.sealed(r.CreatedAt, r.UpdatedAt).Registry(r.NamespaceName, r.RecordCount-r.DraftCount)
			out[i].Reason = r.DeletedReason
		}
	}
	return out, total, err
}

// DeletedRecords lists the deleted records of the registries (not deleted, in namespaces not
// deleted) whose records the user may write: as the namespace's owner or a delegate, or as a
// delegate of the registry.
func (s *Store) DeletedRecords(ctx context.Context, userID string, o DeletedOptions) ([]Deleted[directory.Record], int64, error) {
	type row struct {
		RowRecord      `gorm:"embedded"`
		CreatedAt      int64  `gorm:"column:created_at"`
		UpdatedAt      int64  `gorm:"column:updated_at"`
		NamespaceName  string `gorm:"column:namespace_name"`
		RegistryState  string `gorm:"column:registry_state"`
		RegistrySchema string `gorm:"column:registry_schema"`
		DeletedReason  string `gorm:"column:deleted_reason"`
	}
	from := `FROM records r JOIN registries g ON g.registry_id = r.registry_id JOIN namespaces n ON n.namespace_id = g.namespace_id
		WHERE r.state = ? AND g.state <> ? AND n.state <> ?
		AND (EXISTS (SELECT 1 FROM namespace_members m WHERE m.namespace_id = n.namespace_id AND m.user_id = ?)
			OR EXISTS (SELECT 1 FROM registry_delegates d WHERE d.registry_id = g.registry_id AND d.user_id = ?))`
	args := []any{directory.StateDeleted, directory.StateDeleted, directory.StateDeleted, userID, userID}
	if o.Namespace != "" {
		from += ` AND n.namespace_id = ?`
		args = append(args, o.Namespace)
	}
	if o.Registry != "" {
		from += ` AND g.registry_name = ?`
		args = append(args, o.Registry)
	}
	rows, total, err := deletedPage[row](ctx, s, `r.*, n.name AS namespace_name, g.state AS registry_state,
		g.schema AS registry_schema`, from, args, `r.updated_at DESC, r.record_id`, o)
	out := make([]Deleted[directory.Record], len(rows))
	for i, r := range rows {
		if err != nil {
			break
		}
		var schema map[string]any
		if schema, err = directory.DecodeObject(r.RegistrySchema); err == nil {
			out[i].Entry, err = r.sealed(r.CreatedAt, r.UpdatedAt).Record(r.NamespaceName, r.RegistryState, schema)
			out[i].Reason = r.DeletedReason
		}
	}
	return out, total, err
}
