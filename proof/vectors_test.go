package proof

// The tests in this package use the JavaScript reference in shared/conformance (digest.mjs
// over canonicalize 4.0.0 and @noble/hashes), found as follows:
//
//   - SVC_CONFORMANCE_DIR, when set: a writable copy of shared/conformance in which
//     `npm ci` has been run. The Makefile prepares one at .cache/conformance (`make conformance`);
//     by hand:
//
//     mkdir -p .cache && cp -r ../shared/conformance .cache/ && chmod -R u+w .cache/conformance
//     (cd .cache/conformance && npm ci --no-audit --no-fund)
//     SVC_CONFORMANCE_DIR=$PWD/.cache/conformance go test ./proof
//
//   - otherwise ../../shared/conformance (CI clones main beside shared/), and for running node
//     also ../.cache/conformance, whichever has node_modules.
//
// When the vectors, node or the node modules are missing, the tests that need them fail if
// CI=true and are skipped with a message otherwise.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// vectorsPath returns the path of vectors.ndjson.
func vectorsPath() string {
	if d := os.Getenv("SVC_CONFORMANCE_DIR"); d != "" {
		return filepath.Join(d, "vectors.ndjson")
	}
	return filepath.Join("..", "..", "shared", "conformance", "vectors.ndjson")
}

// referenceDir returns a directory holding digest.mjs with its node_modules, or "".
func referenceDir() string {
	candidates := []string{filepath.Join("..", "..", "shared", "conformance"), filepath.Join("..", ".cache", "conformance")}
	if d := os.Getenv("SVC_CONFORMANCE_DIR"); d != "" {
		candidates = []string{d}
	}
	for _, d := range candidates {
		if _, err := os.Stat(filepath.Join(d, "node_modules", "canonicalize", "package.json")); err == nil {
			return d
		}
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

// TestConformanceVectors checks every line of shared/conformance/vectors.ndjson: the input,
// parsed as JSON.parse would, canonicalizes to the reference's text and digest.
func TestConformanceVectors(t *testing.T) {
	vs, err := readVectors()
	if err != nil {
		unavailable(t, "the conformance vectors are not readable: %v", err)
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
