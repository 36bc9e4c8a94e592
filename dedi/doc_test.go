package dedi

import (
	"os"
	"strings"
	"testing"
)

// TestDocHoldsTheSchemas: docs/dedi-files.md shows the schemas the code validates against,
// word for word.
func TestDocHoldsTheSchemas(t *testing.T) {
	doc, err := os.ReadFile("../docs/dedi-files.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"file", "manifest", "digests"} {
		block := "```json\n" + strings.TrimRight(string(SchemaText(kind)), "\n") + "\n```"
		if !strings.Contains(string(doc), block) {
			t.Errorf("docs/dedi-files.md does not show dedi/schemas/dedi-%s.schema.json as it is", kind)
		}
	}
	for _, o := range Outcomes {
		if !strings.Contains(string(doc), "`"+string(o)+"`") {
			t.Errorf("docs/dedi-files.md does not name the outcome %s", o)
		}
	}
}
