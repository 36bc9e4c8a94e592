package dedi

import (
	"context"
	"strings"
	"testing"
)

// The keys of other types a manifest may list ("algorithm matching the key").
var (
	rsaKey = map[string]any{"kid": "rsa-1", "kty": "RSA", "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw", "e": "AQAB"}
	ecKey  = map[string]any{"kid": "ec-1", "kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
)

// signDoc signs a document given as a value (its proof set to key's) and writes it indented.
func signDoc(t *testing.T, doc map[string]any, key PrivateKey) []byte {
	t.Helper()
	delete(doc, "proof")
	jws, err := Sign(doc, key)
	if err != nil {
		t.Fatal(err)
	}
	doc["proof"] = map[string]any{"verification_method": key.Kid, "canonicalization": "JCS", "jws": jws}
	out, err := marshal(doc, true)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// docOf parses a signed document into a value to change.
func docOf(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	m, err := ParseManifest(raw, Limits{})
	if err == nil {
		return m.doc
	}
	f, err := ParseFile(raw, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return f.doc
}

// withManifest re-signs the input's manifest after change (with the fixture's manifest key).
func withManifest(t *testing.T, fx *fixture, in *Input, change func(m map[string]any)) {
	d := docOf(t, in.Manifest)
	change(d)
	in.Manifest = signDoc(t, d, fx.manifestKey)
}

// TestAcceptWhatTheProtocolAccepts: where svc was stricter than the upstream schemas without a
// MUST of the draft behind it, it now reads what they allow (issue 42, section 2).
func TestAcceptWhatTheProtocolAccepts(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, fx *fixture, in *Input)
		want   Outcome
		reason string
	}{
		{"a manifest that also lists RSA and EC keys", func(t *testing.T, fx *fixture, in *Input) {
			withManifest(t, fx, in, func(m map[string]any) { m["keys"] = append(m["keys"].([]any), rsaKey, ecKey) })
		}, Authentic, ""},
		{"a file signed by a listed RSA key", func(t *testing.T, fx *fixture, in *Input) {
			d := docOf(t, in.File)
			d["publisher"].(map[string]any)["key"] = rsaKey
			d["proof"].(map[string]any)["verification_method"] = "rsa-1"
			d["proof"].(map[string]any)["jws"] = "eyJhbGciOiJSUzI1NiIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..c2lnbmF0dXJl"
			in.File, _ = marshal(d, true)
			withManifest(t, fx, in, func(m map[string]any) {
				m["keys"] = append(m["keys"].([]any), rsaKey)
				m["files"].([]any)[0].(map[string]any)["digest"] = Digest(in.File)
			})
		}, UnsupportedKey, `key "rsa-1" is of type RSA`},
		{"a manifest signed by its EC key", func(t *testing.T, fx *fixture, in *Input) {
			d := docOf(t, in.Manifest)
			d["keys"] = append(d["keys"].([]any), ecKey)
			d["proof"].(map[string]any)["verification_method"] = "ec-1"
			in.Manifest, _ = marshal(d, true)
		}, UnsupportedKey, "the manifest's signature: key \"ec-1\" is of type EC/P-256"},
		{"a private RSA member in a listed key", func(t *testing.T, fx *fixture, in *Input) {
			priv := map[string]any{"p": "secret"}
			for k, v := range rsaKey {
				priv[k] = v
			}
			withManifest(t, fx, in, func(m map[string]any) { m["keys"] = append(m["keys"].([]any), priv) })
		}, NotAuthenticated, "/keys/1"},
		{"a private Ed25519 member in the file's key", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) { d["publisher"].(map[string]any)["key"].(map[string]any)["d"] = "secret" })
		}, Invalid, "/publisher/key"},
		{"an Ed25519 key without x", func(t *testing.T, fx *fixture, in *Input) {
			withManifest(t, fx, in, func(m map[string]any) {
				m["keys"] = append(m["keys"].([]any), map[string]any{"kid": "k9", "kty": "OKP", "crv": "Ed25519"})
			})
		}, NotAuthenticated, "/keys/1"},
		{"source_url over http is information", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) { d["source_url"] = "http://pub.example/dedi/dedi.keys.json" })
			withManifest(t, fx, in, func(m map[string]any) { m["files"].([]any)[0].(map[string]any)["digest"] = Digest(in.File) })
		}, Authentic, ""},
		{"the publisher domain in capitals", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) {
				d["publisher"].(map[string]any)["domain"] = "Pub.EXAMPLE"
				d["namespace"] = "PUB.example"
			})
			withManifest(t, fx, in, func(m map[string]any) {
				m["domain"] = "PUB.EXAMPLE"
				m["files"].([]any)[0].(map[string]any)["digest"] = Digest(in.File)
			})
			in.ManifestURL = "https://Pub.Example" + WellKnownPath
		}, Authentic, ""},
		{"dedi_version 0.2", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) { d["dedi_version"] = "0.2" })
			withManifest(t, fx, in, func(m map[string]any) {
				m["dedi_version"] = "0.3.1"
				m["files"].([]any)[0].(map[string]any)["digest"] = Digest(in.File)
			})
		}, Authentic, ""},
		{"dedi_version 1.0", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) { d["dedi_version"] = "1.0" })
		}, Invalid, "/dedi_version"},
		{"a 0.x file with a member 0.1 does not define", func(t *testing.T, fx *fixture, in *Input) {
			in.File = resignFile(t, in.File, fx.key, func(d map[string]any) { d["dedi_version"] = "0.2"; d["shards"] = []any{} })
		}, Invalid, "shards"},
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

func TestVersionsAndDomainsAsRead(t *testing.T) {
	fx := newFixture(t)
	in := fx.input(t, now)
	in.File = resignFile(t, in.File, fx.key, func(d map[string]any) {
		d["dedi_version"] = "0.2"
		d["publisher"].(map[string]any)["domain"] = "Pub.Example"
	})
	f := mustFile(t, in.File)
	if f.Version != "0.2" || f.Publisher.Domain != "pub.example" {
		t.Fatalf("version %q, domain %q", f.Version, f.Publisher.Domain)
	}
}

// TestUnsupportedKeys: keys of other types are compared by all their members, and are left
// out of the key set logged (they authorize nothing here).
func TestUnsupportedKeys(t *testing.T) {
	fx := newFixture(t)
	in := fx.input(t, now)
	withManifest(t, fx, &in, func(m map[string]any) { m["keys"] = append(m["keys"].([]any), rsaKey) })
	m := mustManifest(t, in.Manifest)
	if len(m.Keys) != 2 || m.Keys[1].Supported() {
		t.Fatalf("keys %+v", m.Keys)
	}
	other := map[string]any{}
	for k, v := range rsaKey {
		other[k] = v
	}
	other["e"] = "AQAC"
	withManifest(t, fx, &in, func(d map[string]any) { d["keys"] = append(d["keys"].([]any)[:1], other) })
	m2 := mustManifest(t, in.Manifest)
	if !SameKeys(m.Keys, m.Keys) || SameKeys(m.Keys, m2.Keys) {
		t.Fatal("keys of another type are told apart by their members")
	}
	l, err := m.KeysLeaf()
	if err != nil || len(l.Keys) != 1 || l.Keys[0].Kid != "key-1" {
		t.Fatalf("leaf %+v: %v", l, err)
	}
}
