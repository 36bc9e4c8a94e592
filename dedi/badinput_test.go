package dedi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// edit parses a signed document, changes it and writes it back unsigned-again (the change
// breaks nothing but what the test is about when resign is true).
func resignFile(t *testing.T, raw []byte, key PrivateKey, change func(map[string]any)) []byte {
	t.Helper()
	f, err := ParseFile(raw, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	change(f.doc)
	jws, err := Sign(f.doc, key)
	if err != nil {
		t.Fatal(err)
	}
	f.doc["proof"] = map[string]any{"verification_method": key.Kid, "canonicalization": "JCS", "jws": jws}
	out, err := marshal(f.doc, true)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const now = "2026-08-22T06:30:00Z"

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	type mutate func(t *testing.T, fx *fixture, in *Input)
	relist := func(t *testing.T, fx *fixture, in *Input) {
		// sign the manifest again, listing the (changed) file by its new digest
		m := &Manifest{Domain: fx.domain, Keys: fx.manifestKeys, UpdatedAt: fx.manifestUpdated, NextUpdate: fx.manifestNext,
			Files: []Entry{{Registry: fx.file.Registry.Name, URL: fx.file.SourceURL, Digest: Digest(in.File)}}}
		var err error
		if in.Manifest, err = SignManifest(m, fx.manifestKey); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		change mutate
		want   Outcome
		reason string
	}{
		{"authentic as built", func(*testing.T, *fixture, *Input) {}, Authentic, ""},
		{"malformed JSON", func(_ *testing.T, _ *fixture, in *Input) { in.File = in.File[:len(in.File)/2] }, Invalid, "invalid JSON"},
		{"not an object", func(_ *testing.T, _ *fixture, in *Input) { in.File = []byte(`[1,2]`) }, Invalid, "not a DeDi file"},
		{"duplicate JSON member", func(_ *testing.T, _ *fixture, in *Input) {
			in.File = bytes.Replace(in.File, []byte(`"namespace": "pub.example",`), []byte(`"namespace": "pub.example", "namespace": "x",`), 1)
		}, Invalid, "duplicate"},
		{"duplicate record names", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) {
				recs := d["records"].([]any)
				d["records"] = append(recs, recs[0])
			})
			relist(t, fx, in)
		}, Invalid, `record name "a" appears more than once`},
		{"wrong type", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) { d["type"] = "dedi-manifest" })
			relist(t, fx, in)
		}, Invalid, "/type"},
		{"unknown member", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) { d["extra"] = 1.0 })
			relist(t, fx, in)
		}, Invalid, "extra"},
		{"record with a member of its own", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) {
				d["records"].([]any)[1].(map[string]any)["state"] = "live"
			})
			relist(t, fx, in)
		}, Invalid, "at /records/1"},
		{"record without details", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) {
				delete(d["records"].([]any)[0].(map[string]any), "details")
			})
			relist(t, fx, in)
		}, Invalid, "at /records/0"},
		{"private key embedded", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) {
				d["publisher"].(map[string]any)["key"].(map[string]any)["d"] = "secret"
			})
			relist(t, fx, in)
		}, Invalid, "/publisher/key"},
		{"source_url not a URI", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) { d["source_url"] = "pub example x.json" })
			relist(t, fx, in)
		}, Invalid, "/source_url"},
		{"proof names another key", func(t *testing.T, fx *fixture, in *Input) {
			in.File = bytes.Replace(in.File, []byte(`"verification_method": "key-1"`), []byte(`"verification_method": "key-2"`), 1)
			relist(t, fx, in)
		}, Invalid, "verification_method"},
		{"changed after signing", func(t *testing.T, fx *fixture, in *Input) {
			in.File = bytes.Replace(in.File, []byte(`"second"`), []byte(`"Second"`), 1)
			relist(t, fx, in)
		}, BadSignature, "does not verify"},
		{"other header", func(t *testing.T, fx *fixture, in *Input) {
			in.File = bytes.Replace(in.File, []byte(ProtectedHeader), []byte("eyJhbGciOiJFZERTQSJ9"), 1) // {"alg":"EdDSA"}
			relist(t, fx, in)
		}, BadSignature, "header"},
		{"manifest domain is not its host", func(t *testing.T, fx *fixture, in *Input) { in.ManifestURL = WellKnownURL("other.example") }, NotAuthenticated, "served by other.example"},
		{"manifest not from the well-known path", func(t *testing.T, fx *fixture, in *Input) { in.ManifestURL = "https://pub.example/dedi.index.json" }, NotAuthenticated, "well-known"},
		{"manifest over http", func(t *testing.T, fx *fixture, in *Input) { in.ManifestURL = "http://pub.example" + WellKnownPath }, NotAuthenticated, "well-known"},
		{"manifest malformed", func(t *testing.T, fx *fixture, in *Input) { in.Manifest = []byte(`{"dedi_version":`) }, NotAuthenticated, "not valid"},
		{"manifest changed after signing", func(t *testing.T, fx *fixture, in *Input) {
			in.Manifest = bytes.Replace(in.Manifest, []byte(`"2026-09-01T00:00:00Z"`), []byte(`"2026-09-02T00:00:00Z"`), 1)
		}, NotAuthenticated, "signature"},
		{"file's publisher domain differs from the manifest's", func(t *testing.T, fx *fixture, in *Input) {
			fx.file.Publisher.Domain = "evil.example"
			*in = fx.input(t, now)
		}, NotAuthenticated, "publisher domain evil.example"},
		{"file's namespace differs from the manifest's domain", func(t *testing.T, fx *fixture, in *Input) {
			fx.file.Namespace = "other.example"
			*in = fx.input(t, now)
		}, NotAuthenticated, "namespace"},
		{"key with the same kid but other x", func(t *testing.T, fx *fixture, in *Input) {
			fx.key = KeyFromSeed("key-1", make([]byte, 32))
			*in = fx.input(t, now)
		}, NotAuthenticated, "not among the manifest's keys"},
		{"registry not listed", func(t *testing.T, fx *fixture, in *Input) {
			m := mustManifest(t, in.Manifest)
			m.Files[0].Registry = "other"
			var err error
			if in.Manifest, err = SignManifest(m, fx.manifestKey); err != nil {
				t.Fatal(err)
			}
		}, NotAuthenticated, "does not list registry"},
		{"digest mismatch", func(t *testing.T, fx *fixture, in *Input) {
			fx.file.Records = fx.file.Records[:1]
			f2, _ := SignFile(&fx.file, fx.key)
			in.File = f2 // a validly signed other version the manifest does not commit to
		}, DigestMismatch, "digest"},
		{"stale file", func(t *testing.T, fx *fixture, in *Input) {
			fx.file.NextUpdate = mustTime(t, "2026-08-22T06:29:59Z")
			*in = fx.input(t, now)
		}, Stale, "file expired"},
		{"inactive", func(t *testing.T, fx *fixture, in *Input) {
			fx.file.Registry.State = "inactive"
			*in = fx.input(t, now)
		}, Inactive, "inactive"},
		{"replayed older file", func(t *testing.T, fx *fixture, in *Input) {
			in.Accepted.FileUpdatedAt = fx.file.Registry.UpdatedAt.Add(time.Hour)
		}, Rollback, "older than the accepted"},
		{"record does not conform", func(t *testing.T, fx *fixture, in *Input) {
			fx.file.Records[1].Details = map[string]any{"id": 7.0}
			*in = fx.input(t, now)
		}, Invalid, `record "b"`},
		{"inline schema is not a schema", func(t *testing.T, fx *fixture, in *Input) {
			fx.file.Registry.Schema = map[string]any{"type": "nonsense"}
			*in = fx.input(t, now)
		}, Invalid, "inline"},
		{"schema URL without a fetcher", func(t *testing.T, fx *fixture, in *Input) {
			fx.file.Registry.Schema = "https://schemas.example/keys.json"
			*in = fx.input(t, now)
		}, SchemaUnavailable, "schemas.example"},
		{"no manifest and none accepted", func(t *testing.T, fx *fixture, in *Input) { in.Manifest = nil }, UnavailableAuthority, "cannot be fetched"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t)
			in := fx.input(t, now)
			tc.change(t, fx, &in)
			res := Verify(ctx, in)
			if res.Outcome != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("outcome %s (%s), want %s (%q)", res.Outcome, res.Reason, tc.want, tc.reason)
			}
		})
	}
}

