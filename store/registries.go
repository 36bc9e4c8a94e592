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

// RegistryPatch is the body of update-registry, or a change of state (lifecycle.go).
type RegistryPatch struct {
	Description  *string
	Meta         map[string]any
	TTL          *int64
	QueryAllowed *bool
	// Action changes the registry's state; "" leaves it.
	Action Action
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
	DraftCount  int64 `gorm:"column:draft_count;->"` // read only: writes change it by statements
}

func (regHeadRow) TableName() string { return "registries" }

type regVersionRow struct {
	RowRegistry `gorm:"embedded"`
	CreatedAt   int64  `gorm:"column:created_at"`
	LogSeq      *int64 `gorm:"column:log_seq"` // its log queue position
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
	return r.RowRegistry.registry(schema, meta, r.NamespaceName, r.HeadCreatedAt, r.VersionCreatedAt, r.RecordCount), nil
}

// registry is the entry as a lookup of this version shows it (schema and meta decoded; the
// version was made at updatedAt).
func (r RowRegistry) registry(schema, meta map[string]any, namespaceName string, createdAt, updatedAt, recordCount int64) Registry {
	return Registry{
		RegistryID: r.RegistryID, NamespaceID: r.NamespaceID, NamespaceName: namespaceName, RegistryName: r.RegistryName,
		Tag: r.Tag, Schema: nonNil(schema), Description: r.Description, Meta: nonNil(meta), TTL: r.TTL, State: r.State,
		QueryAllowed: r.QueryAllowed, CreatedBy: r.CreatedBy, Genesis: r.Genesis, CreatedAt: msTime(createdAt),
		UpdatedAt: msTime(updatedAt), Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest,
		ProofType: r.ProofType, RecordCount: recordCount,
	}
}

// sealRegistry gives the row a new version, digest and proof type. schema and meta are the
// values of r.Schema and r.Meta; freshSchema and freshMeta, when not nil, are their canonical
// text as this write made it, which the digest takes as it is (as sealRecord does).
func sealRegistry(r *RowRegistry, schema, meta map[string]any, freshSchema, freshMeta *string, st stamp) error {
	r.Version = newVersion()
	r.ProofType = proof.ProofType(regVersionRow{}.kind(), st.year)
	var err error
	r.Digest, err = r.registry(schema, meta, "", 0, 0, 0).Fields().DigestCanonical(freshSchema, freshMeta)
	return err
}

// CreateRegistry creates a live registry in the namespace and counts it on the namespace. The
// answer is the version it wrote.
func (s *Store) CreateRegistry(ctx context.Context, namespaceID, creatorDID string, in RegistryInput) (Registry, error) {
	var out Registry
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var err error
		out, err = s.createRegistryTx(tx, namespaceID, creatorDID, in)
		return err
	})
	if err != nil {
		return Registry{}, err
	}
	return out, nil
}

// createRegistryTx is CreateRegistry inside the caller's transaction.
func (s *Store) createRegistryTx(tx *gorm.DB, namespaceID, creatorDID string, in RegistryInput) (Registry, error) {
	schema, err := canonicalText(in.Schema)
	if err != nil {
		return Registry{}, err
	}
	meta, err := canonicalText(in.Meta)
	if err != nil {
		return Registry{}, err
	}
	qa := true
	if in.QueryAllowed != nil {
		qa = *in.QueryAllowed
	}
	// The namespace's row is locked (its count) before the time of the new version is read, so
	// that the time follows the order of the namespace's writers.
	var names []string
	if err := tx.Raw(`UPDATE namespaces SET registry_count = registry_count + 1 WHERE namespace_id = ? RETURNING name`, namespaceID).
		Scan(&names).Error; err != nil {
		return Registry{}, translate(err, "count registry")
	}
	if len(names) != 1 {
		return Registry{}, fmt.Errorf("namespace %q: %w", namespaceID, ErrNotFound)
	}
	st := s.stamp()
	h := regHeadRow{RowRegistry: RowRegistry{
		RegistryID: newUUID(), NamespaceID: namespaceID, RegistryName: in.RegistryName, Tag: in.Tag, Schema: schema,
		CreatedBy: creatorDID, Genesis: st.text, VersionCount: 1, Description: in.Description, Meta: meta,
		TTL: ttlOr(in.TTL, DefaultTTL), State: StateLive, QueryAllowed: qa,
	}, CreatedAt: st.ms, UpdatedAt: st.ms}
	if err := sealRegistry(&h.RowRegistry, nil, nil, &h.Schema, &h.Meta, st); err != nil {
		return Registry{}, err
	}
	if err := tx.Create(&h).Error; err != nil {
		if err = translate(err, "create registry"); IsConflict(err) {
			return Registry{}, ErrNameTaken.With("registry %q already exists in the namespace", in.RegistryName)
		}
		return Registry{}, err
	}
	if err := appendVersions(tx, []regVersionRow{{RowRegistry: h.RowRegistry, CreatedAt: st.ms}}); err != nil {
		return Registry{}, err
	}
	return h.registry(in.Schema, in.Meta, names[0], h.CreatedAt, st.ms, 0), nil
}

