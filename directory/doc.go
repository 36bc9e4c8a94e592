// Package directory is the domain core of the trust directory: what its entries are
// (namespaces, registries, records, each a chain of immutable versions), the rules of their
// lifecycle, how a version is sealed (its fields, its digest, its proof type) and what a valid
// next version is, and the refusals those rules give, as typed errors.
//
// It is pure: it reads no database, speaks no HTTP and knows nothing of the generated contract
// code. The store (package store) persists what it decides; the application layer (package
// entries) composes the two in one transaction per operation; the server renders the results.
// docs/architecture.md shows where it sits.
package directory