func TestInlineFile(t *testing.T) {
	fx := newFixture(t)
	fx.inline = true
	file, manifest := fx.build(t)
	m := mustManifest(t, manifest)
	e := m.Entry("keys")
	if e == nil || e.Inline == nil || e.URL != "" {
		t.Fatalf("entry %+v", e)
	}
	for _, raw := range [][]byte{e.Inline, file} { // the inline text, and the same file as written
		res := Verify(context.Background(), Input{File: raw, Manifest: manifest, ManifestURL: WellKnownURL(fx.domain), Now: mustTime(t, now)})
		if res.Outcome != Authentic {
			t.Fatalf("%s (%s)", res.Outcome, res.Reason)
		}
	}
	fx.file.Records = fx.file.Records[:1]
	other, _ := SignFile(&fx.file, fx.key)
	res := Verify(context.Background(), Input{File: other, Manifest: manifest, ManifestURL: WellKnownURL(fx.domain), Now: mustTime(t, now)})
	if res.Outcome != DigestMismatch {
		t.Fatalf("another version than the inline one: %s (%s)", res.Outcome, res.Reason)
	}
}

func TestCaps(t *testing.T) {
	// A 65 MiB file is refused before it is parsed; a smaller cap applies when configured.
	big := bytes.Repeat([]byte(" "), 65<<20)
	if _, err := ParseFile(big, Limits{}); OutcomeOf(err) != Invalid || !strings.Contains(err.Error(), "larger than 67108864") {
		t.Fatalf("65 MiB: %v", err)
	}
	fx := newFixture(t)
	file, _ := fx.build(t)
	if _, err := ParseFile(file, Limits{MaxFileBytes: int64(len(file) - 1)}); OutcomeOf(err) != Invalid {
		t.Fatalf("over a configured cap: %v", err)
	}
	// A manifest listing 100,000 files: over the 1 MiB cap, and over the entry cap when the
	// byte cap is raised.
	var b strings.Builder
	b.WriteString(`{"dedi_version":"0.1","type":"dedi-manifest","domain":"pub.example","keys":[{"kid":"k","kty":"OKP","crv":"Ed25519","x":"ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"}],"updated_at":"2026-08-22T00:00:00Z","next_update":"2026-09-01T00:00:00Z","files":[`)
	for i := 0; i < 100000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"registry":"r%d","url":"https://pub.example/r%d.json","digest":"sha-256:%064d"}`, i, i, i)
	}
	b.WriteString(`],"proof":{"verification_method":"k","canonicalization":"JCS","jws":"a..b"}}`)
	raw := []byte(b.String())
	if _, err := ParseManifest(raw, Limits{}); OutcomeOf(err) != Invalid || !strings.Contains(err.Error(), "larger than 1048576") {
		t.Fatalf("100,000 files: %v", err)
	}
	if _, err := ParseManifest(raw, Limits{MaxManifestBytes: 64 << 20}); OutcomeOf(err) != Invalid || !strings.Contains(err.Error(), "/files") {
		t.Fatalf("100,000 files under a raised byte cap: %v", err)
	}
}

func TestManifestBadInput(t *testing.T) {
	fx := newFixture(t)
	_, manifest := fx.build(t)
	m := mustManifest(t, manifest)
	m.Files = append(m.Files, m.Files[0])
	if _, err := SignManifest(m, fx.key); err == nil || !strings.Contains(err.Error(), "listed more than once") {
		t.Fatalf("two entries for one registry: %v", err)
	}
	bad := bytes.Replace(manifest, []byte(`"type": "dedi-manifest"`), []byte(`"type": "dedi-file"`), 1)
	if _, err := ParseManifest(bad, Limits{}); OutcomeOf(err) != Invalid {
		t.Fatalf("wrong type: %v", err)
	}
	var e *Error
	if _, err := ParseManifest([]byte(`{`), Limits{}); !errors.As(err, &e) || e.Outcome != Invalid {
		t.Fatalf("malformed: %v", err)
	}
}

// fakeSchemas serves schema documents from a map and counts the fetches.
type fakeSchemas struct {
	docs  map[string]string
	calls int
}

func (f *fakeSchemas) FetchSchema(_ context.Context, url string) ([]byte, error) {
	f.calls++
	d, ok := f.docs[url]
	if !ok {
		return nil, errors.New("HTTP 404")
	}
	return []byte(d), nil
}

func TestSchemaURL(t *testing.T) {
	const url = "https://schemas.example/keys.json"
	src := &fakeSchemas{docs: map[string]string{url: `{"type":"object","required":["id"]}`}}
	schemas := NewSchemas(src, 10, time.Hour, nil)
	fx := newFixture(t)
	fx.file.Registry.Schema = url
	for i := 0; i < 3; i++ {
		in := fx.input(t, now)
		in.Schemas = schemas
		if res := Verify(context.Background(), in); res.Outcome != Authentic {
			t.Fatalf("%s (%s)", res.Outcome, res.Reason)
		}
	}
	if src.calls != 1 {
		t.Fatalf("%d fetches of the schema, want 1 (cached)", src.calls)
	}
	fx.file.Records[0].Details = map[string]any{"no": "id"}
	in := fx.input(t, now)
	in.Schemas = schemas
	if res := Verify(context.Background(), in); res.Outcome != Invalid {
		t.Fatalf("non-conforming record: %s (%s)", res.Outcome, res.Reason)
	}
	fx.file.Registry.Schema = "https://schemas.example/missing.json"
	in = fx.input(t, now)
	in.Schemas = schemas
	if res := Verify(context.Background(), in); res.Outcome != SchemaUnavailable {
		t.Fatalf("missing schema: %s (%s)", res.Outcome, res.Reason)
	}
	src.docs["https://schemas.example/bad.json"] = `{"type":"nonsense"}`
	fx.file.Registry.Schema = "https://schemas.example/bad.json"
	in = fx.input(t, now)
	in.Schemas = schemas
	if res := Verify(context.Background(), in); res.Outcome != SchemaUnavailable {
		t.Fatalf("a schema URL that is not a schema: %s (%s)", res.Outcome, res.Reason)
	}
}

func TestKeys(t *testing.T) {
	k, err := GenerateKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParsePrivateJWK(k.MarshalJWK())
	if err != nil || !back.Public().Same(k.Public()) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := ParsePublicJWK(k.MarshalJWK()); err == nil {
		t.Fatal("a private JWK was taken as a public one")
	}
	if _, err := ParsePrivateJWK([]byte(`{"kid":"k","kty":"OKP","crv":"Ed25519","x":"` + k.Public().X + `"}`)); err == nil {
		t.Fatal("a public JWK was taken as a private one")
	}
	other, _ := GenerateKey("k1")
	if SameKeys([]Key{k.Public()}, []Key{other.Public()}) || !SameKeys([]Key{k.Public(), other.Public()}, []Key{other.Public(), k.Public()}) {
		t.Fatal("SameKeys")
	}
}

// TestRecordShapeAgreesWithSchema: every record the fast check admits, the schema admits too
// (the fast check only saves the schema's time on well-formed records).
func TestRecordShapeAgreesWithSchema(t *testing.T) {
	long := strings.Repeat("é", 1024)
	variants := []any{
		map[string]any{"record_name": "a", "details": map[string]any{}},
		map[string]any{"record_name": "a", "details": map[string]any{}, "description": "d", "meta": map[string]any{"k": 1.0}},
		map[string]any{"record_name": long, "details": map[string]any{}},
		map[string]any{"record_name": long + "x", "details": map[string]any{}},
		map[string]any{"record_name": "", "details": map[string]any{}},
		map[string]any{"record_name": 1.0, "details": map[string]any{}},
		map[string]any{"record_name": "a"},
		map[string]any{"details": map[string]any{}},
		map[string]any{"record_name": "a", "details": []any{}},
		map[string]any{"record_name": "a", "details": nil},
		map[string]any{"record_name": "a", "details": map[string]any{}, "description": nil},
		map[string]any{"record_name": "a", "details": map[string]any{}, "meta": "m"},
		map[string]any{"record_name": "a", "details": map[string]any{}, "state": "live"},
		[]any{}, "record", nil,
	}
	for i, v := range variants {
		fast := recordShapeOK(v)
		schema := checkShape(recordSchemaID, v, "") == nil
		if fast && !schema {
			t.Errorf("variant %d: the fast check admits what the schema refuses", i)
		}
		if fast != schema {
			t.Errorf("variant %d: fast %v, schema %v", i, fast, schema)
		}
	}
}

// TestVerifyFile: a crawler's path, the manifest authenticated once and each file checked
// against it, gives what Verify gives, and the result names the entry and digest.
func TestVerifyFile(t *testing.T) {
	fx := newFixture(t)
	file, manifest := fx.build(t)
	at := mustTime(t, now)
	m, cached, err := Authority(manifest, WellKnownURL(fx.domain), at, nil, Limits{})
	if err != nil || cached {
		t.Fatal(err)
	}
	res := VerifyFile(context.Background(), file, m, false, FileCheck{Now: at})
	if res.Outcome != Authentic || res.Entry == nil || res.Entry.Digest != res.Digest || res.File.Registry.Name != "keys" {
		t.Fatalf("%+v", res)
	}
	if res := Verify(context.Background(), Input{File: file, Manifest: manifest, ManifestURL: WellKnownURL(fx.domain), Now: at}); res.Entry == nil || res.Entry.Registry != "keys" {
		t.Fatalf("Verify's entry: %+v", res.Entry)
	}
	if res := VerifyFile(context.Background(), file, m, false, FileCheck{Now: at, AcceptedUpdatedAt: at}); res.Outcome != Rollback {
		t.Fatalf("an older file: %s", res.Outcome)
	}
	if res := VerifyFile(context.Background(), append(file, ' '), m, false, FileCheck{Now: at}); res.Outcome != DigestMismatch {
		t.Fatalf("other bytes: %s", res.Outcome)
	}
}
