// Package models holds the types of the contract (openapi.yaml), generated once by oapi-codegen
// v2 (see config.yaml); package gen (the server) and package gen/client name them through
// aliases. Nothing here is written by hand.
package models

//go:generate go tool oapi-codegen -config config.yaml ../../openapi.yaml
