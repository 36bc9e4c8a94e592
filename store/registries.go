package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/svc-directory/svc/directory"
)

// The registries' writes and reads by name (their rows and read shapes are in entryrows.go; what
// a write reads first in writeaccess.go).

// CountRegistry counts a new registry on its namespace, whose row it locks until the
// transaction ends, and returns the namespace's name. A write reads its time after it, so that
// the times of a namespace's new registries follow the order of its writers.
func (t *Tx) CountRegistry(namespaceID string) (namespaceName string, err error) {
	var names []string
	if err := t.db.Raw(`UPDATE namespaces SET registry_count = registry_count + 1 WHERE namespace_id = ? RETURNING name`, namespaceID).
		Scan(&names).Error; err != nil {
		return "", translate(err, "count registry")
	}
	if len(names) != 1 {
		return "", directory.NotFound(directory.MissingNamespace, namespaceID)
	}
	return names[0], nil
}

// InsertRegistry writes a new registry: its head and first version (its namespace counted it
// with CountRegistry).
func (t *Tx) InsertRegistry(g directory.SealedRegistry) error {
	h := regHeadRow{RowRegistry: rowRegistryOf(g), CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt}
	if err := t.db.Create(&h).Error; err != nil {
		if err = translate(err, "create registry"); directory.IsConflict(err) {
			return directory.ErrNameTaken.With("registry %q already exists in the namespace", g.RegistryName)
		}
		return err
	}
	return appendVersions(t.db, t.s.sinks, []regVersionRow{regVersionOf(g)})
}

// UpdateRegistry replaces the head prev (read in this transaction) with its next version and
// appends that version. A head that is no longer prev is directory.ErrStaleVersion.
func (t *Tx) UpdateRegistry(prev, next directory.SealedRegistry) error {
	res := t.db.Model(&regHeadRow{}).Where("registry_id = ? AND version = ?", prev.RegistryID, prev.Version).Updates(map[string]any{
		"version": next.Version, "version_count": next.VersionCount, "description": next.Description, "meta": next.Meta,
		"ttl": next.TTL, "state": next.State, "query_allowed": next.QueryAllowed, "digest": next.Digest,
		"proof_type": next.ProofType, "updated_at": next.UpdatedAt,
	})
	if res.Error != nil {
		return translate(res.Error, "update registry")
	}
	if res.RowsAffected != 1 {
		return directory.ErrStaleVersion
	}
	return appendVersions(t.db, t.s.sinks, []regVersionRow{regVersionOf(next)})
}

// GetRegistry reads a registry of the namespace (id or verified domain) at the selected
// version, in one statement that also says what it missed (versionread.go).
func (s *Store) GetRegistry(ctx context.Context, nsRef, name string, sel directory.VersionSel) (directory.Registry, error) {
	cond, arg := namespaceRefClause(nsRef)
	join, jargs := versionJoin("registry_versions", "g", "registry_id", sel)
	q := `SELECT v.registry_id, v.namespace_id, v.registry_name, v.tag, v.schema, v.created_by, v.genesis, v.version,
			v.version_count, v.description, v.meta, v.ttl, v.state, v.query_allowed, v.digest, v.proof_type,
			v.created_at AS v_created_at, g.created_at AS head_created_at, g.record_count - g.draft_count AS record_count,
			n.name AS namespace_name, n.state AS namespace_state, g.registry_id AS head_id
		FROM namespaces n
		LEFT JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = ?` + join + `
		WHERE ` + cond
	var rows []regRead
	err := s.rdb(ctx).Raw(q, append(append([]any{name}, jargs...), arg)...).Scan(&rows).Error
	if err != nil {
		return directory.Registry{}, translate(err, "registry")
	}
	found := len(rows) > 0 && rows[0].HeadID != ""
	if err := missedLevel(len(rows), "registry", sel, []string{nsRef, name}, []bool{found}, found && rows[0].Version != ""); err != nil {
		return directory.Registry{}, err
	}
	if m := directory.DeletedLevel(rows[0].NamespaceState, rows[0].State, ""); sel.Latest() && m != "" {
		return directory.Registry{}, directory.NotFound(m, []string{nsRef, name}[levelIndex(m)])
	}
	return rows[0].registry()
}

// RegistryVersions lists a registry's version ids, newest first.
func (s *Store) RegistryVersions(ctx context.Context, registryID string) ([]string, error) {
	var out []string
	err := s.rdb(ctx).Model(&regVersionRow{}).Where("registry_id = ?", registryID).
		Order("version_count DESC").Pluck("version", &out).Error
	return out, translate(err, "registry versions")
}

// RegistryMetas returns the meta (canonical text) of each registry of the namespace but the
// deleted ones, by name, read in the transaction (the TRQP declarations' uniqueness reads them
// after locking the namespace).
func (t *Tx) RegistryMetas(namespaceID string) (map[string]string, error) {
	var rows []RowRegistry
	if err := t.db.Model(&regHeadRow{}).Select("registry_name, meta").
		Where("namespace_id = ? AND state <> ?", namespaceID, directory.StateDeleted).Find(&rows).Error; err != nil {
		return nil, translate(err, "registry metas")
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.RegistryName] = r.Meta
	}
	return out, nil
}

// AuthorityMetas resolves a namespace reference (a namespace_id or a verified domain) and
// returns its id with the meta (canonical text) of each of its registries but the deleted ones,
// by name, in one statement from the read database (a TRQP query finds its registry by its
// declaration); directory.ErrNotFound when no namespace is ref.
func (s *Store) AuthorityMetas(ctx context.Context, ref string) (string, map[string]string, error) {
	cond, arg := namespaceRefClause(ref)
	var rows []struct {
		NamespaceID  string         `gorm:"column:namespace_id"`
		RegistryName sql.NullString `gorm:"column:registry_name"`
		Meta         sql.NullString `gorm:"column:meta"`
	}
	if err := s.rdb(ctx).Raw(`SELECT n.namespace_id, r.registry_name, r.meta FROM namespaces n
		LEFT JOIN registries r ON r.namespace_id = n.namespace_id AND r.state <> ?
		WHERE `+cond+` AND n.state <> ?`, directory.StateDeleted, arg, directory.StateDeleted).Scan(&rows).Error; err != nil {
		return "", nil, translate(err, "authority metas")
	}
	if len(rows) == 0 {
		return "", nil, fmt.Errorf("namespace %q: %w", ref, directory.ErrNotFound)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		if r.RegistryName.Valid {
			out[r.RegistryName.String] = r.Meta.String
		}
	}
	return rows[0].NamespaceID, out, nil
}
