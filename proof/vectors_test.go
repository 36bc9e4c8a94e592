package proof

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// conformanceDir finds the JavaScript reference: SVC_CONFORMANCE_DIR (a copy with its
// node_modules, prepared by `make conformance`), else ../../shared/conformance.
func conformanceDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("SVC_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "conformance")
}

func missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required in CI", what)
	}
	t.Skipf("SKIPPING: %s not available (run `make conformance`)", what)
}

// TestConformanceVectors checks every line of shared/conformance/vectors.ndjson.
func TestConformanceVectors(t *testing.T) {
	path := filepath.Join(conformanceDir(t), "vectors.ndjson")
	data, err := os.ReadFile(path)
	if err != nil {
		missing(t, path)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		n++
		var vec struct {
			Input     json.RawMessage `json:"input"`
			Canonical string          `json:"canonical"`
			Digest    string          `json:"digest"`
		}
		if err := json.Unmarshal(line, &vec); err != nil {
			t.Fatalf("vector %d: %v", n, err)
		}
		v, err := DecodeJSON(vec.Input, 1000)
		if err != nil {
			t.Fatalf("vector %d: parse: %v", n, err)
		}
		got, err := Canonicalize(v)
		if err != nil {
			t.Fatalf("vector %d: %v", n, err)
		}
		if string(got) != vec.Canonical {
			t.Errorf("vector %d canonical:\n got %s\nwant %s", n, got, vec.Canonical)
		}
		if d := DigestBytes(got); d != vec.Digest {
			t.Errorf("vector %d digest: got %s want %s", n, d, vec.Digest)
		}
	}
	if n == 0 {
		t.Fatal("no vectors read")
	}
	t.Logf("%d vectors agree", n)
}

// runReference pipes NDJSON through digest.mjs (with --canonical when canonical) and returns
// its output lines.
func runReference(t *testing.T, input []byte, canonical bool) [][]byte {
	t.Helper()
	dir := conformanceDir(t)
	if _, err := exec.LookPath("node"); err != nil {
		missing(t, "node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "canonicalize")); err != nil {
		missing(t, filepath.Join(dir, "node_modules"))
	}
	args := []string{"digest.mjs"}
	if canonical {
		args = append(args, "--canonical")
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node digest.mjs: %v\n%s", err, stderr.String())
	}
	return bytes.Split(bytes.TrimRight(out, "\n"), []byte("\n"))
}
