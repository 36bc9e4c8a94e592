package recordschema

import (
	"strings"
	"testing"
)

func TestBuiltinsCompileAndValidate(t *testing.T) {
	good := map[string]map[string]any{
		TagMembership: {"member_id": "m-1", "status": "active", "email": "a@example.com"},
		TagPublicKey:  {"key_id": "k1", "key_type": "Ed25519", "public_key": "z6Mk...", "status": "active"},
		TagRevoke:     {"credential_id": "c-1", "status": "revoked", "revoked_at": "2026-01-02T03:04:05.000Z"},
	}
	for _, tag := range StandardTags {
		t.Run(tag, func(t *testing.T) {
			s, err := Compile(Builtin(tag))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(good[tag]); err != nil {
				t.Fatalf("good details refused: %v", err)
			}
			if err := s.Validate(map[string]any{}); err == nil {
				t.Fatal("empty details accepted")
			}
		})
	}
	if Builtin(TagCustom) != nil || Builtin("nope") != nil {
		t.Fatal("custom and unknown tags have no built-in schema")
	}
}

func TestValidateNamesThePointer(t *testing.T) {
	s, err := Compile(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"email":   map[string]any{"type": "string", "format": "email"},
			"address": map[string]any{"type": "object", "properties": map[string]any{"zip": map[string]any{"type": "string"}}},
			"a/b":     map[string]any{"type": "integer"},
		},
		"required": []any{"email"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		details map[string]any
		want    string // substring of the error; "" means valid
	}{
		{"valid", map[string]any{"email": "a@example.com"}, ""},
		{"missing required", map[string]any{}, "at /details: "},
		{"wrong type", map[string]any{"email": 5.0}, "at /details/email: "},
		{"bad format", map[string]any{"email": "not-an-email"}, "at /details/email: "},
		{"nested", map[string]any{"email": "a@b.c", "address": map[string]any{"zip": 1.0}}, "at /details/address/zip: "},
		{"escaped pointer", map[string]any{"email": "a@b.c", "a/b": "x"}, "at /details/a~1b: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Validate(tc.details)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestCompileRefusesBadAndOutsideSchemas(t *testing.T) {
	tests := []struct {
		name string
		doc  map[string]any
	}{
		{"nil", nil},
		{"bad type keyword", map[string]any{"type": "strin"}},
		{"bad minLength", map[string]any{"minLength": -1.0}},
		{"file reference", map[string]any{"$ref": "file:///etc/passwd"}},
		{"remote reference", map[string]any{"$ref": "https://example.com/schema.json"}},
		{"bad pattern", map[string]any{"pattern": "("}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Compile(tc.doc); err == nil {
				t.Fatal("compiled")
			}
		})
	}
}

func TestCacheCompilesOncePerRegistry(t *testing.T) {
	c := NewCache(4)
	doc := map[string]any{"type": "object"}
	a, err := c.Get("r1", doc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Get("r1", map[string]any{"type": "string"}) // the cached schema wins: schemas never change
	if a != b {
		t.Fatal("second Get compiled again")
	}
	for i := 0; i < 10; i++ {
		if _, err := c.Get(string(rune('a'+i)), doc); err != nil {
			t.Fatal(err)
		}
	}
	// The bound itself is the cache package's (internal/cache TestBounded).
	if _, err := c.Get("bad", map[string]any{"type": 5.0}); err == nil {
		t.Fatal("bad schema cached")
	}
}
