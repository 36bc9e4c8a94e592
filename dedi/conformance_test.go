package dedi

import (
	"context"
	"strings"
	"testing"
)

// TestManifestRequiredFields (PUB-001): a manifest without one of its required members, or
// with no key, is refused; the file it lists is not authenticated.
func TestManifestRequiredFields(t *testing.T) {
	for _, member := range []string{"dedi_version", "domain", "keys", "updated_at", "next_update", "files", "proof"} {
		fx := newFixture(t)
		in := fx.input(t, now)
		d := docOf(t, in.Manifest)
		delete(d, member)
		raw, _ := marshal(d, true)
		if _, err := ParseManifest(raw, Limits{}); OutcomeOf(err) != Invalid || !strings.Contains(err.Error(), member) {
			t.Errorf("without %s: %v", member, err)
		}
		in.Manifest = raw
		if res := Verify(context.Background(), in); res.Outcome != NotAuthenticated {
			t.Errorf("a file listed by a manifest without %s: %s", member, res.Outcome)
		}
	}
	fx := newFixture(t)
	in := fx.input(t, now)
	withManifest(t, fx, &in, func(m map[string]any) { m["keys"] = []any{} })
	if res := Verify(context.Background(), in); res.Outcome != NotAuthenticated || !strings.Contains(res.Reason, "/keys") {
		t.Errorf("no key: %s (%s)", res.Outcome, res.Reason)
	}
}

// TestManifestProofKeyBinding (PUB-002): the manifest's proof must name a key it lists.
func TestManifestProofKeyBinding(t *testing.T) {
	fx := newFixture(t)
	in := fx.input(t, now)
	in.Manifest = signDoc(t, docOf(t, in.Manifest), testKey("key-2")) // it lists only key-1
	if res := Verify(context.Background(), in); res.Outcome != NotAuthenticated || !strings.Contains(res.Reason, "not among its keys") {
		t.Fatalf("%s (%s)", res.Outcome, res.Reason)
	}
}

// TestRegistryNamesUniqueAcrossEntries (PUB-003): a referenced and an inline entry of the same
// registry make the manifest invalid.
func TestRegistryNamesUniqueAcrossEntries(t *testing.T) {
	fx := newFixture(t)
	fx.inline = true
	_, inline := fx.build(t)
	d := docOf(t, inline)
	d["files"] = append(d["files"].([]any), map[string]any{"registry": "keys", "url": "https://pub.example/dedi/dedi.keys.json"})
	raw := signDoc(t, d, fx.key)
	if _, err := ParseManifest(raw, Limits{}); OutcomeOf(err) != Invalid || !strings.Contains(err.Error(), "listed more than once") {
		t.Fatalf("%v", err)
	}
}
