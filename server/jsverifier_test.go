package server_test

import (
	"bytes"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/svc-directory/svc/store"
)

// TestJavaScriptLookupVerifier runs conformance/verify-lookup.mjs (the JavaScript check of a
// saved lookup, shown in docs/digests.md) over lookups of each kind: it accepts them as served
// and refuses them with one changed byte.
func TestJavaScriptLookupVerifier(t *testing.T) {
	dir := referenceDir(t)
	h := newHarness(t, store.DialectSQLite)
	id := publish(t, h, h.key("js@example.com"))
	for _, c := range []struct{ kind, path, from, to string }{
		{"namespace", "/svc/lookup/" + id, `friends`, `fiends`},
		{"registry", "/svc/lookup/" + id + "/employees", `"staff"`, `"Staff"`},
		{"record", "/svc/lookup/" + id + "/employees/alice", `alice@example.com`, `alice@example.org`},
	} {
		raw := h.must(http.StatusOK, "GET", c.path, "", nil).Raw
		tampered := bytes.Replace(raw, []byte(c.from), []byte(c.to), 1)
		if bytes.Equal(raw, tampered) {
			t.Fatalf("%s: %q is not in %s", c.kind, c.from, raw)
		}
		for i, body := range [][]byte{raw, tampered} {
			cmd := exec.Command("node", "verify-lookup.mjs", c.kind, "-")
			cmd.Dir = dir
			cmd.Stdin = bytes.NewReader(body)
			out, err := cmd.CombinedOutput()
			if ok := err == nil && strings.HasPrefix(string(out), "OK 0x"); ok != (i == 0) {
				t.Errorf("%s (tampered: %v): %v %s", c.kind, i == 1, err, out)
			}
		}
	}
}
