package proof

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func seedVectors(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5e-7,"x\u2028"],"b":{"c":null}}`))
	f.Add([]byte(`"\ud83d\ude00"`))
	f.Add([]byte(`[1e21,-0,0.1]`))
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "conformance", "vectors.ndjson"))
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var vec struct {
			Input json.RawMessage `json:"input"`
		}
		if json.Unmarshal(sc.Bytes(), &vec) == nil {
			f.Add([]byte(vec.Input))
		}
	}
}

// FuzzCanonicalize: canonicalization is idempotent over whatever the strict parser accepts.
func FuzzCanonicalize(f *testing.F) {
	seedVectors(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeJSON(data, 64)
		if err != nil {
			return
		}
		c1, err := Canonicalize(v)
		if err != nil {
			t.Fatalf("parsed value does not canonicalize: %v", err)
		}
		v2, err := DecodeJSON(c1, 64)
		if err != nil {
			t.Fatalf("canonical text %q does not parse: %v", c1, err)
		}
		c2, err := Canonicalize(v2)
		if err != nil || !bytes.Equal(c1, c2) {
			t.Fatalf("not idempotent:\n%q\n%q", c1, c2)
		}
	})
}

// FuzzParseJSON: the strict parser never panics, and what it accepts encoding/json accepts too.
func FuzzParseJSON(f *testing.F) {
	seedVectors(f)
	f.Add([]byte(`{"a":"\u0000"}`))
	f.Add([]byte(`["\ud800"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data, 32)
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if _, err := Canonicalize(v); err != nil {
			t.Fatalf("accepted value does not canonicalize: %v", err)
		}
	})
}
