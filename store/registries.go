package store

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/proof"
)

// RegistryInput is the body of create-registry (the schema already checked by the caller).
type RegistryInput struct {
	RegistryName string
	Description  string
	Tag          string
	Schema       map[string]any
	Meta         map[string]any
	TTL          *int64
	QueryAllowed *bool
}

// RegistryPatch is the body of update-registry, plus the state for activate/deactivate.
type RegistryPatch struct {
	Description  *string
	Meta         map[string]any
	TTL          *int64
	QueryAllowed *bool
	State        *string
}

// RowRegistry holds the columns shared by the registries head and registry_versions.
// Database rows are exported only because GORM fills embedded structs through exported types;
// callers use the entry types (Namespace, Registry, Record, User).
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
}

func (regHeadRow) TableName() string { return "registries" }

type regVersionRow struct {
	RowRegistry `gorm:"embedded"`
	CreatedAt   int64 `gorm:"column:created_at"`
}

func (regVersionRow) TableName() string { return "registry_versions" }

// regRead is a version joined with the head's and the namespace's current fields.
type regRead struct {
	RowRegistry      `gorm:"embedded"`
	VersionCreatedAt int64  `gorm:"column:v_created_at"`
	HeadCreatedAt    int64  `gorm:"column:head_created_at"`
	RecordCount      int64  `gorm:"column:record_count"`
	NamespaceName    string `gorm:"column:namespace_name"`
}

func (r regRead) registry() (Registry, error) {
	schema, err := decodeObject(r.Schema)
	if err != nil {
		return Registry{}, err
	}
	meta, err := decodeObject(r.Meta)
	if err != nil {
		return Registry{}, err
	}
	return Registry{
		RegistryID: r.RegistryID, NamespaceID: r.NamespaceID, NamespaceName: r.NamespaceName, RegistryName: r.RegistryName,
		Tag: r.Tag, Schema: schema, Description: r.Description, Meta: meta, TTL: r.TTL, State: r.State,
		QueryAllowed: r.QueryAllowed, CreatedBy: r.CreatedBy, Genesis: r.Genesis, CreatedAt: msTime(r.HeadCreatedAt),
		UpdatedAt: msTime(r.VersionCreatedAt), Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest,
		ProofType: r.ProofType, RecordCount: r.RecordCount,
	}, nil
}

func sealRegistry(r *RowRegistry, st stamp) error {
	r.Version = newVersion()
	r.ProofType = proof.ProofType(proof.KindRegistry, st.year)
	schema, err := decodeObject(r.Schema)
	if err != nil {
		return err
	}
	meta, err := decodeObject(r.Meta)
	if err != nil {
		return err
	}
	r.Digest, err = proof.RegistryFields{NamespaceID: r.NamespaceID, RegistryName: r.RegistryName, Description: r.Description,
		Schema: schema, Tag: r.Tag, Version: r.Version, VersionCount: r.VersionCount, State: r.State, Genesis: r.Genesis,
		CreatedBy: r.CreatedBy, Meta: meta, TTL: r.TTL}.Digest()
	return err
}

// CreateRegistry creates a live registry in the namespace and counts it on the namespace. The
// answer is its first version, even when an update by its name follows at once.
func (s *Store) CreateRegistry(ctx context.Context, namespaceID, creatorDID string, in RegistryInput) (Registry, error) {
	var h regHeadRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var err error
		h, err = s.createRegistryTx(tx, namespaceID, creatorDID, in)
		return err
	})
	if err != nil {
		return Registry{}, err
	}
	return s.GetRegistry(ctx, namespaceID, in.RegistryName, VersionSel{VersionID: h.Version})
}

// createRegistryTx is CreateRegistry inside the caller's transaction.
func (s *Store) createRegistryTx(tx *gorm.DB, namespaceID, creatorDID string, in RegistryInput) (regHeadRow, error) {
	schema, err := canonicalText(in.Schema)
	if err != nil {
		return regHeadRow{}, err
	}
	meta, err := canonicalText(in.Meta)
	if err != nil {
		return regHeadRow{}, err
	}
	qa := true
	if in.QueryAllowed != nil {
		qa = *in.QueryAllowed
	}
	st := s.stamp()
	h := regHeadRow{RowRegistry: RowRegistry{
		RegistryID: newUUID(), NamespaceID: namespaceID, RegistryName: in.RegistryName, Tag: in.Tag, Schema: schema,
		CreatedBy: creatorDID, Genesis: st.text, VersionCount: 1, Description: in.Description, Meta: meta,
		TTL: ttlOr(in.TTL, DefaultTTL), State: StateLive, QueryAllowed: qa,
	}, CreatedAt: st.ms, UpdatedAt: st.ms}
	if err := sealRegistry(&h.RowRegistry, st); err != nil {
		return regHeadRow{}, err
	}
	res := tx.Exec(`UPDATE namespaces SET registry_count = registry_count + 1 WHERE namespace_id = ?`, namespaceID)
	if res.Error != nil {
		return regHeadRow{}, translate(res.Error, "count registry")
	}
	if res.RowsAffected != 1 {
		return regHeadRow{}, fmt.Errorf("namespace %q: %w", namespaceID, ErrNotFound)
	}
	if err := tx.Create(&h).Error; err != nil {
		if err = translate(err, "create registry"); IsConflict(err) {
			return regHeadRow{}, fmt.Errorf("%w: registry %q already exists in the namespace", ErrNameTaken, in.RegistryName)
		}
		return regHeadRow{}, err
	}
	v := regVersionRow{RowRegistry: h.RowRegistry, CreatedAt: st.ms}
	return h, translate(tx.Create(&v).Error, "registry version")
}

