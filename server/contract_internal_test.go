package server

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

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

// TestOneAuthenticationRuleIsDeclared (issue 39, item 6): loadOperations refuses a contract
// where an operation other than the probes declares `security: []` (it would not read a key
// that is sent), and one where an operation that needs a key declares that it answers every
// caller alike.
func TestOneAuthenticationRuleIsDeclared(t *testing.T) {
	fresh := func() *openapi3.T {
		doc, err := gen.GetSpec()
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := fresh()
	ops, err := loadOperations(doc)
	if err != nil {
		t.Fatalf("the contract: %v", err)
	}
	for k, o := range ops {
		if o.auth == authNone && k.route != "/healthz" && k.route != "/readyz" {
			t.Errorf("%s (%s) reads no key", k, o.id)
		}
	}
	doc.Paths.Find("/svc/stats").Get.Security = &openapi3.SecurityRequirements{}
	if _, err := loadOperations(doc); err == nil || !strings.Contains(err.Error(), "security: []") {
		t.Fatalf("getStats with security: []: %v", err)
	}
	doc = fresh()
	doc.Paths.Find("/svc/jobs").Get.Extensions = map[string]any{sameAnswerExt: true}
	if _, err := loadOperations(doc); err == nil || !strings.Contains(err.Error(), sameAnswerExt) {
		t.Fatalf("listJobs (a key needed) declaring %s: %v", sameAnswerExt, err)
	}
}

// privately keeps a Cache-Control's freshness and makes it one caller's.
func TestPrivately(t *testing.T) {
	for in, want := range map[string]string{
		"":                                    "private",
		"public, max-age=600":                 "private, max-age=600",
		"PUBLIC,max-age=60, s-maxage=600":     "private, max-age=60",
		"private, no-cache":                   "private, no-cache",
		"public, max-age=31536000, immutable": "private, max-age=31536000, immutable",
	} {
		if got := privately(in); got != want {
			t.Errorf("privately(%q) = %q, want %q", in, got, want)
		}
	}
}
