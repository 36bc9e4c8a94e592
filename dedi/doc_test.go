package dedi

import (
	"os"
	"path/filepath"
	"regexp"
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

// TestConformanceTableNamesRealTests: every test the conformance table of docs/dedi-files.md
// names is a Go test of the repository, and the table has the profile's 19 checks.
func TestConformanceTableNamesRealTests(t *testing.T) {
	doc, err := os.ReadFile("../docs/dedi-files.md")
	if err != nil {
		t.Fatal(err)
	}
	var tests strings.Builder
	for _, dir := range []string{".", "ingest", "../cmd/svc", "../server", "../store"} {
		names, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			tests.Write(b)
		}
	}
	rows := 0
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| PUB-") {
			continue
		}
		rows++
		for _, m := range regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(line, -1) {
			if !strings.Contains(tests.String(), "func "+m[1]+"(") {
				t.Errorf("the conformance table names %s, which is not a test", m[1])
			}
		}
	}
	if rows != 19 {
		t.Errorf("the conformance table has %d rows, want PUB-001 to PUB-019", rows)
	}
}
