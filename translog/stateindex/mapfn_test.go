package stateindex

import (
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/translog/leaf"
)

func canonical(t testing.TB, l interface{ Canonical() ([]byte, error) }) []byte {
	t.Helper()
	b, err := l.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestKeysOf(t *testing.T) {
	ns, reg, rec := "did:svc:HmjQXvZmGWGrnMiSxkhJKX", "0193a1b2-0000-7000-8000-000000000001", "0193a1b2-0000-7000-8000-000000000002"
	dom, err := leaf.NewDomainLeaf("example.org", ns, leaf.MethodSelfDNS, leaf.DomainGained, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text []byte
		want []Key
	}{
		{canonical(t, leaf.Leaf{Kind: leaf.KindNamespace, NamespaceID: ns, Version: "0x01", VersionCount: 1, Digest: "0x02"}), []Key{IDKey(ns)}},
		{canonical(t, leaf.Leaf{Kind: leaf.KindRegistry, NamespaceID: ns, RegistryID: reg, Version: "0x01", VersionCount: 1, Digest: "0x02"}), []Key{IDKey(reg)}},
		{canonical(t, leaf.Leaf{Kind: leaf.KindRecord, NamespaceID: ns, RegistryID: reg, RecordID: rec, Version: "0x01", VersionCount: 2, Digest: "0x02"}), []Key{IDKey(rec)}},
		{canonical(t, leaf.KeysLeaf{Domain: "pub.example", Keys: []leaf.Key{{Kid: "k", Kty: "OKP", Crv: "Ed25519", X: "AA"}}, UpdatedAt: "t", Digest: "0x03"}), []Key{PublisherKey("pub.example")}},
		{canonical(t, dom), []Key{DomainKey("example.org")}},
	}
	state := canonical(t, leaf.StateLeaf{Root: Hash{1}, Size: 3, Time: 4})
	if got, err := KeysOf(state); err != nil || got == nil || len(got) != 0 {
		t.Errorf("KeysOf(%s) = %v, %v; want no key", state, got, err)
	}
	for _, c := range cases {
		got, err := KeysOf(c.text)
		if err != nil || len(got) != len(c.want) || got[0].Kind != c.want[0].Kind || !slices.Equal(got[0].Parts, c.want[0].Parts) {
			t.Errorf("KeysOf(%s) = %v, %v; want %v", c.text, got, err, c.want)
		}
	}
	for _, bad := range []string{
		`{"kind":"checkpoint"}`,
		`not json`,
		`{"kind":"state","root":"AQ==","size":3,"time":4}`,
		`{"digest":"0x02","kind":"namespace","namespace_id":"n","version":"0x01","version_count":0}`,
		`{"kind":"namespace", "digest":"0x02","namespace_id":"n","version":"0x01","version_count":1}`,
		`{"change":"gained","domain":"EXAMPLE.org","kind":"domain","method":"self_dns","namespace_id":"n","time":"1970-01-01T00:00:00.000Z"}`,
		// A canonical leaf whose id is empty names a key that has no encoding (the SDKs' keysOf refuse it too).
		`{"digest":"0x02","kind":"namespace","namespace_id":"","version":"0x01","version_count":1}`,
	} {
		if k, err := KeysOf([]byte(bad)); err == nil {
			t.Errorf("KeysOf(%s) = %v", bad, k)
		}
	}
	// Apply refuses such a leaf and leaves the index as it was.
	b := NewBuilder(NewMemStore())
	if _, err := b.Apply(cases[0].text); err != nil {
		t.Fatal(err)
	}
	root := b.Root()
	if _, err := b.Apply([]byte(`{"kind":"checkpoint"}`)); err == nil || b.Size() != 1 || b.Root() != root {
		t.Errorf("Apply of an unknown leaf: %v, size %d", err, b.Size())
	}
	// A version's leaf with an empty id names a key that cannot be encoded: refused too.
	if _, err := b.Apply(canonical(t, leaf.Leaf{Kind: leaf.KindNamespace, NamespaceID: "", Version: "0x01", VersionCount: 1, Digest: "0x02"})); err == nil || b.Size() != 1 {
		t.Errorf("Apply of a leaf with an empty id: %v", err)
	}
}
