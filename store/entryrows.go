package store

import (
	"strings"

	"github.com/svc-directory/svc/directory"
)

// The entry tables of the three kinds: their head rows (the latest version) and version rows,
// the read shapes that join them, and how each maps to and from the sealed entries of package
// directory. Database rows are exported only because GORM fills embedded structs through
// exported types; callers use the entry types of package directory.

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

// RowRecord holds the columns shared by the records head and record_versions.
// Database rows are exported only because GORM fills embedded structs through exported types;
// callers use the entry types of package directory.
type RowRecord struct {
	RecordID     string `gorm:"column:record_id"`
	RegistryID   string `gorm:"column:registry_id"`
	NamespaceID  string `gorm:"column:namespace_id"`
	RegistryName string `gorm:"column:registry_name"`
	RecordName   string `gorm:"column:record_name"`
	CreatedBy    string `gorm:"column:created_by"`
	Genesis      string `gorm:"column:genesis"`
	Version      string `gorm:"column:version"`
	VersionCount int64  `gorm:"column:version_count"`
	Description  string `gorm:"column:description"`
	Details      string `gorm:"column:details"`
	Meta         string `gorm:"column:meta"`
	TTL          int64  `gorm:"column:ttl"`
	State        string `gorm:"column:state"`
	ValidTill    *int64 `gorm:"column:valid_till"`
	Digest       string `gorm:"column:digest"`
	ProofType    string `gorm:"column:proof_type"`
}

type recHeadRow struct {
	RowRecord  `gorm:"embedded"`
	CreatedAt  int64  `gorm:"column:created_at"`
	UpdatedAt  int64  `gorm:"column:updated_at"`
	SearchText string `gorm:"column:search_text"`
}

func (recHeadRow) TableName() string { return "records" }

type recVersionRow struct {
	RowRecord `gorm:"embedded"`
	CreatedAt int64  `gorm:"column:created_at"`
	LogSeq    *int64 `gorm:"column:log_seq"` // its log queue position (nil for a draft)
}

func (recVersionRow) TableName() string { return "record_versions" }

// sealed is the version the row holds, made at updatedAt, of the record created at createdAt.
func (r RowRecord) sealed(createdAt, updatedAt int64) directory.SealedRecord {
	return directory.SealedRecord{RecordID: r.RecordID, RegistryID: r.RegistryID, NamespaceID: r.NamespaceID,
		RegistryName: r.RegistryName, RecordName: r.RecordName, CreatedBy: r.CreatedBy, Genesis: r.Genesis,
		RecordContent: directory.RecordContent{Description: r.Description, Details: r.Details, Meta: r.Meta, TTL: r.TTL,
			State: r.State, ValidTill: r.ValidTill},
		Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest, ProofType: r.ProofType,
		CreatedAt: createdAt, UpdatedAt: updatedAt}
}

func rowRecordOf(r directory.SealedRecord) RowRecord {
	return RowRecord{RecordID: r.RecordID, RegistryID: r.RegistryID, NamespaceID: r.NamespaceID, RegistryName: r.RegistryName,
		RecordName: r.RecordName, CreatedBy: r.CreatedBy, Genesis: r.Genesis, Version: r.Version, VersionCount: r.VersionCount,
		Description: r.Description, Details: r.Details, Meta: r.Meta, TTL: r.TTL, State: r.State, ValidTill: r.ValidTill,
		Digest: r.Digest, ProofType: r.ProofType}
}

type recRead struct {
	RowRecord        `gorm:"embedded"`
	VersionCreatedAt int64  `gorm:"column:v_created_at"`
	HeadCreatedAt    int64  `gorm:"column:head_created_at"`
	RegistryState    string `gorm:"column:registry_state"`
	Schema           string `gorm:"column:schema"`
	NamespaceName    string `gorm:"column:namespace_name"`
	NamespaceState   string `gorm:"column:namespace_state"`
	// The heads a general read (readRecord) found: "" at the level it missed.
	HeadNamespaceID string `gorm:"column:head_namespace_id"`
	HeadRegistryID  string `gorm:"column:head_registry_id"`
	HeadRecordID    string `gorm:"column:head_record_id"`
	HeadState       string `gorm:"column:head_state"`
}

func (r recRead) record() (directory.Record, error) {
	schema, err := directory.DecodeObject(r.Schema)
	if err != nil {
		return directory.Record{}, err
	}
	return r.sealed(r.HeadCreatedAt, r.VersionCreatedAt).Record(r.NamespaceName, r.RegistryState, schema)
}

func (r *recRead) scanDest() []any {
	return []any{&r.RecordID, &r.RegistryID, &r.NamespaceID, &r.RegistryName,
		&r.RecordName, &r.CreatedBy, &r.Genesis, &r.Version, &r.VersionCount, &r.Description, &r.Details, &r.Meta, &r.TTL,
		&r.State, &r.ValidTill, &r.Digest, &r.ProofType, &r.VersionCreatedAt, &r.HeadCreatedAt, &r.RegistryState, &r.Schema,
		&r.NamespaceName, &r.NamespaceState}
}
