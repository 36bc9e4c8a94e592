package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/svc-directory/svc/directory"
)

// The namespaces: their head rows (the latest version, with the derived fields: owner, verified
// domain, registry count) and their versions (namespace_versions).

const nsVersionCols = `v.version, v.namespace_id, v.version_count, v.created_by, v.genesis, v.name, v.description,
	v.meta, v.ttl, v.digest, v.proof_type, v.created_at, v.state`

// RowNamespaceVersion is a namespace_versions row.
// Database rows are exported only because GORM fills embedded structs through exported types;
// callers use the entry types of package directory.
type RowNamespaceVersion struct {
	Version      string `gorm:"column:version;primaryKey"`
	NamespaceID  string `gorm:"column:namespace_id"`
	VersionCount int64  `gorm:"column:version_count"`
	CreatedBy    string `gorm:"column:created_by"`
	Genesis      string `gorm:"column:genesis"`
	Name         string `gorm:"column:name"`
	Description  string `gorm:"column:description"`
	Meta         string `gorm:"column:meta"`
	TTL          int64  `gorm:"column:ttl"`
	Digest       string `gorm:"column:digest"`
	ProofType    string `gorm:"column:proof_type"`
	CreatedAt    int64  `gorm:"column:created_at"`
	State        string `gorm:"column:state"`
	LogSeq       *int64 `gorm:"column:log_seq"` // its log queue position (public versions)
}

func (RowNamespaceVersion) TableName() string { return "namespace_versions" }

// RowNamespace is a namespaces (head) row (exported for GORM, as RowNamespaceVersion).
type RowNamespace struct {
	NamespaceID   string  `gorm:"column:namespace_id;primaryKey"`
	OwnerID       string  `gorm:"column:owner_id"`
	CreatedBy     string  `gorm:"column:created_by"`
	Genesis       string  `gorm:"column:genesis"`
	CreatedAt     int64   `gorm:"column:created_at"`
	Version       string  `gorm:"column:version"`
	VersionCount  int64   `gorm:"column:version_count"`
	Name          string  `gorm:"column:name"`
	Description   string  `gorm:"column:description"`
	Meta          string  `gorm:"column:meta"`
	TTL           int64   `gorm:"column:ttl"`
	Digest        string  `gorm:"column:digest"`
	ProofType     string  `gorm:"column:proof_type"`
	UpdatedAt     int64   `gorm:"column:updated_at"`
	Domain        *string `gorm:"column:domain"`
	RegistryCount int64   `gorm:"column:registry_count"`
	State         string  `gorm:"column:state"`
}

func (RowNamespace) TableName() string { return "namespaces" }

func (h RowNamespace) sealed() directory.SealedNamespace {
	return directory.SealedNamespace{NamespaceID: h.NamespaceID, OwnerID: h.OwnerID, CreatedBy: h.CreatedBy, Genesis: h.Genesis,
		NamespaceContent: directory.NamespaceContent{Name: h.Name, Description: h.Description, Meta: h.Meta, TTL: h.TTL},
		Version:          h.Version, VersionCount: h.VersionCount, Digest: h.Digest, ProofType: h.ProofType,
		CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt, State: h.State}
}

func nsHeadOf(n directory.SealedNamespace) RowNamespace {
	return RowNamespace{NamespaceID: n.NamespaceID, OwnerID: n.OwnerID, CreatedBy: n.CreatedBy, Genesis: n.Genesis,
		CreatedAt: n.CreatedAt, Version: n.Version, VersionCount: n.VersionCount, Name: n.Name, Description: n.Description,
		Meta: n.Meta, TTL: n.TTL, Digest: n.Digest, ProofType: n.ProofType, UpdatedAt: n.UpdatedAt, State: n.StateOrLive()}
}

