package dedi

import (
	"bytes"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// upstreamSchemas compiles the upstream publishing schemas (testdata/upstream), each by its $id.
func upstreamSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	ids := map[string]string{}
	for _, kind := range []string{"file", "manifest", "digests"} {
		b, err := os.ReadFile("testdata/upstream/dedi-" + kind + ".schema.json")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		id := doc.(map[string]any)["$id"].(string)
		if err := c.AddResource(id, doc); err != nil {
			t.Fatal(err)
		}
		ids[kind] = id
	}
	out := map[string]*jsonschema.Schema{}
	for kind, id := range ids {
		s, err := c.Compile(id)
		if err != nil {
			t.Fatal(err)
		}
		out[kind] = s
	}
	return out
}

// TestSignedDocumentsValidateUpstream: what svc signs (a file, a manifest with and without a
// digests document and a digest, an inline entry, a digests document) is what the upstream
// schemas accept, and so are the published vectors.
func TestSignedDocumentsValidateUpstream(t *testing.T) {
	up := upstreamSchemas(t)
	check := func(kind, name string, raw []byte) {
		t.Helper()
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := up[kind].Validate(v); err != nil {
			t.Errorf("%s: the upstream %s schema refuses it: %v", name, kind, err)
		}
	}
	check("file", "valid-file.json", readVector(t, "valid-file.json"))
	check("manifest", "valid-manifest.json", readVector(t, "valid-manifest.json"))
	dx := newDigestsFixture(t)
	file, manifest, digests := dx.build(t)
	check("file", "a signed file", file)
	check("manifest", "a manifest naming a digests document, without files[].digest", manifest)
	check("digests", "a digests document", digests)
	fx := newFixture(t)
	fx.inline = true
	_, inline := fx.build(t)
	check("manifest", "a manifest with an inline file", inline)
	// and the schemas do refuse: a member they do not define
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bytes.Replace(digests, []byte(`"type": "dedi-digests",`), []byte(`"type": "dedi-digests", "x": 1,`), 1)))
	if up["digests"].Validate(v) == nil {
		t.Error("the upstream digests schema takes a member it does not define")
	}
}
