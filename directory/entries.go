package directory

import (
	"time"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/recordschema"
)

// Registry tags, member roles and defaults (docs/api-guide.md, Publishing). The tags are
// recordschema's, which holds their built-in schemas; the contract's enums are held equal to
// these by the server's tests.
const (
	TagCustom     = recordschema.TagCustom
	TagMembership = recordschema.TagMembership
	TagPublicKey  = recordschema.TagPublicKey
	TagRevoke     = recordschema.TagRevoke

	RoleOwner    = "owner"
	RoleDelegate = "delegate"

	// DefaultTTL is the ttl of an entry that does not give one (seconds).
	DefaultTTL = 600
)

// VersionSel chooses which version of an entry a read returns: VersionID when set, else the
// version in effect just before Before when set (as_on), else the latest.
type VersionSel struct {
	VersionID string
	Before    time.Time
}

// Latest reports whether the selection is the latest version.
func (v VersionSel) Latest() bool { return v.VersionID == "" && v.Before.IsZero() }

// Namespace is one version of a namespace plus its current derived fields.
type Namespace struct {
	NamespaceID   string
	OwnerID       string
	Name          string
	Description   string
	Meta          map[string]any
	TTL           int64
	CreatedBy     string
	Genesis       string    // creation timestamp string, as in the digest
	CreatedAt     time.Time // creation
	UpdatedAt     time.Time // when this version was made
	Version       string
	VersionCount  int64
	Digest        string
	ProofType     string
	State         string // live or deleted (a digest field when deleted, proof.NamespaceFields)
	Domain        string // verified domain, "" when none (current, not versioned)
	RegistryCount int64  // current
}

// Registry is one version of a registry plus its current derived fields.
type Registry struct {
	RegistryID    string
	NamespaceID   string
	NamespaceName string // current name of the namespace
	RegistryName  string
	Tag           string
	Schema        map[string]any
	Description   string
	Meta          map[string]any
	TTL           int64
	State         string
	QueryAllowed  bool
	CreatedBy     string
	Genesis       string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	Version       string
	VersionCount  int64
	Digest        string
	ProofType     string
	RecordCount   int64 // current
}

// Record is one version of a record plus its registry's current state and schema.
type Record struct {
	RecordID      string
	RegistryID    string
	NamespaceID   string
	NamespaceName string
	RegistryName  string
	RegistryState string // current state of the parent registry
	Schema        map[string]any
	RecordName    string
	Description   string
	Details       map[string]any
	Meta          map[string]any
	TTL           int64
	State         string
	ValidTill     *time.Time
	CreatedBy     string
	Genesis       string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	Version       string
	VersionCount  int64
	Digest        string
	ProofType     string
	// LatestState is the state of the record's latest version, which a read of an older
	// version needs for the drafts rule (drafts.go); it is not part of the answer.
	LatestState string
	// OriginState is the state of the DeDi file an origin-hosted record was indexed from (live,
	// inactive, stale, withdrawn; "" for a record published here), which EffectiveState reads.
	OriginState string
}

// Fields returns the digest fields of this namespace version.
func (n Namespace) Fields() proof.NamespaceFields {
	return proof.NamespaceFields{NamespaceID: n.NamespaceID, Description: n.Description, Genesis: n.Genesis,
		CreatedBy: n.CreatedBy, Version: n.Version, VersionCount: n.VersionCount, State: n.State}
}

// Fields returns the digest fields of this registry version.
func (r Registry) Fields() proof.RegistryFields {
	return proof.RegistryFields{NamespaceID: r.NamespaceID, RegistryName: r.RegistryName, Description: r.Description,
		Schema: r.Schema, Tag: r.Tag, Version: r.Version, VersionCount: r.VersionCount, State: r.State,
		Genesis: r.Genesis, CreatedBy: r.CreatedBy, Meta: r.Meta, TTL: r.TTL}
}

// Fields returns the digest fields of this record version.
func (r Record) Fields() proof.RecordFields {
	return proof.RecordFields{NamespaceID: r.NamespaceID, RegistryID: r.RegistryID, RegistryName: r.RegistryName,
		RecordName: r.RecordName, Description: r.Description, Details: r.Details, Version: r.Version,
		VersionCount: r.VersionCount, State: r.State, Genesis: r.Genesis, CreatedBy: r.CreatedBy, Meta: r.Meta, TTL: r.TTL}
}
