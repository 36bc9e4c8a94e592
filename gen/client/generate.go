// Package client is a typed Go client of the service, generated from openapi.yaml by
// oapi-codegen v2 (see config.yaml). Its models are aliases of package gen's, where they are
// generated once. Nothing here is written by hand.
package client

//go:generate go tool oapi-codegen -config config.yaml ../../openapi.yaml
