package dedi

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The JSON Schemas of the two documents, as written down in docs/dedi-files.md.
//
//go:embed schemas/dedi-file.schema.json schemas/dedi-manifest.schema.json
var schemaFS embed.FS

// Schema identifiers ($id) of the embedded schemas.
const (
	FileSchemaID     = "urn:svc:dedi:file"
	ManifestSchemaID = "urn:svc:dedi:manifest"
)

// SchemaText returns the embedded JSON Schema of a document kind ("file" or "manifest").
func SchemaText(kind string) []byte {
	b, err := schemaFS.ReadFile("schemas/dedi-" + kind + ".schema.json")
	if err != nil {
		return nil
	}
	return b
}

var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	for id, kind := range map[string]string{FileSchemaID: "file", ManifestSchemaID: "manifest"} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaText(kind)))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, err
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, id := range []string{FileSchemaID, ManifestSchemaID} {
		s, err := c.Compile(id)
		if err != nil {
			return nil, err
		}
		out[id] = s
	}
	return out, nil
})

type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external references are not followed (%s)", url)
}

var printer = message.NewPrinter(language.English)

// checkShape validates a parsed document against the schema id; the error names the JSON
// pointer of the first failing place.
func checkShape(id string, doc any) error {
	schemas, err := compiled()
	if err != nil {
		return fmt.Errorf("internal: the embedded schemas do not compile: %v", err)
	}
	err = schemas[id].Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	ptr := ""
	for _, p := range leaf.InstanceLocation {
		ptr += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(p)
	}
	if ptr == "" {
		ptr = "the top level"
	}
	return fmt.Errorf("at %s: %s", ptr, shorten(leaf.ErrorKind.LocalizedString(printer), 300))
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
