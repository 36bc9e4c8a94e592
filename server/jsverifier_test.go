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
// and refuses them with one change. A namespace's tombstone verifies with its state deleted and
// not shown as live; the restored namespace verifies like any live one.
func TestJavaScriptLookupVerifier(t *testing.T) {
	dir := referenceDir(t)
	h := newHarness(t, store.DialectSQLite)
	key := h.key("js@example.com")
	id := publish(t, h, key)
	type jsCase struct{ kind, path, from, to string }
	cases := []jsCase{
		{"namespace", "/svc/lookup/" + id, `friends`, `fiends`},
		{"registry", "/svc/lookup/" + id + "/employees", `"staff"`, `"Staff"`},
		{"record", "/svc/lookup/" + id + "/employees/alice", `alice@example.com`, `alice@example.org`},
	}
	check := func(c jsCase) {
		t.Helper()
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
				t.Errorf("%s %s (tampered: %v): %v %s", c.kind, c.path, i == 1, err, out)
			}
		}
	}
	for _, c := range cases {
		check(c)
	}
	n := h.must(http.StatusOK, "DELETE", "/svc/"+id+"/delete-namespace", key, nil).data()["namespace"].(map[string]any)
	check(jsCase{"namespace", "/svc/lookup/" + id + "?version_id=" + n["version"].(string), `"state":"deleted"`, `"state":"live"`})
	h.must(http.StatusOK, "POST", "/svc/restore/namespace", key, `{"namespace_id":"`+id+`"}`)
	check(jsCase{"namespace", "/svc/lookup/" + id, `"state":"live"`, `"state":"deleted"`})
}