// UpdateRegistry makes a new version with the patch applied (ifMatch as for UpdateNamespace).
// A patch that changes nothing returns the current version. The answer is the version this
// call wrote (or found), never one a concurrent writer made after it.
func (s *Store) UpdateRegistry(ctx context.Context, namespaceID, name, ifMatch string, p RegistryPatch) (Registry, error) {
	var version string
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var h regHeadRow
		if err := tx.Raw(`SELECT * FROM registries WHERE namespace_id = ? AND registry_name = ?`+s.forUpdate(), namespaceID, name).Take(&h).Error; err != nil {
			return translate(err, "registry")
		}
		if ifMatch != "" && ifMatch != h.Version {
			return ErrStaleVersion
		}
		version = h.Version
		next := h.RowRegistry
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
		if p.QueryAllowed != nil {
			next.QueryAllowed = *p.QueryAllowed
		}
		if p.State != nil {
			next.State = *p.State
		}
		if next == h.RowRegistry {
			return nil
		}
		st := s.stamp()
		next.VersionCount = h.VersionCount + 1
		if err := sealRegistry(&next, st); err != nil {
			return err
		}
		res := tx.Model(&regHeadRow{}).Where("registry_id = ? AND version = ?", h.RegistryID, h.Version).Updates(map[string]any{
			"version": next.Version, "version_count": next.VersionCount, "description": next.Description, "meta": next.Meta,
			"ttl": next.TTL, "state": next.State, "query_allowed": next.QueryAllowed, "digest": next.Digest,
			"proof_type": next.ProofType, "updated_at": st.ms,
		})
		if res.Error != nil {
			return translate(res.Error, "update registry")
		}
		if res.RowsAffected != 1 {
			return ErrStaleVersion
		}
		v := regVersionRow{RowRegistry: next, CreatedAt: st.ms}
		version = next.Version
		return translate(tx.Create(&v).Error, "registry version")
	})
	if err != nil {
		return Registry{}, err
	}
	return s.GetRegistry(ctx, namespaceID, name, VersionSel{VersionID: version})
}

// GetRegistry reads a registry of the namespace (id or verified domain) at the selected version.
func (s *Store) GetRegistry(ctx context.Context, nsRef, name string, sel VersionSel) (Registry, error) {
	cond, arg := namespaceRefClause(nsRef)
	q := `SELECT v.registry_id, v.namespace_id, v.registry_name, v.tag, v.schema, v.created_by, v.genesis, v.version,
			v.version_count, v.description, v.meta, v.ttl, v.state, v.query_allowed, v.digest, v.proof_type,
			v.created_at AS v_created_at, g.created_at AS head_created_at, g.record_count, n.name AS namespace_name
		FROM namespaces n
		JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = ?
		JOIN registry_versions v ON v.registry_id = g.registry_id
		WHERE ` + cond
	var rows []regRead
	var err error
	db := s.db.WithContext(ctx)
	switch {
	case sel.latest():
		err = db.Raw(q+` AND v.version = g.version`, name, arg).Scan(&rows).Error
	case sel.VersionID != "":
		err = db.Raw(q+` AND v.version = ?`, name, arg, sel.VersionID).Scan(&rows).Error
	default:
		err = db.Raw(q+` AND v.created_at < ? ORDER BY v.version_count DESC LIMIT 1`, name, arg, sel.Before.UnixMilli()).Scan(&rows).Error
	}
	if err != nil {
		return Registry{}, translate(err, "registry")
	}
	if len(rows) == 0 {
		return Registry{}, fmt.Errorf("registry %q: %w", name, ErrNotFound)
	}
	return rows[0].registry()
}

// RegistryVersions lists a registry's version ids, newest first.
func (s *Store) RegistryVersions(ctx context.Context, registryID string) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Model(&regVersionRow{}).Where("registry_id = ?", registryID).
		Order("version_count DESC").Pluck("version", &out).Error
	return out, translate(err, "registry versions")
}
