// Package recordschema compiles registry schemas (JSON Schema 2020-12) and validates record
// details against them. It holds the built-in schemas of the standard tags, refuses schemas
// that reach outside themselves (no $ref to files or the network), and caches compiled schemas
// by registry (a registry's schema never changes).
package recordschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/svc-directory/svc/internal/cache"
)

var printer = message.NewPrinter(language.English)

// Tags with built-in schemas; "custom" brings its own.
const (
	TagCustom     = "custom"
	TagMembership = "membership"
	TagPublicKey  = "public_key"
	TagRevoke     = "revoke"
)

// StandardTags lists the tags with built-in schemas (the tag query's tags).
var StandardTags = []string{TagMembership, TagPublicKey, TagRevoke}

// IsStandardTag reports whether tag has a built-in schema.
func IsStandardTag(tag string) bool { return slices.Contains(StandardTags, tag) }

// Builtin returns a fresh copy of the built-in schema of a standard tag, or nil.
func Builtin(tag string) map[string]any {
	switch tag {
	case TagMembership:
		return map[string]any{
			"$schema":     "https://json-schema.org/draft/2020-12/schema",
			"title":       "membership",
			"description": "A member of an organization or group.",
			"type":        "object",
			"required":    []any{"member_id", "status"},
			"properties": map[string]any{
				"member_id": map[string]any{"type": "string", "minLength": 1},
				"name":      map[string]any{"type": "string"},
				"email":     map[string]any{"type": "string", "format": "email"},
				"role":      map[string]any{"type": "string"},
				"status":    map[string]any{"enum": []any{"active", "suspended", "ended"}},
				"since":     map[string]any{"type": "string", "format": "date-time"},
				"until":     map[string]any{"type": "string", "format": "date-time"},
			},
		}
	case TagPublicKey:
		return map[string]any{
			"$schema":     "https://json-schema.org/draft/2020-12/schema",
			"title":       "public_key",
			"description": "A public key published for a subject.",
			"type":        "object",
			"required":    []any{"key_id", "key_type", "public_key", "status"},
			"properties": map[string]any{
				"key_id":     map[string]any{"type": "string", "minLength": 1},
				"key_type":   map[string]any{"enum": []any{"Ed25519", "X25519", "secp256k1", "P-256", "P-384", "RSA"}},
				"public_key": map[string]any{"type": "string", "minLength": 1, "description": "multibase, JWK thumbprint or PEM text"},
				"controller": map[string]any{"type": "string"},
				"purposes": map[string]any{"type": "array", "uniqueItems": true, "items": map[string]any{
					"enum": []any{"authentication", "assertionMethod", "keyAgreement", "capabilityInvocation", "capabilityDelegation"}}},
				"status":     map[string]any{"enum": []any{"active", "revoked"}},
				"valid_from": map[string]any{"type": "string", "format": "date-time"},
			},
		}
	case TagRevoke:
		return map[string]any{
			"$schema":     "https://json-schema.org/draft/2020-12/schema",
			"title":       "revoke",
			"description": "The revocation status of a credential.",
			"type":        "object",
			"required":    []any{"credential_id", "status"},
			"properties": map[string]any{
				"credential_id": map[string]any{"type": "string", "minLength": 1},
				"status":        map[string]any{"enum": []any{"revoked", "suspended", "active"}},
				"revoked_at":    map[string]any{"type": "string", "format": "date-time"},
				"reason":        map[string]any{"type": "string"},
			},
		}
	}
	return nil
}

// Schema is a compiled registry schema.
type Schema struct{ s *jsonschema.Schema }

// noLoader refuses every external reference: a registry schema must be self-contained.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external references are not allowed (%s)", url)
}

const resourceURL = "urn:svc:registry-schema"

// Compile checks and compiles a schema. The error message is fit for a 400 answer.
func Compile(doc map[string]any) (*Schema, error) {
	if doc == nil {
		return nil, errors.New("schema is missing")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON Schema: %s", shorten(err.Error()))
	}
	s, err := c.Compile(resourceURL)
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON Schema 2020-12: %s", shorten(err.Error()))
	}
	return &Schema{s: s}, nil
}

// Validate checks details against the schema. The error names the JSON pointer of the first
// failing place inside details, e.g. `details/email: ...`.
func (s *Schema) Validate(details map[string]any) error {
	if details == nil {
		details = map[string]any{}
	}
	err := s.s.Validate(details)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("details do not match the registry schema: %s", shorten(err.Error()))
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	ptr := "/details"
	for _, p := range leaf.InstanceLocation {
		ptr += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(p)
	}
	msg := leaf.ErrorKind.LocalizedString(printer)
	return fmt.Errorf("details do not match the registry schema at %s: %s", ptr, shorten(msg))
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// Cache keeps compiled schemas by registry id. Registry schemas never change, so entries
// never go stale; the cache is bounded and evicts the least used when full.
type Cache struct{ c *cache.Cache[string, *Schema] }

// NewCache makes a cache of at most max schemas.
func NewCache(max int) *Cache {
	return &Cache{c: cache.New[string, *Schema](cache.Options{MaxSize: max})}
}

// Get returns the compiled schema of a registry, compiling doc on a miss.
func (c *Cache) Get(registryID string, doc map[string]any) (*Schema, error) {
	if s, ok := c.c.Get(registryID); ok {
		return s, nil
	}
	s, err := Compile(doc)
	if err != nil {
		return nil, err
	}
	c.c.Set(registryID, s)
	return s, nil
}

// GetText is Get for a schema given as its JSON text, which is decoded only on a miss.
func (c *Cache) GetText(registryID, text string) (*Schema, error) {
	if s, ok := c.c.Get(registryID); ok {
		return s, nil
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("recordschema: schema of registry %s: %w", registryID, err)
	}
	return c.Get(registryID, doc)
}
