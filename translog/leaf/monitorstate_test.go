package leaf_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/svc-directory/svc/translog/leaf"
)

// roundTrip is the state as the next run reads it back.
func roundTrip(t *testing.T, st leaf.MonitorState) (leaf.MonitorState, []byte) {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back leaf.MonitorState
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back, b
}

// TestMonitorStateKeepsEveryCheck: the counts kept by keyed hash (each state its own key), read
// back by the next run, refuse what the counts by id refused: a namespace's repeated or skipped count, a record's count
// going back, an entry starting late; and accept the next count.
func TestMonitorStateKeepsEveryCheck(t *testing.T) {
	var st leaf.MonitorState
	if _, err := st.Check(0, [][]byte{nsLeaf(t, 1), nsLeaf(t, 2), recLeaf(3, "0x03")}); err != nil {
		t.Fatal(err)
	}
	var other leaf.MonitorState
	_, _ = other.Check(0, [][]byte{nsLeaf(t, 1), nsLeaf(t, 2), recLeaf(3, "0x03")})
	ob, _ := json.Marshal(other)
	st, b := roundTrip(t, st)
	if string(ob) == string(b) {
		t.Fatal("two states keep the same entries under the same key")
	}
	if st.Entries.Len() != 2 || st.Entries.Get("namespace ns1") != 2 || st.Entries.Get("record ns1/r/x") != 3 || strings.Contains(string(b), "ns1") {
		t.Fatalf("state %s: %d entries", b, st.Entries.Len())
	}
	for _, tc := range []struct {
		name string
		leaf []byte
		want string
	}{
		{"namespace repeated", nsLeaf(t, 2), "leaf 3: namespace ns1 has version_count 2 after 2 (want 3)"},
		{"namespace skips", nsLeaf(t, 4), "version_count 4 after 2 (want 3)"},
		{"record going back", recLeaf(3, "0x33"), "record ns1/r/x has version_count 3 after 3 (want more)"},
		{"another namespace starting late", storeLeafBytes(t, "ns2", 2), "namespace ns2 has version_count 2 after 0 (want 1)"},
		{"namespace next", nsLeaf(t, 3), ""},
		{"record after drafts", recLeaf(5, "0x05"), ""},
	} {
		cp, _ := roundTrip(t, st)
		_, err := cp.Check(3, [][]byte{tc.leaf})
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func storeLeafBytes(t *testing.T, ns string, count int64) []byte {
	b, err := storeLeaf(ns, fmt.Sprintf("0x%02x", count), count).Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMonitorStateReadsTheEarlierForm: a state file of the earlier form (counts by entry id)
// is read with its counts, checks go on from them, and it is written in the new form.
func TestMonitorStateReadsTheEarlierForm(t *testing.T) {
	old := `{"checkpoint":"cp","counts":{"namespace ns1":2,"record ns1/r/x":3},"keys":{"a.example":["k1"]}}`
	var st leaf.MonitorState
	if err := json.Unmarshal([]byte(old), &st); err != nil {
		t.Fatal(err)
	}
	if st.Checkpoint != "cp" || st.Entries.Len() != 2 || st.Keys["a.example"][0] != "k1" {
		t.Fatalf("%+v", st)
	}
	if _, err := st.Check(9, [][]byte{nsLeaf(t, 2)}); err == nil || !strings.Contains(err.Error(), "after 2 (want 3)") {
		t.Fatalf("a repeated count after the earlier form: %v", err)
	}
	st, b := roundTrip(t, st)
	if strings.Contains(string(b), `"counts"`) || !strings.Contains(string(b), `"entries":"`) || st.Entries.Get("record ns1/r/x") != 3 {
		t.Fatalf("written as %s", b)
	}
	for _, bad := range []string{`{"counts":{"namespace ns1":0}}`, `{"counts":{"namespace ns1":-1}}`} {
		if err := json.Unmarshal([]byte(bad), &st); err == nil {
			t.Errorf("%s: read", bad)
		}
	}
}

// TestMonitorStateRefusesDamagedEntries: entries truncated, out of order, repeated, or with a
// count of 0, are refused rather than read as other counts.
func TestMonitorStateRefusesDamagedEntries(t *testing.T) {
	var st leaf.MonitorState
	if _, err := st.Check(0, [][]byte{nsLeaf(t, 1), recLeaf(3, "0x03")}); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(st.Entries)
	var all []byte
	if err := json.Unmarshal(b, &all); err != nil || len(all) != 32+2*17 {
		t.Fatalf("%v: %d bytes", err, len(all))
	}
	key, raw := all[:32], all[32:]
	cat := func(parts ...[]byte) []byte { return bytes.Join(append([][]byte{key}, parts...), nil) }
	for name, r := range map[string][]byte{
		"no key":       key[:31],
		"truncated":    cat(raw[:len(raw)-1]),
		"out of order": cat(raw[17:], raw[:17]),
		"repeated":     cat(raw[:17], raw[:17]),
		"zero count":   cat(raw[:16], []byte{0}),
		"long varint":  cat(raw[:16], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
	} {
		enc, _ := json.Marshal(r)
		var e leaf.EntryCounts
		if err := json.Unmarshal(enc, &e); err == nil {
			t.Errorf("%s: read as %d entries", name, e.Len())
		}
	}
	// Read back whole, with its key: the same counts.
	var e leaf.EntryCounts
	if err := json.Unmarshal(b, &e); err != nil || e.Get("namespace ns1") != 1 || e.Get("record ns1/r/x") != 3 {
		t.Fatalf("%v", err)
	}
}

// TestMonitorStateSize: the state of a log of 100,000 leaves (records and their registries
// and namespaces, real ids' lengths, one record in ten updated) holds 17 bytes an entry, 23
// in the file (and its key); the earlier form took about 120 bytes a leaf.
func TestMonitorStateSize(t *testing.T) {
	const leaves = 100_000
	var st leaf.MonitorState
	var batch [][]byte
	entries := 0
	add := func(l leaf.Leaf) {
		b, err := l.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, b)
	}
	digest := "0x" + strings.Repeat("ab", 32)
	for i := 0; len(batch) < leaves; i++ {
		ns := fmt.Sprintf("01JD%022d", i/1000)
		if i%1000 == 0 {
			add(leaf.Leaf{Kind: "namespace", NamespaceID: ns, Version: "0x01", VersionCount: 1, Digest: digest})
			add(leaf.Leaf{Kind: "registry", NamespaceID: ns, RegistryID: "registry-name", Version: "0x01", VersionCount: 1, Digest: digest})
			entries += 2
		}
		rec := leaf.Leaf{Kind: "record", NamespaceID: ns, RegistryID: "registry-name", RecordID: fmt.Sprintf("record-%08d", i), Version: "0x01", VersionCount: 1, Digest: digest}
		add(rec)
		entries++
		if i%10 == 0 {
			rec.Version, rec.VersionCount = "0x02", 2
			add(rec)
		}
	}
	if _, err := st.Check(0, batch); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries.Len() != entries {
		t.Fatalf("%d entries, want %d", st.Entries.Len(), entries)
	}
	per := float64(len(b)) / float64(entries)
	t.Logf("%d leaves, %d entries: %d bytes (%.1f an entry, %.1f a leaf)", len(batch), entries, len(b), per, float64(len(b))/float64(len(batch)))
	if per > 23 {
		t.Fatalf("%.1f bytes an entry, want at most 23", per)
	}
}
