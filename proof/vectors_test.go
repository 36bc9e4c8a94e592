package proof

// Two kinds of tests in this package compare the proof package with the project's JavaScript
// reference in ../conformance (reference.mjs: canonicalize 4.0.0 and @noble/hashes):
//
//   - testdata/vectors.ndjson, written by that reference from conformance/inputs.ndjson
//     (scripts/conformance-vectors.sh regenerates it), is read directly: no node needed.
//   - The differential tests and TestVectorsMatchReference run node on the reference. They use
//     SVC_CONFORMANCE_DIR when set, otherwise ../conformance; either needs its node_modules:
//
//     make conformance            # or: (cd conformance && npm ci --no-audit --no-fund)
//     go test ./proof
//
// When node or the node modules are missing, the tests that need them fail if CI=true and are
// skipped with a message otherwise.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// vectorsPath is the committed output of the JavaScript reference.
func vectorsPath() string {
	return filepath.Join("testdata", "vectors.ndjson")
}

// conformanceDir is the JavaScript reference: SVC_CONFORMANCE_DIR, else the repository's.
func conformanceDir() string {
	if d := os.Getenv("SVC_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "conformance")
}

// referenceDir returns the reference's directory when its node_modules are installed, or "".
func referenceDir() string {
	d := conformanceDir()
	if _, err := os.Stat(filepath.Join(d, "node_modules", "canonicalize", "package.json")); err == nil {
		return d
	}
	return ""
}

// unavailable fails the test in CI and skips it elsewhere.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and "+format, args...)
	}
	t.Skipf("SKIPPED: "+format+" (see the comment at the top of vectors_test.go)", args...)
}

type vector struct {
	Input     json.RawMessage `json:"input"`
	Canonical string          `json:"canonical"`
	Digest    string          `json:"digest"`
}

// readVectors returns the reference's vectors, or nil with the error.
func readVectors() ([]vector, error) {
	data, err := os.ReadFile(vectorsPath())
	if err != nil {
		return nil, err
	}
	var vs []vector
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var v vector
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, sc.Err()
}

// TestConformanceVectors checks every line of testdata/vectors.ndjson: the input,
// parsed as JSON.parse would, canonicalizes to the reference's text and digest.
func TestConformanceVectors(t *testing.T) {
	vs, err := readVectors()
	if err != nil {
		t.Fatalf("the conformance vectors are not readable: %v", err)
	}
	if len(vs) == 0 {
		t.Fatalf("%s holds no vectors", vectorsPath())
	}
	for i, v := range vs {
		t.Run(strconv.Itoa(i+1), func(t *testing.T) {
			// One vector holds \u0000, which ParseJSON refuses by design (stored text never
			// holds NUL); decodeJSON is the same parser admitting it.
			val, err := decodeJSON(v.Input, 64)
			if err != nil {
				t.Fatalf("parse %s: %v", v.Input, err)
			}
			if strict, err := ParseJSON(v.Input, 64); err == nil {
				c, _ := Canonicalize(strict)
				if string(c) != v.Canonical {
					t.Errorf("ParseJSON and decodeJSON disagree: %s", c)
				}
			} else if !bytes.Contains(v.Input, []byte(`\u0000`)) {
				t.Errorf("ParseJSON refused a vector without NUL: %v", err)
			}
			got, err := Canonicalize(val)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != v.Canonical {
				t.Errorf("canonical text\n got %s\nwant %s", got, v.Canonical)
			}
			if d := DigestBytes(got); d != v.Digest {
				t.Errorf("DigestBytes = %s, want %s", d, v.Digest)
			}
			if d, err := Digest(val); err != nil || d != v.Digest {
				t.Errorf("Digest = %s, %v; want %s", d, err, v.Digest)
			}
		})
	}
}

// TestVectorsMatchReference regenerates the vectors with the JavaScript reference and compares
// them with the committed file, so that a changed input or a changed reference cannot leave
// stale vectors behind (scripts/conformance-vectors.sh rewrites the file).
func TestVectorsMatchReference(t *testing.T) {
	dir := referenceDir()
	if dir == "" {
		unavailable(t, "the JavaScript reference in %s has no node_modules (run `make conformance`)", conformanceDir())
	}
	if _, err := exec.LookPath("node"); err != nil {
		unavailable(t, "node is not on PATH")
	}
	inputs, err := os.ReadFile(filepath.Join(dir, "inputs.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "vectors.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(inputs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("node vectors.mjs: %v\n%s", err, stderr.Bytes())
	}
	want, err := os.ReadFile(vectorsPath())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from what the reference writes for %s/inputs.ndjson: run scripts/conformance-vectors.sh and commit", vectorsPath(), dir)
	}
}
