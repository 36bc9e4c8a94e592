package dedi

import (
	"crypto/sha256"
	"testing"
	"time"
)

// testKey is a fixed signing key named kid (its seed is the SHA-256 of the kid).
func testKey(kid string) PrivateKey {
	seed := sha256.Sum256([]byte(kid))
	return KeyFromSeed(kid, seed[:])
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// fixture is a publisher at pub.example with one registry "keys" of two records, signed by
// key; each field can be changed before build.
type fixture struct {
	domain          string
	key             PrivateKey
	manifestKeys    []Key
	manifestKey     PrivateKey // signs the manifest; default key
	file            File
	manifestUpdated time.Time
	manifestNext    time.Time
	inline          bool
}

func newFixture(t testing.TB) *fixture {
	k := testKey("key-1")
	return &fixture{
		domain: "pub.example", key: k, manifestKeys: []Key{k.Public()}, manifestKey: k,
		manifestUpdated: mustTime(t, "2026-08-20T00:00:00Z"), manifestNext: mustTime(t, "2026-09-01T00:00:00Z"),
		file: File{
			SourceURL: "https://pub.example/dedi/dedi.keys.json", NextUpdate: mustTime(t, "2026-09-01T00:00:00Z"),
			Publisher: Publisher{Domain: "pub.example"}, Namespace: "pub.example",
			Registry: Registry{Name: "keys", State: "live", UpdatedAt: mustTime(t, "2026-08-20T00:00:00Z"),
				Schema: map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{"id": map[string]any{"type": "string"}}}},
			Records: []Record{
				{Name: "a", Details: map[string]any{"id": "a", "n": 1.5}},
				{Name: "b", Details: map[string]any{"id": "b"}, Description: "second", Meta: map[string]any{"x": true}},
			},
		},
	}
}

// build signs the file and the manifest listing it.
func (fx *fixture) build(t testing.TB) (file, manifest []byte) {
	t.Helper()
	var err error
	file, err = SignFile(&fx.file, fx.key)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Domain: fx.domain, Keys: fx.manifestKeys, UpdatedAt: fx.manifestUpdated, NextUpdate: fx.manifestNext}
	if fx.inline {
		f, err := ParseFile(file, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		canon, err := f.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		m.Files = []Entry{{Registry: fx.file.Registry.Name, Inline: canon}}
	} else {
		m.Files = []Entry{{Registry: fx.file.Registry.Name, URL: fx.file.SourceURL, Digest: Digest(file)}}
	}
	manifest, err = SignManifest(m, fx.manifestKey)
	if err != nil {
		t.Fatal(err)
	}
	return file, manifest
}

func (fx *fixture) input(t testing.TB, now string) Input {
	file, manifest := fx.build(t)
	return Input{File: file, Manifest: manifest, ManifestURL: WellKnownURL(fx.domain), Now: mustTime(t, now)}
}