// UpdateRegistry makes a new version with the patch applied (ifMatch as for UpdateNamespace).
// A patch that changes nothing returns the current version. The answer is the version this
// call wrote (or found), never one a concurrent writer made after it.
func (s *Store) UpdateRegistry(ctx context.Context, namespaceID, name, ifMatch string, p RegistryPatch) (Registry, error) {
	var out regHeadRow // the version this call wrote or found
	var nsName string
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var h regHeadRow
		if err := tx.Raw(`SELECT * FROM registries WHERE namespace_id = ? AND registry_name = ?`+s.d.forUpdate(), namespaceID, name).Take(&h).Error; err != nil {
			return translate(err, "registry")
		}
		if ifMatch != "" && ifMatch != h.Version {
			return ErrStaleVersion
		}
		var err error
		if nsName, err = namespaceNameTx(tx, namespaceID); err != nil {
			return err
		}
		out = h
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
		if p.Action != "" {
			if next.State, err = registryLifecycle.next(h.State, p.Action); err != nil {
				return err
			}
		}
		if next == h.RowRegistry {
			return nil
		}
		// An archived registry changes only its state; a revoked one, nothing.
		if h.State == StateRevoked {
			return ErrRegistryRevoked
		}
		if h.State == StateArchived && p.Action == "" {
			return ErrRegistryArchived
		}
		st := s.stamp()
		next.VersionCount = h.VersionCount + 1
		schema, err := decodeObject(next.Schema)
		if err != nil {
			return err
		}
		meta := p.Meta
		if meta == nil {
			if meta, err = decodeObject(next.Meta); err != nil {
				return err
			}
		}
		var freshMeta *string
		if p.Meta != nil {
			freshMeta = &next.Meta
		}
		if err := sealRegistry(&next, schema, meta, nil, freshMeta, st); err != nil {
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
		out.RowRegistry, out.UpdatedAt = next, st.ms
		return appendVersions(tx, []regVersionRow{{RowRegistry: next, CreatedAt: st.ms}})
	})
	if err != nil {
		return Registry{}, err
	}
	schema, err := decodeObject(out.Schema)
	if err != nil {
		return Registry{}, err
	}
	meta, err := decodeObject(out.Meta)
	if err != nil {
		return Registry{}, err
	}
	return out.registry(schema, meta, nsName, out.CreatedAt, out.UpdatedAt, out.RecordCount-out.DraftCount), nil
}

// namespaceNameTx reads the current name of a namespace inside the caller's transaction.
func namespaceNameTx(tx *gorm.DB, namespaceID string) (string, error) {
	var names []string
	if err := tx.Model(&nsHeadRow{}).Where("namespace_id = ?", namespaceID).Limit(1).Pluck("name", &names).Error; err != nil {
		return "", translate(err, "namespace")
	}
	if len(names) == 0 {
		return "", fmt.Errorf("namespace %q: %w", namespaceID, ErrNotFound)
	}
	return names[0], nil
}

// GetRegistry reads a registry of the namespace (id or verified domain) at the selected version.
func (s *Store) GetRegistry(ctx context.Context, nsRef, name string, sel VersionSel) (Registry, error) {
	cond, arg := namespaceRefClause(nsRef)
	q := `SELECT v.registry_id, v.namespace_id, v.registry_name, v.tag, v.schema, v.created_by, v.genesis, v.version,
			v.version_count, v.description, v.meta, v.ttl, v.state, v.query_allowed, v.digest, v.proof_type,
			v.created_at AS v_created_at, g.created_at AS head_created_at, g.record_count - g.draft_count AS record_count, n.name AS namespace_name
		FROM namespaces n
		JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = ?
		JOIN registry_versions v ON v.registry_id = g.registry_id
		WHERE ` + cond
	var rows []regRead
	var err error
	db := s.rdb(ctx)
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
	err := s.rdb(ctx).Model(&regVersionRow{}).Where("registry_id = ?", registryID).
		Order("version_count DESC").Pluck("version", &out).Error
	return out, translate(err, "registry versions")
}
