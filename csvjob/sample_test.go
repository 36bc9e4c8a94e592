package csvjob_test

import (
	"strings"
	"testing"

	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/recordschema"
)

// When every field's example together does not validate (an optional field's pattern the
// generator cannot meet), the row keeps the required fields, which do; a property whose name
// cannot be a column is left out of the header.
func TestSampleFallsBackToRequiredFields(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{
		"id":         map[string]any{"type": "string", "minLength": 1},
		"zip":        map[string]any{"type": "string", "pattern": "^[0-9]{4}$"},
		"first name": map[string]any{"type": "string"},
	}}
	header, row, err := csvjob.Sample(schema)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(header, ",") != "record_name,record_state,id,zip" || strings.Join(row, ",") != "example-1,live,example," {
		t.Fatalf("the sample: %q %q", header, row)
	}
	layout, err := csvjob.ParseHeader(header, schema)
	if err != nil {
		t.Fatal(err)
	}
	_, _, details, err := layout.Record(row)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := recordschema.Compile(schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := compiled.Validate(details); err != nil {
		t.Fatalf("the sample row does not validate: %v", err)
	}
}
