package leaf_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestJavaScriptReference runs the project's JavaScript reference (conformance/log-vectors.mjs:
// canonicalize, Node's SHA-256 and Ed25519, RFC 9162's proof checks) over testdata/. It needs
// node and the reference's node_modules (make conformance, or: cd conformance && npm ci); it
// uses SVC_CONFORMANCE_DIR when set. Without them it fails when CI=true and is skipped otherwise.
func TestJavaScriptReference(t *testing.T) {
	dir := os.Getenv("SVC_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "conformance")
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "canonicalize", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the JavaScript reference cannot run (node and %s/node_modules needed: make conformance): %v", dir, err)
		}
		t.Skipf("SKIPPED: the JavaScript reference cannot run (node and %s/node_modules needed: make conformance): %v", dir, err)
	}
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, filepath.Join(dir, "log-vectors.mjs"), abs).CombinedOutput()
	if err != nil {
		t.Fatalf("conformance/log-vectors.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
