package server

import (
	"strings"
	"testing"

	"github.com/svc-directory/svc/gen"
)

// TestRestOfPathParameterEndsThePath: the contract's x-svc-rest-of-path must name the
// parameter that ends its operation's path (echo gives only that one the rest of the path);
// loadOperations refuses a contract where it does not.
func TestRestOfPathParameterEndsThePath(t *testing.T) {
	doc, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadOperations(doc); err != nil {
		t.Fatalf("the contract: %v", err)
	}
	op := doc.Paths.Find("/svc/log/tile/{tile_path}").Get
	if op == nil || op.Extensions[restOfPathExt] != "tile_path" {
		t.Fatalf("getLogTile has no %s: tile_path", restOfPathExt)
	}
	op.Extensions[restOfPathExt] = "version"
	if _, err := loadOperations(doc); err == nil || !strings.Contains(err.Error(), restOfPathExt) {
		t.Fatalf("a rest-of-path parameter that does not end the path: %v", err)
	}
}