func nsVersionOf(n directory.SealedNamespace) RowNamespaceVersion {
	return RowNamespaceVersion{Version: n.Version, NamespaceID: n.NamespaceID, VersionCount: n.VersionCount,
		CreatedBy: n.CreatedBy, Genesis: n.Genesis, Name: n.Name, Description: n.Description, Meta: n.Meta,
		TTL: n.TTL, Digest: n.Digest, ProofType: n.ProofType, CreatedAt: n.UpdatedAt, State: n.StateOrLive()}
}

func (h RowNamespace) namespace() (directory.Namespace, error) {
	domain := ""
	if h.Domain != nil {
		domain = *h.Domain
	}
	return h.sealed().Namespace(domain, h.RegistryCount)
}

// nsRead is a version row joined with the head's identity and derived fields.
type nsRead struct {
	RowNamespaceVersion `gorm:"embedded"`
	OwnerID             string  `gorm:"column:owner_id"`
	HeadCreatedAt       int64   `gorm:"column:head_created_at"`
	Domain              *string `gorm:"column:domain"`
	RegistryCount       int64   `gorm:"column:registry_count"`
}

func (r nsRead) namespace() (directory.Namespace, error) {
	v := r.RowNamespaceVersion
	return RowNamespace{NamespaceID: v.NamespaceID, OwnerID: r.OwnerID, CreatedBy: v.CreatedBy, Genesis: v.Genesis,
		CreatedAt: r.HeadCreatedAt, Version: v.Version, VersionCount: v.VersionCount, Name: v.Name, Description: v.Description,
		Meta: v.Meta, TTL: v.TTL, Digest: v.Digest, ProofType: v.ProofType, UpdatedAt: v.CreatedAt, Domain: r.Domain,
		RegistryCount: r.RegistryCount, State: v.State}.namespace()
}

// namespaceRefClause is the WHERE condition picking a namespace head n by id or verified domain.
const namespaceIDClause = "n.namespace_id = ?"

func namespaceRefClause(ref string) (string, string) {
	if strings.HasPrefix(ref, directory.NamespaceIDPrefix) {
		return namespaceIDClause, ref
	}
	return "n.domain = ?", strings.TrimSuffix(strings.ToLower(ref), ".")
}

// NamespaceAccess is a namespace a write names, as the write sees it: its head, the caller's
// role in it ("" none) and its current verified domain.
type NamespaceAccess struct {
	directory.SealedNamespace
	Role          string
	Domain        string
	RegistryCount int64
}

// Namespace is the head as a lookup shows it.
func (a NamespaceAccess) Namespace() (directory.Namespace, error) {
	return a.SealedNamespace.Namespace(a.Domain, a.RegistryCount)
}

// NamespaceForWrite reads the namespace a write names (by id or verified domain) with the role
// of the user userID in it, in one statement; lock holds its row until the transaction ends.
// A namespace that does not exist is a *directory.NotFoundError (MissingNamespace).
func (t *Tx) NamespaceForWrite(ref, userID string, lock bool) (NamespaceAccess, error) {
	cond, arg := namespaceRefClause(ref)
	access, args := `'' AS role`, []any{arg}
	if userID != "" {
		access = `COALESCE((SELECT m.role FROM namespace_members m WHERE m.namespace_id = n.namespace_id AND m.user_id = ?), '') AS role`
		args = []any{userID, arg}
	}
	q := `SELECT n.*, ` + access + ` FROM namespaces n WHERE ` + cond
	if lock {
		q += t.s.d.forUpdate()
	}
	var rows []struct {
		RowNamespace `gorm:"embedded"`
		Role         string `gorm:"column:role"`
	}
	if err := t.db.Raw(q, args...).Scan(&rows).Error; err != nil {
		return NamespaceAccess{}, translate(err, "namespace")
	}
	if len(rows) == 0 {
		return NamespaceAccess{}, directory.NotFound(directory.MissingNamespace, ref)
	}
	h := rows[0].RowNamespace
	a := NamespaceAccess{SealedNamespace: h.sealed(), Role: rows[0].Role, RegistryCount: h.RegistryCount}
	if h.Domain != nil {
		a.Domain = *h.Domain
	}
	return a, nil
}

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
