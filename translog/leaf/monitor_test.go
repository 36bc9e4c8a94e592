package leaf_test

import (
	"strings"
	"testing"

	"github.com/svc-directory/svc/translog/leaf"
)

func TestCheckLeaves(t *testing.T) {
	nsLeaf := func(count int64, version string) []byte {
		b, err := (storeLeaf("ns1", version, count)).Canonical()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		leaves [][]byte
		want   string
	}{
		{"in order", [][]byte{nsLeaf(1, "0x01"), nsLeaf(2, "0x02"), nsLeaf(3, "0x03")}, ""},
		{"skips one", [][]byte{nsLeaf(1, "0x01"), nsLeaf(3, "0x03")}, "leaf 8: namespace ns1 has version_count 3 after 1 (want 2)"},
		{"repeats", [][]byte{nsLeaf(1, "0x01"), nsLeaf(1, "0x02")}, "version_count 1 after 1"},
		{"starts late", [][]byte{nsLeaf(2, "0x02")}, "version_count 2 after 0"},
		{"record after drafts", [][]byte{recLeaf(2, "0x02"), recLeaf(4, "0x04")}, ""},
		{"record going back", [][]byte{recLeaf(2, "0x02"), recLeaf(2, "0x03")}, "leaf 8: record ns1/r/x has version_count 2 after 2 (want more)"},
		{"not canonical", [][]byte{[]byte(strings.Replace(string(nsLeaf(1, "0x01")), ",", ", ", 1))}, "not a canonical leaf"},
		{"not json", [][]byte{[]byte("nope")}, "leaf 7"},
		{"unknown field", [][]byte{[]byte(`{"extra":1}`)}, "unknown field"},
	} {
		err := leaf.CheckLeaves(map[string]int64{}, 7, tc.leaves)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func recLeaf(count int64, version string) []byte {
	b, _ := leaf.Leaf{Kind: "record", NamespaceID: "ns1", RegistryID: "r", RecordID: "x", Version: version, VersionCount: count, Digest: "0x00"}.Canonical()
	return b
}

func storeLeaf(ns, version string, count int64) leaf.Leaf {
	return leaf.Leaf{Kind: "namespace", NamespaceID: ns, Version: version, VersionCount: count, Digest: "0x00"}
}
