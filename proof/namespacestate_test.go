package proof

import (
	"maps"
	"strings"
	"testing"
)

// A namespace's state is a digest field only when it is not live: a delete-namespace tombstone
// (state deleted) digests its state, and every live version digests as before namespaces had a
// state. The digests below are the JavaScript reference's, made as the comment above
// knownDigests says.
var namespaceStateDigests = []knownDigest{
	{
		name: "namespace with state live (the namespace case, unchanged)",
		fields: NamespaceFields{NamespaceID: kaNamespaceID, Description: "Acme", Genesis: kaGenesis, CreatedBy: kaCreator,
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6d", VersionCount: 1, State: "live"},
		keys:   "created_by,description,genesis,namespace_id,version,version_count",
		json:   `{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c6d","version_count":1}`,
		digest: "0x68a2381f85cc8f484e92167d8af6287022c7d512b6740b3b8517630aa7f00408",
	},
	{
		name: "deleted namespace (a tombstone)",
		fields: NamespaceFields{NamespaceID: kaNamespaceID, Description: "Acme", Genesis: kaGenesis, CreatedBy: kaCreator,
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c71", VersionCount: 2, State: "deleted"},
		keys:   "created_by,description,genesis,namespace_id,state,version,version_count",
		json:   `{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c71","version_count":2,"state":"deleted"}`,
		digest: "0x810e0db66df19fbccd7b58c6421e28f26e4fe23f8c16257fa5ae6607a21634df",
	},
	{
		name: "the tombstone's fields with state live (what dropping the state would digest)",
		fields: NamespaceFields{NamespaceID: kaNamespaceID, Description: "Acme", Genesis: kaGenesis, CreatedBy: kaCreator,
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c71", VersionCount: 2, State: "live"},
		keys:   "created_by,description,genesis,namespace_id,version,version_count",
		json:   `{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c71","version_count":2}`,
		digest: "0xa378874766996aaf19bc26da0f2d2308cda5153a8bfa3be465ba9fec65a6944a",
	},
	{
		name: "restored namespace (live again)",
		fields: NamespaceFields{NamespaceID: kaNamespaceID, Description: "Acme", Genesis: kaGenesis, CreatedBy: kaCreator,
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c72", VersionCount: 3, State: "live"},
		keys:   "created_by,description,genesis,namespace_id,version,version_count",
		json:   `{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c72","version_count":3}`,
		digest: "0x29f6a2cc56df69cf0220a6c986564e1c16ae52cc241015c2734aba1619a531fb",
	},
}

// "" and live digest alike, as a version without a state did; any other state is digested.
func TestNamespaceStateInTheDigestOnlyWhenNotLive(t *testing.T) {
	r := newRand(29)
	for i := range 300 {
		f := NamespaceFields{randomString(r, 6), randomString(r, 6), randomString(r, 6), randomString(r, 6),
			randomString(r, 6), r.Int64N(1 << 40), ""}
		none, err := f.Digest()
		if err != nil {
			t.Fatal(err)
		}
		f.State = "live"
		if d, err := f.Digest(); err != nil || d != none {
			t.Fatalf("case %d: state live digests %s, %v; without a state %s", i, d, err, none)
		}
		if _, in := f.Object()["state"]; in {
			t.Fatalf("case %d: state live is in the digest input", i)
		}
		for _, s := range []string{"deleted", "Live", " live", randomString(r, 4) + "x"} {
			f.State = s
			d, err := f.Digest()
			if err != nil || d == none {
				t.Fatalf("case %d: state %q digests %s, %v; without a state %s", i, s, d, err, none)
			}
			if got := f.Object()["state"]; got != s {
				t.Fatalf("case %d: state %q in the digest input as %v", i, s, got)
			}
		}
	}
}

// RecomputeDigest and CheckLookup read a namespace's state from lookup data: absent, "" or live
// is left out; deleted is digested; a state that is not text is refused by name.
func TestRecomputeNamespaceState(t *testing.T) {
	live, tomb := namespaceStateDigests[0], namespaceStateDigests[1]
	data := func(tc knownDigest) map[string]any {
		v, err := ParseJSON([]byte(tc.json), 16)
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		m["genesis"] = GenesisHex(m["genesis"].(string)) // as a namespace lookup shows it
		return m
	}
	with := func(m map[string]any, k string, v any) map[string]any {
		out := maps.Clone(m)
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	for _, c := range []struct {
		name string
		data map[string]any
		want string
	}{
		{"live, without state", data(live), live.digest},
		{"live, state live", with(data(live), "state", "live"), live.digest},
		{"live, state empty", with(data(live), "state", ""), live.digest},
		{"tombstone", data(tomb), tomb.digest},
		{"tombstone without its state", with(data(tomb), "state", nil), namespaceStateDigests[2].digest},
		{"tombstone shown as live", with(data(tomb), "state", "live"), namespaceStateDigests[2].digest},
	} {
		got, err := RecomputeDigest(KindNamespace, c.data)
		if err != nil || got != c.want {
			t.Errorf("%s: %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	for _, bad := range []any{7.0, false, map[string]any{}} {
		if _, err := RecomputeDigest(KindNamespace, with(data(tomb), "state", bad)); err == nil || err.Error() != "data.state is not a string" {
			t.Errorf("state %v: %v", bad, err)
		}
	}
	m := data(tomb)
	m["state"] = nil // JSON null
	if _, err := RecomputeDigest(KindNamespace, m); err == nil || err.Error() != "data.state is not a string" {
		t.Errorf("state null: %v", err)
	}

	// A whole tombstone lookup verifies; the same data claiming live does not.
	lookup := with(data(tomb), "proof", map[string]any{"type": "SvcNamespaceProof2026", "digest": tomb.digest,
		"namespace_did": kaNamespaceID})
	if err := CheckLookup(KindNamespace, lookup, 2026); err != nil {
		t.Fatalf("the tombstone's lookup: %v", err)
	}
	err := CheckLookup(KindNamespace, with(lookup, "state", "live"), 2026)
	if err == nil || !strings.Contains(err.Error(), "recomputed digest") {
		t.Fatalf("the tombstone shown as live: %v", err)
	}
}

// The namespace-shaped inputs of the reference's vectors (a live namespace and a tombstone)
// recompute, as namespace lookup data, to the reference's digest.
func TestNamespaceVectorsRecompute(t *testing.T) {
	vs, err := readVectors()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[bool]int{}
	for _, v := range vs {
		val, err := ParseJSON(v.Input, 64)
		m, _ := val.(map[string]any)
		if err != nil || m["namespace_id"] == nil || m["registry_name"] != nil {
			continue
		}
		got, err := RecomputeDigest(KindNamespace, m)
		if err != nil || got != v.Digest {
			t.Errorf("%s: RecomputeDigest = %s, %v; the reference %s", v.Input, got, err, v.Digest)
		}
		_, tomb := m["state"]
		seen[tomb]++
	}
	if seen[false] == 0 || seen[true] == 0 {
		t.Fatalf("want a live and a deleted namespace among the vectors: %v", seen)
	}
}
