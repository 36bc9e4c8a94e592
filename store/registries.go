package store

import (
	"context"

	"github.com/svc-directory/svc/directory"
)

// The registries: their head rows (the latest version, with the record count) and their
// versions (registry_versions).

// RowRegistry holds the columns shared by the registries head and registry_versions.
// Database rows are exported only because GORM fills embedded structs through exported types;
// callers use the entry types of package directory.
type RowRegistry struct {
	RegistryID   string `gorm:"column:registry_id"`
	NamespaceID  string `gorm:"column:namespace_id"`
	RegistryName string `gorm:"column:registry_name"`
	Tag          string `gorm:"column:tag"`
	Schema       string `gorm:"column:schema"`
	CreatedBy    string `gorm:"column:created_by"`
	Genesis      string `gorm:"column:genesis"`
	Version      string `gorm:"column:version"`
	VersionCount int64  `gorm:"column:version_count"`
	Description  string `gorm:"column:description"`
	Meta         string `gorm:"column:meta"`
	TTL          int64  `gorm:"column:ttl"`
	State        string `gorm:"column:state"`
	QueryAllowed bool   `gorm:"column:query_allowed"`
	Digest       string `gorm:"column:digest"`
	ProofType    string `gorm:"column:proof_type"`
}

type regHeadRow struct {
	RowRegistry `gorm:"embedded"`
	CreatedAt   int64 `gorm:"column:created_at"`
	UpdatedAt   int64 `gorm:"column:updated_at"`
	RecordCount int64 `gorm:"column:record_count"`
	DraftCount  int64 `gorm:"column:draft_count;->"` // read only: writes change it by statements
}

func (regHeadRow) TableName() string { return "registries" }

type regVersionRow struct {
	RowRegistry `gorm:"embedded"`
	CreatedAt   int64  `gorm:"column:created_at"`
	LogSeq      *int64 `gorm:"column:log_seq"` // its log queue position
}

func (regVersionRow) TableName() string { return "registry_versions" }

// sealed is the version the row holds, made at updatedAt (the head's updated_at, a version's
// created_at), of the registry created at createdAt.
func (r RowRegistry) sealed(createdAt, updatedAt int64) directory.SealedRegistry {
	return directory.SealedRegistry{RegistryID: r.RegistryID, NamespaceID: r.NamespaceID, RegistryName: r.RegistryName,
		Tag: r.Tag, Schema: r.Schema, CreatedBy: r.CreatedBy, Genesis: r.Genesis,
		RegistryContent: directory.RegistryContent{Description: r.Description, Meta: r.Meta, TTL: r.TTL,
			QueryAllowed: r.QueryAllowed, State: r.State},
		Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest, ProofType: r.ProofType,
		CreatedAt: createdAt, UpdatedAt: updatedAt}
}

func rowRegistryOf(g directory.SealedRegistry) RowRegistry {
	return RowRegistry{RegistryID: g.RegistryID, NamespaceID: g.NamespaceID, RegistryName: g.RegistryName, Tag: g.Tag,
		Schema: g.Schema, CreatedBy: g.CreatedBy, Genesis: g.Genesis, Version: g.Version, VersionCount: g.VersionCount,
		Description: g.Description, Meta: g.Meta, TTL: g.TTL, State: g.State, QueryAllowed: g.QueryAllowed,
		Digest: g.Digest, ProofType: g.ProofType}
}

func regVersionOf(g directory.SealedRegistry) regVersionRow {
	return regVersionRow{RowRegistry: rowRegistryOf(g), CreatedAt: g.UpdatedAt}
}

// regRead is a version joined with the head's and the namespace's current fields.
type regRead struct {
	RowRegistry      `gorm:"embedded"`
	VersionCreatedAt int64  `gorm:"column:v_created_at"`
	HeadCreatedAt    int64  `gorm:"column:head_created_at"`
	RecordCount      int64  `gorm:"column:record_count"`
	NamespaceName    string `gorm:"column:namespace_name"`
	NamespaceState   string `gorm:"column:namespace_state"`
	HeadID           string `gorm:"column:head_id"` // the head's id: "" when the registry is missing
}

