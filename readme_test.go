package svc

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeWalkthrough holds the README's walkthrough and scripts/walkthrough.sh (which CI runs
// against a fresh server) to the same commands, and to the conventions that make it work when
// pasted: a build before the binary is used, a wait for /readyz, curl that fails on HTTP errors,
// and ids captured with jq rather than copied by hand.
func TestReadmeWalkthrough(t *testing.T) {
	script, err := os.ReadFile("scripts/walkthrough.sh")
	if err != nil {
		t.Fatal(err)
	}
	s := string(script)
	begin, end := strings.Index(s, "# walkthrough:begin\n"), strings.Index(s, "# walkthrough:end\n")
	if begin < 0 || end < begin {
		t.Fatal("scripts/walkthrough.sh has no walkthrough:begin/end markers")
	}
	want := s[begin+len("# walkthrough:begin\n") : end]

	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	r := string(readme)
	section := strings.Index(r, "## A walk through with curl")
	if section < 0 {
		t.Fatal("README.md has no walkthrough section")
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(r[section:])
	if block == nil {
		t.Fatal("the README's walkthrough section has no ```sh block")
	}
	if block[1] != want {
		t.Fatalf("the README's walkthrough differs from scripts/walkthrough.sh:\nREADME:\n%s\nscript:\n%s", block[1], want)
	}

	lines := strings.Split(want, "\n")
	first := func(sub string) int {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return i
			}
		}
		return -1
	}
	if b, use := first("make build"), first("./bin/svc"); b < 0 || use < 0 || b > use {
		t.Errorf("the walkthrough uses ./bin/svc (line %d) before `make build` (line %d)", use+1, b+1)
	}
	if r, k := first("/readyz"), first("key create"); r < 0 || r > k {
		t.Error("the walkthrough does not wait for /readyz before using the service")
	}
	for i, l := range lines {
		if strings.Contains(l, "curl ") && !strings.Contains(l, "--fail-with-body") && !strings.Contains(l, "curl -fsS") {
			t.Errorf("line %d: curl without --fail-with-body: %s", i+1, l)
		}
	}
	if !strings.Contains(want, "NS=$(curl") || !strings.Contains(want, "jq -r .data.namespace_id") {
		t.Error("the namespace id is not captured with jq")
	}
	if strings.Contains(want, "did:svc:...") {
		t.Error("the walkthrough asks for an id to be copied by hand")
	}
}
