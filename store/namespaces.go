package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/svc-directory/svc/directory"
)

// The namespaces' writes and reads (their rows and read shapes are in entryrows.go; what a write
// reads first in writeaccess.go). A namespace head holds derived fields: owner, verified domain,
// registry count.

// InsertNamespace writes a new namespace: its head, its first version and its owner's
// membership.
func (t *Tx) InsertNamespace(n directory.SealedNamespace) error {
	h := nsHeadOf(n)
	if err := t.db.Create(&h).Error; err != nil {
		return translate(err, "create namespace")
	}
	if err := appendVersions(t.db, t.s.sinks, []RowNamespaceVersion{nsVersionOf(n)}); err != nil {
		return err
	}
	m := memberRow{NamespaceID: n.NamespaceID, UserID: n.OwnerID, Role: directory.RoleOwner, CreatedAt: n.CreatedAt}
	return translate(t.db.Create(&m).Error, "add owner")
}

// UpdateNamespace replaces the head prev (read in this transaction) with its next version
// and appends that version. A head that is no longer prev is directory.ErrStaleVersion.
func (t *Tx) UpdateNamespace(prev, next directory.SealedNamespace) error {
	res := t.db.Model(&RowNamespace{}).Where("namespace_id = ? AND version = ?", prev.NamespaceID, prev.Version).Updates(map[string]any{
		"version": next.Version, "version_count": next.VersionCount, "name": next.Name, "description": next.Description,
		"meta": next.Meta, "ttl": next.TTL, "digest": next.Digest, "proof_type": next.ProofType, "updated_at": next.UpdatedAt,
		"state": next.StateOrLive(),
	})
	if res.Error != nil {
		return translate(res.Error, "update namespace")
	}
	if res.RowsAffected != 1 {
		return directory.ErrStaleVersion
	}
	return appendVersions(t.db, t.s.sinks, []RowNamespaceVersion{nsVersionOf(next)})
}

// ResolveNamespace maps a {namespace} path value (a namespace_id or a verified domain) to the
// namespace_id.
func (s *Store) ResolveNamespace(ctx context.Context, ref string) (string, error) {
	var ids []string
	q := s.rdb(ctx).Model(&RowNamespace{})
	if strings.HasPrefix(ref, directory.NamespaceIDPrefix) {
		q = q.Where("namespace_id = ?", ref)
	} else {
		q = q.Where("domain = ?", strings.TrimSuffix(strings.ToLower(ref), "."))
	}
	q = q.Where("state <> ?", directory.StateDeleted) // a deleted namespace is missing (directory.Gone)
	if err := q.Limit(1).Pluck("namespace_id", &ids).Error; err != nil {
		return "", translate(err, "namespace")
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("namespace %q: %w", ref, directory.ErrNotFound)
	}
	return ids[0], nil
}

// GetNamespace reads a namespace (by id or verified domain) at the selected version, in one
// statement that also says what it missed (versionread.go).
func (s *Store) GetNamespace(ctx context.Context, ref string, sel directory.VersionSel) (directory.Namespace, error) {
	cond, arg := namespaceRefClause(ref)
	join, args := versionJoin("namespace_versions", "n", "namespace_id", sel)
	var rows []nsRead
	err := s.rdb(ctx).Raw(`SELECT `+nsVersionCols+`, n.owner_id, n.created_at AS head_created_at, n.domain, n.registry_count
		FROM namespaces n`+join+` WHERE `+cond, append(args, arg)...).Scan(&rows).Error
	if err != nil {
		return directory.Namespace{}, translate(err, "namespace")
	}
	if err := missedLevel(len(rows), "namespace", sel, []string{ref}, nil, len(rows) > 0 && rows[0].Version != ""); err != nil {
		return directory.Namespace{}, err
	}
	if sel.Latest() && directory.Gone(rows[0].State) {
		return directory.Namespace{}, directory.NotFound(directory.MissingNamespace, ref)
	}
	return rows[0].namespace()
}

// NamespaceVersions lists a namespace's version ids, newest first.
func (s *Store) NamespaceVersions(ctx context.Context, namespaceID string) ([]string, error) {
	var out []string
	err := s.rdb(ctx).Model(&RowNamespaceVersion{}).Where("namespace_id = ?", namespaceID).
		Order("version_count DESC").Pluck("version", &out).Error
	return out, translate(err, "namespace versions")
}
