package directory_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/svc-directory/svc/directory"
)

// hostileNames are the names of the hostile publisher's file (issue 42): each is a name the
// DeDi draft allows, so an origin-hosted namespace holds it, and none is a native name.
var hostileNames = []string{"<img src=x onerror=alert(1)>", "../../etc/passwd", "a/b?c#d", " spaced ", "ad\u202emin",
	"\u0430dmin", "<svg onload=alert(1)>", "a%2Fb", "100%", "é", "adm\u200bin", "a b", ".hidden", "-x", "~x", "_x",
	"\u202e", "\ufeff", "a\tb", "a\nb", "日本語", "...", ".a", "%2E%2E"}

// TestCheckNativeNameIsTheContractsPattern: the native rule is the pattern every write of the
// contract applies (EntryName), character for character, on hostile names and the edges.
func TestCheckNativeNameIsTheContractsPattern(t *testing.T) {
	spec, err := os.ReadFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(spec), "pattern: '"+directory.NativeNamePattern+"'") {
		t.Fatalf("openapi.yaml does not declare EntryName as %s", directory.NativeNamePattern)
	}
	re := regexp.MustCompile(directory.NativeNamePattern)
	names := append([]string{"admin", "a", "A.b_c~d-e", "0", strings.Repeat("x", 128), strings.Repeat("x", 129), "", "a\x00b"}, hostileNames...)
	for _, n := range names {
		err := directory.CheckNativeName(n)
		if (err == nil) != re.MatchString(n) {
			t.Errorf("%q: CheckNativeName %v, the pattern matches %v", n, err, re.MatchString(n))
		}
	}
	for b := 0; b < 256; b++ {
		n := "a" + string(rune(b))
		if (directory.CheckNativeName(n) == nil) != re.MatchString(n) {
			t.Errorf("%q: CheckNativeName and the pattern disagree", n)
		}
	}
}

// TestCheckOriginName: every name of the hostile file, and every native name, is an origin
// name; the bounds are the draft's 1,024 characters, the storage's 2,048 bytes, UTF-8, no NUL.
func TestCheckOriginName(t *testing.T) {
	for _, n := range append([]string{"admin", strings.Repeat("x", 1024), strings.Repeat("ж", 1024), strings.Repeat("日", 682), strings.Repeat("😀", 512)}, hostileNames...) {
		if err := directory.CheckOriginName(n); err != nil {
			t.Errorf("%q (%d characters, %d bytes): %v", n, utf8.RuneCountInString(n), len(n), err)
		}
	}
	for n, want := range map[string]string{
		"":                        "empty",
		strings.Repeat("x", 1025): "1025 characters",
		strings.Repeat("日", 683):  "2049 bytes",
		strings.Repeat("😀", 513):  "2052 bytes",
		"a\x00b":                  "U+0000",
		"a\xffb":                  "not UTF-8",
		".":                       "dot segment",
		"..":                      "dot segment",
		strings.Repeat("x", 2049): "2049 characters",
	} {
		err := directory.CheckOriginName(n)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.20q: %v, want an error saying %q", n, err, want)
		}
	}
}
