package schemas_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/svc-directory/svc/trqp/schemas"
)

// The embedded schemas are the committed files, byte for byte, and each compiles.
func TestSchemasCompile(t *testing.T) {
	for _, k := range schemas.Kinds {
		for _, s := range schemas.Sides {
			b, err := schemas.Bytes(k, s)
			if err != nil {
				t.Fatal(err)
			}
			onDisk, err := os.ReadFile(schemas.File(k, s))
			if err != nil || string(onDisk) != string(b) {
				t.Fatalf("%s: the embedded schema is not the file (%v)", schemas.File(k, s), err)
			}
			var doc struct {
				ID string `json:"$id"`
			}
			if err := json.Unmarshal(b, &doc); err != nil || doc.ID != "trqp-"+k+"-"+s {
				t.Fatalf("%s: $id %q (%v)", schemas.File(k, s), doc.ID, err)
			}
			if _, err := schemas.Compile(k, s); err != nil {
				t.Fatalf("%s: %v", schemas.File(k, s), err)
			}
		}
	}
	if _, err := schemas.Compile("authorisation", "request"); err == nil {
		t.Fatal("a schema of no kind compiled")
	}
}
