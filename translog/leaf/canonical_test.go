package leaf_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
)

// TestCanonicalIsProofs: the leaf's own RFC 8785 writer writes what the project's general
// canonicalizer (proof.AppendCanonical, which wrote the leaves before this package) writes for
// the same members, for random strings (escapes, non-ASCII, invalid UTF-8) and integers
// (inside and beyond 2^53), and fails where it fails.
func TestCanonicalIsProofs(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 27))
	pieces := []string{"a", "Z", "0", " ", "\"", "\\", "/", "\x00", "\x1f", "\b", "\t", "\n", "\f", "\r", "\x7f",
		"é", "\u2028", "\u2029", "\ufffd", "😀", "中", "<", "&", "\xff", "\xc3", "\xed\xa0\x80"}
	str := func() string {
		s := ""
		for range r.IntN(6) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	counts := []int64{0, 1, 2, 255, 1<<53 - 1, 1 << 53, 1<<53 + 1, 1<<53 + 3, 1 << 60, 1<<60 + 12345, math.MaxInt64, -1, -(1 << 53) - 1, math.MinInt64}
	kinds := []string{leaf.KindNamespace, leaf.KindRegistry, leaf.KindRecord, "other", ""}
	for i := range 20000 {
		l := leaf.Leaf{Kind: kinds[r.IntN(len(kinds))], NamespaceID: str(), RegistryID: str(), RecordID: str(),
			Version: str(), VersionCount: r.Int64(), Digest: str()}
		if i%2 == 0 {
			l.VersionCount = counts[r.IntN(len(counts))]
		}
		if i%5 == 0 {
			l.Kind = kinds[i%3]
		}
		m := map[string]any{"kind": l.Kind, "namespace_id": l.NamespaceID, "version": l.Version,
			"version_count": l.VersionCount, "digest": l.Digest}
		if l.Kind == leaf.KindRecord {
			m["record_id"] = l.RecordID
		}
		if l.Kind != leaf.KindNamespace {
			m["registry_id"] = l.RegistryID
		}
		want, werr := proof.AppendCanonical(nil, m)
		got, err := l.Canonical()
		if (err == nil) != (werr == nil) || err == nil && string(got) != string(want) {
			t.Fatalf("%+v:\n got %s (%v)\nwant %s (%v)", l, got, err, want, werr)
		}
	}
}

func TestFromLookup(t *testing.T) {
	data := map[string]any{"namespace_id": "n", "registry_id": "r", "record_id": "x", "version": "0x01",
		"version_count": float64(3), "proof": map[string]any{"digest": "0x02"}}
	for kind, want := range map[string]leaf.Leaf{
		leaf.KindNamespace: {Kind: "namespace", NamespaceID: "n", Version: "0x01", VersionCount: 3, Digest: "0x02"},
		leaf.KindRegistry:  {Kind: "registry", NamespaceID: "n", RegistryID: "r", Version: "0x01", VersionCount: 3, Digest: "0x02"},
		leaf.KindRecord:    {Kind: "record", NamespaceID: "n", RegistryID: "r", RecordID: "x", Version: "0x01", VersionCount: 3, Digest: "0x02"},
	} {
		if got, err := leaf.FromLookup(kind, data); err != nil || got != want {
			t.Errorf("%s: %+v %v", kind, got, err)
		}
	}
	delete(data, "record_id")
	if _, err := leaf.FromLookup(leaf.KindRecord, data); err == nil {
		t.Error("a record lookup without record_id gave a leaf")
	}
	data["version_count"] = float64(0)
	if _, err := leaf.FromLookup(leaf.KindNamespace, data); err == nil {
		t.Error("version_count 0 gave a leaf")
	}
}
