// Package dedi is the format of DeDi files and manifests ("Publishing DeDi Files", the DeDi
// protocol's origin-hosted publication; docs/dedi-files.md) and their verification. It is pure:
// no database, no network, no server. It parses and shape-checks documents against the JSON
// Schemas in schemas/ (embedded), signs and verifies their detached JWS (EdDSA over the
// RFC 8785 canonical JSON of the document without its proof, canonicalized by package proof),
// and decides the outcome of a file, given its bytes, the manifest's bytes and the URL they came
// from, the time, and what was accepted before (Verify). Fetching is the caller's: a crawler
// fetches with dedi/fetch and hands the bytes here; schemas named by URL come through the
// SchemaFetcher it injects.
package dedi

import (
	"errors"
	"fmt"
)

// Outcome is the one word a verification ends with.
type Outcome string

// The outcomes, in the order of the steps that give them (docs/dedi-files.md).
const (
	// Authentic: the file is well formed, its signature verifies, its key is listed by the
	// publisher's manifest, both are fresh, the registry is live, nothing rolled back and every
	// record conforms to the registry's schema.
	Authentic Outcome = "authentic"
	// Invalid: a document does not match its schema (or is not JSON, or is too large), has
	// duplicate record or registry names, or a record does not conform to the registry's schema.
	Invalid Outcome = "invalid"
	// BadSignature: the file's signature does not verify against its embedded key.
	BadSignature Outcome = "bad_signature"
	// NotAuthenticated: the manifest is not the publisher's (wrong host, bad signature, signer
	// not among its keys), or it does not list the file's key, domain or registry.
	NotAuthenticated Outcome = "not_authenticated"
	// DigestMismatch: the file's bytes do not have the digest the manifest lists.
	DigestMismatch Outcome = "digest_mismatch"
	// Stale: now is after the file's or the manifest's next_update.
	Stale Outcome = "stale"
	// Inactive: the registry's state is inactive.
	Inactive Outcome = "inactive"
	// Rollback: the manifest or the file is older (updated_at) than the copy accepted before.
	Rollback Outcome = "rollback"
	// SchemaUnavailable: the registry's schema is a URL that cannot be had now.
	SchemaUnavailable Outcome = "schema_unavailable"
	// UnavailableAuthority: the manifest cannot be fetched and no cached copy is still fresh.
	UnavailableAuthority Outcome = "unavailable_authority"
	// UnsupportedKey: the document (the file, the manifest or the digests document) is signed
	// by a key of a type svc cannot check (not Ed25519). It is the outcome of that document
	// only: the manifest may list such keys beside Ed25519 ones.
	UnsupportedKey Outcome = "unsupported_key"
)

// The outcomes of the digests document (digests.go). A referenced file whose manifest names a
// digests document takes the document's outcome when the document fails: the file cannot be
// checked against the digest its publisher commits to.
const (
	// DigestsInvalid: the digests document is not JSON, too large, or not of its schema.
	DigestsInvalid Outcome = "digests_invalid"
	// DigestsNotAuthenticated: the digests document is not signed by a key the manifest
	// lists, its signature does not verify, or its domain is not the manifest's.
	DigestsNotAuthenticated Outcome = "digests_not_authenticated"
	// DigestsStale: now is after the digests document's next_update.
	DigestsStale Outcome = "digests_stale"
	// DigestsRollback: the digests document is older (updated_at) than the one accepted before.
	DigestsRollback Outcome = "digests_rollback"
	// DigestsUnavailable: the manifest names a digests document that cannot be had, and no
	// accepted copy is still fresh.
	DigestsUnavailable Outcome = "digests_unavailable"
)

// Outcomes lists every outcome, success first.
var Outcomes = []Outcome{Authentic, Invalid, BadSignature, NotAuthenticated, DigestMismatch, Stale, Inactive, Rollback, SchemaUnavailable,
	UnavailableAuthority, UnsupportedKey, DigestsInvalid, DigestsNotAuthenticated, DigestsStale, DigestsRollback, DigestsUnavailable}

// Error is a failed step: its outcome and a one-line reason.
type Error struct {
	Outcome Outcome
	Reason  string
}

func (e *Error) Error() string { return string(e.Outcome) + ": " + e.Reason }

func fail(o Outcome, format string, args ...any) *Error {
	return &Error{Outcome: o, Reason: fmt.Sprintf(format, args...)}
}

// OutcomeOf is the outcome err stands for: Authentic for nil, the outcome of an *Error, and
// Invalid for any other error.
func OutcomeOf(err error) Outcome {
	if err == nil {
		return Authentic
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Outcome
	}
	return Invalid
}