func (r regRead) registry() (directory.Registry, error) {
	return r.sealed(r.HeadCreatedAt, r.VersionCreatedAt).Registry(r.NamespaceName, r.RecordCount)
}

// RegistryAccess is a registry a write names, as the write sees it: its head, its namespace's
// current name, its count of published records, and the caller's role in the namespace ("" none) and whether
// the caller is a delegate of the registry.
type RegistryAccess struct {
	directory.SealedRegistry
	NamespaceName    string
	NamespaceState   string
	RecordCount      int64
	Role             string
	RegistryDelegate bool
}

// Registry is the head as a lookup shows it.
func (a RegistryAccess) Registry() (directory.Registry, error) {
	return a.SealedRegistry.Registry(a.NamespaceName, a.RecordCount)
}

// RegistryForWrite reads and locks (until the transaction ends) the registry a write names, by
// its namespace (id or verified domain) and name, with the namespace's name and the access of
// the user userID, in one statement. A registry that is not there is a
// *directory.NotFoundError (MissingRegistry, with the caller's role in the namespace, or
// MissingNamespace when the namespace is not there either, which a second statement tells).
func (t *Tx) RegistryForWrite(nsRef, name, userID string) (RegistryAccess, error) {
	cond, arg := namespaceRefClause(nsRef)
	var rows []struct {
		RowRegistry          `gorm:"embedded"`
		CreatedAt, UpdatedAt int64
		RecordCount          int64
		DraftCount           int64
		NamespaceName        string `gorm:"column:namespace_name"`
		NamespaceState       string `gorm:"column:namespace_state"`
		Role                 string `gorm:"column:role"`
		RegistryDelegate     bool   `gorm:"column:registry_delegate"`
	}
	// A write on the directory's own behalf (userID "") reads no access.
	access, args := `'' AS role, 0 AS registry_delegate`, []any{name, arg}
	if userID != "" {
		access = `COALESCE((SELECT m.role FROM namespace_members m WHERE m.namespace_id = n.namespace_id AND m.user_id = ?), '') AS role,
			EXISTS (SELECT 1 FROM registry_delegates d WHERE d.registry_id = g.registry_id AND d.user_id = ?) AS registry_delegate`
		args = []any{userID, userID, name, arg}
	}
	q := `SELECT g.*, n.name AS namespace_name, n.state AS namespace_state, ` + access + `
		FROM namespaces n JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = ?
		WHERE ` + cond + t.s.d.forUpdateOf("g")
	if err := t.db.Raw(q, args...).Scan(&rows).Error; err != nil {
		return RegistryAccess{}, translate(err, "registry")
	}
	if len(rows) == 0 {
		ns, err := t.NamespaceForWrite(nsRef, userID, false)
		if err != nil {
			return RegistryAccess{}, err
		}
		return RegistryAccess{NamespaceName: ns.Name, NamespaceState: ns.State, Role: ns.Role}, directory.NotFound(directory.MissingRegistry, name)
	}
	r := rows[0]
	return RegistryAccess{SealedRegistry: r.sealed(r.CreatedAt, r.UpdatedAt), NamespaceName: r.NamespaceName, NamespaceState: r.NamespaceState,
		RecordCount: r.RecordCount - r.DraftCount, Role: r.Role, RegistryDelegate: r.RegistryDelegate}, nil
}

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

// RecordOf is a record version of this registry as a lookup shows it.
func (a RegistryAccess) RecordOf(r directory.SealedRecord) (directory.Record, error) {
	schema, err := directory.DecodeObject(a.Schema)
	if err != nil {
		return directory.Record{}, err
	}
	return r.Record(a.NamespaceName, a.State, schema)
}
