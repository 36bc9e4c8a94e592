package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/proof"
)

// NamespaceInput is the body of create-namespace.
type NamespaceInput struct {
	Name        string
	Description string
	Meta        map[string]any
	TTL         *int64
}

// NamespacePatch is the body of update-namespace: nil fields are left as they are.
type NamespacePatch struct {
	Name        *string
	Description *string
	Meta        map[string]any // nil: unchanged
	TTL         *int64
}

const nsVersionCols = `v.version, v.namespace_id, v.version_count, v.created_by, v.genesis, v.name, v.description,
	v.meta, v.ttl, v.digest, v.proof_type, v.created_at`

// RowNamespaceVersion is a namespace_versions row.
// Database rows are exported only because GORM fills embedded structs through exported types;
// callers use the entry types (Namespace, Registry, Record, User).
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
	LogSeq       *int64 `gorm:"column:log_seq"` // its log queue position (public versions)
}

func (RowNamespaceVersion) TableName() string { return "namespace_versions" }

type nsHeadRow struct {
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
}

func (nsHeadRow) TableName() string { return "namespaces" }

// nsRead is a version row joined with the head's identity and derived fields.
type nsRead struct {
	RowNamespaceVersion `gorm:"embedded"`
	OwnerID             string  `gorm:"column:owner_id"`
	HeadCreatedAt       int64   `gorm:"column:head_created_at"`
	Domain              *string `gorm:"column:domain"`
	RegistryCount       int64   `gorm:"column:registry_count"`
}

func (r nsRead) namespace() (Namespace, error) {
	meta, err := decodeObject(r.Meta)
	if err != nil {
		return Namespace{}, err
	}
	v := r.RowNamespaceVersion
	return nsHeadRow{NamespaceID: v.NamespaceID, OwnerID: r.OwnerID, CreatedBy: v.CreatedBy, Genesis: v.Genesis,
		CreatedAt: r.HeadCreatedAt, Version: v.Version, VersionCount: v.VersionCount, Name: v.Name, Description: v.Description,
		TTL: v.TTL, Digest: v.Digest, ProofType: v.ProofType, UpdatedAt: v.CreatedAt, Domain: r.Domain,
		RegistryCount: r.RegistryCount}.namespace(meta), nil
}

func (r nsHeadRow) versionRow() RowNamespaceVersion {
	return RowNamespaceVersion{Version: r.Version, NamespaceID: r.NamespaceID, VersionCount: r.VersionCount,
		CreatedBy: r.CreatedBy, Genesis: r.Genesis, Name: r.Name, Description: r.Description, Meta: r.Meta,
		TTL: r.TTL, Digest: r.Digest, ProofType: r.ProofType, CreatedAt: r.UpdatedAt}
}

// namespace is the entry as a lookup of this version shows it; meta is the decoded h.Meta.
func (h nsHeadRow) namespace(meta map[string]any) Namespace {
	n := Namespace{
		NamespaceID: h.NamespaceID, OwnerID: h.OwnerID, Name: h.Name, Description: h.Description, Meta: nonNil(meta),
		TTL: h.TTL, CreatedBy: h.CreatedBy, Genesis: h.Genesis, CreatedAt: msTime(h.CreatedAt),
		UpdatedAt: msTime(h.UpdatedAt), Version: h.Version, VersionCount: h.VersionCount, Digest: h.Digest,
		ProofType: h.ProofType, RegistryCount: h.RegistryCount,
	}
	if h.Domain != nil {
		n.Domain = *h.Domain
	}
	return n
}

// sealNamespace gives the head row its new version, digest and proof type at st.
func sealNamespace(h *nsHeadRow, st stamp) error {
	h.Version = newVersion()
	h.UpdatedAt = st.ms
	h.ProofType = proof.ProofType(RowNamespaceVersion{}.kind(), st.year)
	d, err := h.namespace(nil).Fields().Digest()
	h.Digest = d
	return err
}

