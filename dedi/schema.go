package dedi

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The JSON Schemas of the two documents, as written down in docs/dedi-files.md.
//
//go:embed schemas/dedi-file.schema.json schemas/dedi-manifest.schema.json schemas/dedi-digests.schema.json
var schemaFS embed.FS

// Schema identifiers ($id) of the embedded schemas.
const (
	FileSchemaID     = "urn:svc:dedi:file"
	ManifestSchemaID = "urn:svc:dedi:manifest"
	DigestsSchemaID  = "urn:svc:dedi:digests"
	// recordSchemaID is the file schema's definition of one record.
	recordSchemaID = FileSchemaID + "#/$defs/record"
)

// SchemaText returns the embedded JSON Schema of a document kind ("file", "manifest" or
// "digests").
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
	for id, kind := range map[string]string{FileSchemaID: "file", ManifestSchemaID: "manifest", DigestsSchemaID: "digests"} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaText(kind)))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, err
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, id := range []string{FileSchemaID, ManifestSchemaID, DigestsSchemaID, recordSchemaID} {
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

// checkFileShape validates a parsed file against the file schema. The records, which are
// most of a large file, are checked one by one: a record that recordShapeOK admits is one the
// schema admits (TestRecordShapeAgreesWithSchema), the others go through the schema.
func checkFileShape(v any) error {
	doc, ok := v.(map[string]any)
	recs, isArray := doc["records"].([]any)
	if !ok || !isArray {
		return checkShape(FileSchemaID, v, "")
	}
	envelope := make(map[string]any, len(doc))
	for k, v := range doc {
		envelope[k] = v
	}
	envelope["records"] = []any{}
	if err := checkShape(FileSchemaID, envelope, ""); err != nil {
		return err
	}
	for i, r := range recs {
		if recordShapeOK(r) {
			continue
		}
		if err := checkShape(recordSchemaID, r, fmt.Sprintf("/records/%d", i)); err != nil {
			return err
		}
	}
	return nil
}

// recordShapeOK is the file schema's $defs/record in Go, for speed: an object with a
// record_name of 1 to 1024 characters, a details object, optionally a description string and
// a meta object, and nothing else.
func recordShapeOK(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	name, ok := m["record_name"].(string)
	if !ok || name == "" || utf8.RuneCountInString(name) > 1024 {
		return false
	}
	if _, ok := m["details"].(map[string]any); !ok {
		return false
	}
	n := 2
	if d, has := m["description"]; has {
		if _, ok := d.(string); !ok {
			return false
		}
		n++
	}
	if d, has := m["meta"]; has {
		if _, ok := d.(map[string]any); !ok {
			return false
		}
		n++
	}
	return len(m) == n
}

// checkShape validates a parsed document (found at the JSON pointer at) against the schema
// id; the error names the JSON pointer of the first failing place.
func checkShape(id string, doc any, at string) error {
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
	ptr := at
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
