// Package svc holds the service's contract. The code lives in the sub-packages; see README.md.
package svc

import _ "embed"

// OpenAPI is openapi.yaml as written, served at /openapi.yaml (and later rendered at /docs).
//
//go:embed openapi.yaml
var OpenAPI []byte