// CreateNamespace creates a namespace owned by owner, its first version and the owner's
// membership, in one transaction.
func (s *Store) CreateNamespace(ctx context.Context, owner User, creatorDID string, in NamespaceInput) (Namespace, error) {
	meta, err := canonicalText(in.Meta)
	if err != nil {
		return Namespace{}, err
	}
	var h nsHeadRow
	err = s.tx(ctx, func(tx *gorm.DB) error {
		st := s.stamp() // inside the transaction: on SQLite after its write lock
		h = nsHeadRow{
			NamespaceID: newNamespaceID(), OwnerID: owner.ID, CreatedBy: creatorDID, Genesis: st.text, CreatedAt: st.ms,
			VersionCount: 1, Name: in.Name, Description: in.Description, Meta: meta, TTL: ttlOr(in.TTL, DefaultTTL),
		}
		if err := sealNamespace(&h, st); err != nil {
			return err
		}
		if err := tx.Create(&h).Error; err != nil {
			return translate(err, "create namespace")
		}
		if err := appendVersions(tx, []RowNamespaceVersion{h.versionRow()}); err != nil {
			return err
		}
		m := memberRow{NamespaceID: h.NamespaceID, UserID: owner.ID, Role: RoleOwner, CreatedAt: st.ms}
		return translate(tx.Create(&m).Error, "add owner")
	})
	if err != nil {
		return Namespace{}, err
	}
	return h.namespace(in.Meta), nil
}

func ttlOr(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}

// UpdateNamespace makes a new version with the patch applied. ifMatch, when not empty, must be
// the current version (else ErrStaleVersion, nothing written). A patch that changes nothing
// returns the current version without making a new one. The answer is the version this call
// wrote (or found), never one a concurrent writer made after it.
func (s *Store) UpdateNamespace(ctx context.Context, namespaceID, ifMatch string, p NamespacePatch) (Namespace, error) {
	var out nsHeadRow // the version this call wrote or found
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var h nsHeadRow
		if err := tx.Raw(`SELECT * FROM namespaces WHERE namespace_id = ?`+s.d.forUpdate(), namespaceID).Take(&h).Error; err != nil {
			return translate(err, "namespace")
		}
		if ifMatch != "" && ifMatch != h.Version {
			return ErrStaleVersion
		}
		out = h
		next := h
		if p.Name != nil {
			next.Name = *p.Name
		}
		if p.Description != nil {
			next.Description = *p.Description
		}
		if p.Meta != nil {
			m, err := canonicalText(p.Meta)
			if err != nil {
				return err
			}
			next.Meta = m
		}
		if p.TTL != nil {
			next.TTL = *p.TTL
		}
		if next.Name == h.Name && next.Description == h.Description && next.Meta == h.Meta && next.TTL == h.TTL {
			return nil
		}
		next.VersionCount = h.VersionCount + 1
		if err := sealNamespace(&next, s.stamp()); err != nil {
			return err
		}
		res := tx.Model(&nsHeadRow{}).Where("namespace_id = ? AND version = ?", h.NamespaceID, h.Version).Updates(map[string]any{
			"version": next.Version, "version_count": next.VersionCount, "name": next.Name, "description": next.Description,
			"meta": next.Meta, "ttl": next.TTL, "digest": next.Digest, "proof_type": next.ProofType, "updated_at": next.UpdatedAt,
		})
		if res.Error != nil {
			return translate(res.Error, "update namespace")
		}
		if res.RowsAffected != 1 {
			return ErrStaleVersion
		}
		out = next
		return appendVersions(tx, []RowNamespaceVersion{next.versionRow()})
	})
	if err != nil {
		return Namespace{}, err
	}
	meta, err := decodeObject(out.Meta)
	if err != nil {
		return Namespace{}, err
	}
	return out.namespace(meta), nil
}

// ResolveNamespace maps a {namespace} path value (a namespace_id or a verified domain) to the
// namespace_id.
func (s *Store) ResolveNamespace(ctx context.Context, ref string) (string, error) {
	var ids []string
	q := s.rdb(ctx).Model(&nsHeadRow{})
	if strings.HasPrefix(ref, NamespaceIDPrefix) {
		q = q.Where("namespace_id = ?", ref)
	} else {
		q = q.Where("domain = ?", strings.TrimSuffix(strings.ToLower(ref), "."))
	}
	if err := q.Limit(1).Pluck("namespace_id", &ids).Error; err != nil {
		return "", translate(err, "namespace")
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("namespace %q: %w", ref, ErrNotFound)
	}
	return ids[0], nil
}

// namespaceRefClause is the WHERE condition picking a namespace head n by id or verified domain.
const namespaceIDClause = "n.namespace_id = ?"

func namespaceRefClause(ref string) (string, string) {
	if strings.HasPrefix(ref, NamespaceIDPrefix) {
		return namespaceIDClause, ref
	}
	return "n.domain = ?", strings.TrimSuffix(strings.ToLower(ref), ".")
}

