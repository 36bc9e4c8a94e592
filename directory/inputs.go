package directory

import "time"

// MaxBatch is the most records one add-records call may carry.
const MaxBatch = 1000

// MaxDetails bounds a record's details, measured as canonical JSON (docs/operator-guide.md, Limits).
const MaxDetails = 64 << 10

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

// RecordInput is one add-record body (details already validated against the registry schema).
type RecordInput struct {
	RecordName  string
	Description string
	Details     map[string]any
	Meta        map[string]any
	TTL         *int64
	ValidTill   *time.Time
	State       string // "" means live
}

// RecordPatch is the body of update-record; Action is set by the lifecycle operations.
type RecordPatch struct {
	Details      map[string]any
	Description  *string
	Meta         map[string]any
	TTL          *int64
	ValidTill    *time.Time
	ClearValidTo bool // valid_till: null
	// Action changes the record's state (lifecycle.go); "" leaves it.
	Action Action
}

// AddedRecord is what add-records answers per record.
type AddedRecord struct {
	RecordName string
	RecordID   string
	Digest     string
	Version    string
}

// TTLOr is the ttl given, or def when none was.
func TTLOr(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}
