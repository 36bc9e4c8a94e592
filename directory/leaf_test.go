package directory

import "testing"

// Every version is logged but a record draft; a leaf names its entry by kind and ids.
func TestLeaves(t *testing.T) {
	n, _ := SealedNamespace{NamespaceID: "did:svc:a", Version: "0x01", VersionCount: 1, Digest: "0xd"}.Leaf()
	g, _ := SealedRegistry{NamespaceID: "did:svc:a", RegistryID: "g", Version: "0x02", VersionCount: 2, Digest: "0xe"}.Leaf()
	r := SealedRecord{NamespaceID: "did:svc:a", RegistryID: "g", RecordID: "r", Version: "0x03", VersionCount: 3, Digest: "0xf"}
	for _, state := range []string{StateLive, StateSuspended, StateRevoked} {
		r.State = state
		if l, ok := r.Leaf(); !ok || l.RecordID != "r" || l.Kind != "record" {
			t.Errorf("%s record: %+v %v", state, l, ok)
		}
	}
	r.State = StateDraft
	if _, ok := r.Leaf(); ok {
		t.Error("a draft is logged")
	}
	text, err := n.Canonical()
	if err != nil || string(text) != `{"digest":"0xd","kind":"namespace","namespace_id":"did:svc:a","version":"0x01","version_count":1}` {
		t.Errorf("namespace leaf %s %v", text, err)
	}
	if g.Kind != "registry" || g.RegistryID != "g" || g.RecordID != "" {
		t.Errorf("registry leaf %+v", g)
	}
}
