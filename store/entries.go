package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/recordschema"
)

// Registry and record states, registry tags (docs/api-guide.md, Publishing). The tags are
// recordschema's, which holds their built-in schemas; the contract's enums are held equal to
// these by the server's tests.
const (
	StateLive     = "live"
	StateInactive = "inactive"
	StateDraft    = "draft"

	TagCustom     = recordschema.TagCustom
	TagMembership = recordschema.TagMembership
	TagPublicKey  = recordschema.TagPublicKey
	TagRevoke     = recordschema.TagRevoke

	RoleOwner    = "owner"
	RoleDelegate = "delegate"

	// DefaultTTL is the ttl of an entry that does not give one (seconds).
	DefaultTTL = 600
)

// Errors of the publish side; each also matches ErrConflict or ErrPrecondition, and carries
// the client's sentence (Error.Message).
var (
	ErrRegistryInactive = conflict.With("the registry is inactive; records cannot be added or changed")
	ErrNameTaken        = conflict.With("the name is taken")
	ErrNotDraft         = conflict.With("the record is not a draft")
	ErrStaleVersion     = &Error{Kind: ErrPrecondition,
		Message: "Precondition failed: the entry has changed since that version (If-Match); nothing was written",
		err:     fmt.Errorf("%w: the entry has a newer version", ErrPrecondition)}
)

// VersionSel chooses which version of an entry a read returns: VersionID when set, else the
// version in effect just before Before when set (as_on), else the latest.
type VersionSel struct {
	VersionID string
	Before    time.Time
}

func (v VersionSel) latest() bool { return v.VersionID == "" && v.Before.IsZero() }

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
	RecordCount   int64 // its records now, drafts not counted (they are private)
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
}

// Fields returns the digest fields of this namespace version.
func (n Namespace) Fields() proof.NamespaceFields {
	return proof.NamespaceFields{NamespaceID: n.NamespaceID, Description: n.Description, Genesis: n.Genesis,
		CreatedBy: n.CreatedBy, Version: n.Version, VersionCount: n.VersionCount}
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

// canonicalText stores a JSON object as its canonical text (nil is {}).
func canonicalText(m map[string]any) (string, error) {
	if m == nil {
		return "{}", nil
	}
	b, err := proof.Canonicalize(m)
	if err != nil {
		return "", invalid.With("%v", err)
	}
	return string(b), nil
}

// decodeObject reads a stored JSON object back (numbers as float64, as JSON.parse reads them).
func decodeObject(s string) (map[string]any, error) {
	m := map[string]any{}
	if s == "" {
		return m, nil
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("stored JSON is corrupt: %w", err)
	}
	return m, nil
}

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func msTimePtr(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := msTime(*ms)
	return &t
}

func timeMSPtr(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	v := t.UTC().UnixMilli()
	return &v
}

// stamp is the moment of a write: the ms-precision time, its digest string and proof year.
type stamp struct {
	ms   int64
	text string
	year int
}

func (s *Store) stamp() stamp {
	t := s.now().UTC().Truncate(time.Millisecond)
	return stamp{ms: t.UnixMilli(), text: proof.FormatTime(t), year: t.Year()}
}
