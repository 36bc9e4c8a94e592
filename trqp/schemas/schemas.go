// Package schemas holds the four JSON Schemas of the Trust Registry Query Protocol v2.0,
// byte-exact copies with their provenance (README.md), and compiles them: the server's tests
// validate every request and answer of POST /authorization and POST /recognition against them,
// and the Go SDK (client.TRQP) checks every answer it gets with them.
package schemas

import (
	"bytes"
	"embed"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var files embed.FS

// Kinds are the two queries, Sides the two documents of each.
var (
	Kinds = []string{"authorization", "recognition"}
	Sides = []string{"request", "response"}
)

// File is the name of the schema of a kind (authorization, recognition) and side (request,
// response).
func File(kind, side string) string { return "trqp_" + kind + "_" + side + ".schema.json" }

// Bytes is the schema of a kind and side, as committed.
func Bytes(kind, side string) ([]byte, error) {
	return files.ReadFile(File(kind, side))
}

// Compile compiles the schema of a kind and side, with formats asserted (date-time: RFC 3339).
func Compile(kind, side string) (*jsonschema.Schema, error) {
	b, err := Bytes(kind, side)
	if err != nil {
		return nil, fmt.Errorf("TRQP schema of the %s %s: %w", kind, side, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(File(kind, side), doc); err != nil {
		return nil, err
	}
	return c.Compile(File(kind, side))
}
