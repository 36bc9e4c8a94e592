// Package gen is generated from openapi.yaml by oapi-codegen v2 (see config.yaml): the models,
// the strict echo server interface and the embedded contract. Nothing here is written by hand.
package gen

//go:generate go tool oapi-codegen -config config.yaml ../openapi.yaml
