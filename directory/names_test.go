package directory_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-directory/svc/directory"
)

// TestCheckEntryNameIsTheContractsPattern: the rule the crawler applies is the pattern every
// path of the contract applies, character for character, on hostile names and the edges.
func TestCheckEntryNameIsTheContractsPattern(t *testing.T) {
	spec, err := os.ReadFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(spec), "pattern: '"+directory.EntryNamePattern+"'") {
		t.Fatalf("openapi.yaml does not declare EntryName as %s", directory.EntryNamePattern)
	}
	re := regexp.MustCompile(directory.EntryNamePattern)
	names := []string{"admin", "a", "A.b_c~d-e", "0", strings.Repeat("x", 128), strings.Repeat("x", 129),
		"", "<img src=x onerror=alert(1)>", "../../etc/passwd", "\u0430dmin", "a/b?c#d", " spaced ", "ad\u202emin",
		".hidden", "-x", "~x", "_x", "a b", "a\x00b", "é", "a%2Fb", "<svg onload=alert(1)>", "adm\u200bin"}
	for _, n := range names {
		err := directory.CheckEntryName(n)
		if (err == nil) != re.MatchString(n) {
			t.Errorf("%q: CheckEntryName %v, the pattern matches %v", n, err, re.MatchString(n))
		}
	}
	for b := 0; b < 256; b++ {
		n := "a" + string(rune(b))
		if (directory.CheckEntryName(n) == nil) != re.MatchString(n) {
			t.Errorf("%q: CheckEntryName and the pattern disagree", n)
		}
	}
}