// GetNamespace reads a namespace (by id or verified domain) at the selected version.
func (s *Store) GetNamespace(ctx context.Context, ref string, sel VersionSel) (Namespace, error) {
	cond, arg := namespaceRefClause(ref)
	db := s.rdb(ctx)
	var rows []nsRead
	var err error
	head := `SELECT ` + nsVersionCols + `, n.owner_id, n.created_at AS head_created_at, n.domain, n.registry_count
		FROM namespaces n JOIN namespace_versions v ON v.namespace_id = n.namespace_id WHERE ` + cond
	switch {
	case sel.latest():
		err = db.Raw(head+` AND v.version = n.version`, arg).Scan(&rows).Error
	case sel.VersionID != "":
		err = db.Raw(head+` AND v.version = ?`, arg, sel.VersionID).Scan(&rows).Error
	default:
		err = db.Raw(head+` AND v.created_at < ? ORDER BY v.version_count DESC LIMIT 1`, arg, sel.Before.UnixMilli()).Scan(&rows).Error
	}
	if err != nil {
		return Namespace{}, translate(err, "namespace")
	}
	if len(rows) == 0 {
		return Namespace{}, fmt.Errorf("namespace %q: %w", ref, ErrNotFound)
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

// AddDelegate makes the user with this email (created when new) a delegate. Adding an existing
// member is ErrConflict.
func (s *Store) AddDelegate(ctx context.Context, namespaceID, email string) error {
	return s.tx(ctx, func(tx *gorm.DB) error {
		u, err := s.ensureUserTx(tx, email)
		if err != nil {
			return err
		}
		m := memberRow{NamespaceID: namespaceID, UserID: u.ID, Role: RoleDelegate, CreatedAt: s.nowMS()}
		if err := tx.Create(&m).Error; err != nil {
			err = translate(err, "add delegate")
			if errors.Is(err, ErrConflict) {
				return conflict.With("%s is already a member of the namespace", u.Email)
			}
			return err
		}
		return nil
	})
}

// ErrOwner: the owner cannot be removed as a delegate.
var ErrOwner = conflict.With("the owner cannot be removed")

// RemoveDelegate removes a delegate; ErrNotFound when the email is not a delegate.
func (s *Store) RemoveDelegate(ctx context.Context, namespaceID, email string) error {
	e, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *gorm.DB) error {
		var rows []memberRow
		if err := tx.Raw(`SELECT m.* FROM namespace_members m JOIN users u ON u.id = m.user_id
			WHERE m.namespace_id = ? AND u.email = ?`, namespaceID, e).Scan(&rows).Error; err != nil {
			return translate(err, "remove delegate")
		}
		if len(rows) == 0 {
			return fmt.Errorf("delegate %s: %w", e, ErrNotFound)
		}
		if rows[0].Role == RoleOwner {
			return ErrOwner
		}
		return translate(tx.Where("namespace_id = ? AND user_id = ?", namespaceID, rows[0].UserID).Delete(&memberRow{}).Error, "remove delegate")
	})
}

// FirstNamespaceOf returns the oldest namespace the user owns ("" when none).
func (s *Store) FirstNamespaceOf(ctx context.Context, userID string) (string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Model(&nsHeadRow{}).Where("owner_id = ?", userID).Order("created_at, namespace_id").Limit(1).Pluck("namespace_id", &ids).Error
	if err != nil || len(ids) == 0 {
		return "", translate(err, "namespaces of user")
	}
	return ids[0], nil
}

// Counts are the numbers of entries and of versions in the directory.
type Counts struct {
	Namespaces, Registries, Records, Versions int64
	// Users, and Members: namespace members and registry delegates.
	Users, Members int64
	// Subscriptions are watch subscriptions, WebhookEvents the events waiting in their outbox.
	Subscriptions, WebhookEvents int64
}

// Count counts the directory's entries and versions, its users and their memberships, with
// full counts (tests and tools; GET /svc/stats reads the maintained counters instead).
func (s *Store) Count(ctx context.Context) (Counts, error) {
	var c Counts
	err := s.db.WithContext(ctx).Raw(`SELECT
		(SELECT COUNT(*) FROM namespaces) AS namespaces,
		(SELECT COUNT(*) FROM registries) AS registries,
		(SELECT COUNT(*) FROM records) AS records,
		(SELECT COUNT(*) FROM users) AS users,
		(SELECT COUNT(*) FROM namespace_members) + (SELECT COUNT(*) FROM registry_delegates) AS members,
		(SELECT COUNT(*) FROM watch_subscriptions) AS subscriptions,
		(SELECT COUNT(*) FROM watch_outbox) AS webhook_events,
		(SELECT COUNT(*) FROM namespace_versions) + (SELECT COUNT(*) FROM registry_versions) +
		(SELECT COUNT(*) FROM record_versions) AS versions`).Scan(&c).Error
	return c, translate(err, "count")
}
