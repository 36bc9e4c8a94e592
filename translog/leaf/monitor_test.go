package leaf_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

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
		_, err := (&leaf.MonitorState{}).Check(7, tc.leaves)
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

// TestMonitorKeyChanges: the monitor reports each key-change leaf with the domain's key ids
// before and after, across runs (the state keeps them), and refuses a key leaf that is not
// canonical.
func TestMonitorKeyChanges(t *testing.T) {
	keys := func(domain, at string, kids ...string) []byte {
		l := leaf.KeysLeaf{Domain: domain, UpdatedAt: at, Digest: "0x00"}
		for _, k := range kids {
			l.Keys = append(l.Keys, leaf.Key{Kid: k, Kty: "OKP", Crv: "Ed25519", X: "x-" + k})
		}
		b, err := l.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	st := leaf.MonitorState{}
	got, err := st.Check(10, [][]byte{nsLeaf(t, 1), keys("a.example", "t1", "k1"), keys("b.example", "t1", "x")})
	if err != nil || len(got) != 2 || got[0].String() != "key change of a.example at leaf 11: [] -> [k1] (manifest updated_at t1)" {
		t.Fatalf("%v %v", got, err)
	}
	got, err = st.Check(13, [][]byte{keys("a.example", "t2", "k2", "k1"), nsLeaf(t, 2), keys("a.example", "t3", "k2")})
	if err != nil || len(got) != 2 || got[0].String() != "key change of a.example at leaf 13: [k1] -> [k1 k2] (manifest updated_at t2)" ||
		got[1].String() != "key change of a.example at leaf 15: [k1 k2] -> [k2] (manifest updated_at t3)" {
		t.Fatalf("%v %v", got, err)
	}
	bad := []byte(strings.Replace(string(keys("a.example", "t4", "k3")), "k3", "k3\",\"d\":\"s", 1))
	if _, err := st.Check(16, [][]byte{bad}); err == nil || !strings.Contains(err.Error(), "leaf 16") {
		t.Fatalf("a forged key leaf: %v", err)
	}
}

func nsLeaf(t *testing.T, count int64) []byte {
	b, err := storeLeaf("ns1", "0x0"+string(rune('0'+count)), count).Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMonitorDomainBindings: the monitor accepts domain leaves among the others, reports each
// with its index, keeps the bindings across runs, and refuses a leaf that contradicts them or
// is not canonical.
func TestMonitorDomainBindings(t *testing.T) {
	dom := func(domain, ns, method, change string) []byte {
		l, err := leaf.NewDomainLeaf(domain, ns, method, change, time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	st := leaf.MonitorState{}
	got, err := st.Check(4, [][]byte{nsLeaf(t, 1), dom("a.example", "ns1", leaf.MethodSelfDNS, leaf.DomainGained),
		dom("old.example", "ns2", leaf.MethodSelfHTTP, leaf.DomainLost)})
	if err != nil || len(got) != 2 ||
		got[0].String() != "domain a.example gained by ns1 at leaf 5 (self_dns, 2026-11-27T20:00:00.000Z)" ||
		got[1].String() != "domain old.example lost by ns2 at leaf 6 (self_http, 2026-11-27T20:00:00.000Z)" {
		t.Fatalf("%v %v", got, err)
	}
	// The state file keeps the bindings.
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var again leaf.MonitorState
	if err := json.Unmarshal(b, &again); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		leaf []byte
		want string
	}{
		{"held by another", dom("a.example", "ns2", leaf.MethodDelegated, leaf.DomainGained), "leaf 7: ns2 gained a.example, which ns1 holds"},
		{"gained twice", dom("a.example", "ns1", leaf.MethodSelfHTTP, leaf.DomainGained), "leaf 7: ns1 gained a.example, which ns1 holds"},
		{"a second domain", dom("b.example", "ns1", leaf.MethodSelfDNS, leaf.DomainGained), "leaf 7: ns1 gained b.example while it holds a.example"},
		{"lost by another", dom("a.example", "ns2", leaf.MethodSelfDNS, leaf.DomainLost), "leaf 7: ns2 lost a.example, which ns1 holds"},
		{"lost twice", dom("old.example", "ns2", leaf.MethodSelfHTTP, leaf.DomainLost), "leaf 7: ns2 lost old.example, which nobody holds"},
		{"not canonical", []byte(strings.Replace(string(dom("c.example", "ns3", leaf.MethodSelfDNS, leaf.DomainGained)), ",", ", ", 1)), "is not a canonical domain leaf"},
		{"unknown method", []byte(strings.Replace(string(dom("c.example", "ns3", leaf.MethodSelfDNS, leaf.DomainGained)), "self_dns", "self_ftp", 1)), "method \"self_ftp\""},
	} {
		cp := again
		cp.Domains = maps.Clone(again.Domains)
		if _, err := cp.Check(7, [][]byte{tc.leaf}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// What the bindings allow: the holder loses it, another gains it, the first gains another.
	got, err = again.Check(7, [][]byte{dom("a.example", "ns1", leaf.MethodSelfDNS, leaf.DomainLost),
		dom("a.example", "ns2", leaf.MethodDelegated, leaf.DomainGained), dom("b.example", "ns1", leaf.MethodSelfHTTP, leaf.DomainGained),
		dom("old.example", "ns3", leaf.MethodSelfDNS, leaf.DomainGained)})
	if err != nil || len(got) != 4 {
		t.Fatalf("%v %v", got, err)
	}
}
