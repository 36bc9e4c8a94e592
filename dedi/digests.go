package dedi

import (
	"strings"
	"time"

	"github.com/svc-directory/svc/proof"
)

// The digests document (upstream PR #38, 2026-09-03): a publisher that cannot change its
// /.well-known/ freely names, in its manifest's digests member, a signed document that maps
// each registry to the digest of its current file. The manifest then changes only when keys or
// the list of registries change; the digests document changes with every content update. It
// is signed by a key the manifest lists and verified like the manifest; its entries take
// precedence over files[].digest; on a mismatch a verifier fetches it again before it refuses
// (the crawler does, dedi/ingest).

// DigestsPath is where the draft recommends the digests document, under the publisher's domain.
const DigestsPath = "/dedi/dedi.digests.json"

// Digests is a parsed, shape-checked digests document. Its signature is checked against a
// manifest by CheckDigests.
type Digests struct {
	Version    string
	Domain     string // lowercased
	UpdatedAt  time.Time
	NextUpdate time.Time
	Digests    map[string]string // registry name → "sha-256:<hex>" (or another algorithm's)
	Proof      Proof
	doc        map[string]any
}

// ParseDigests reads a digests document: the manifest's size cap, strict JSON, the digests
// schema. Every failure is DigestsInvalid.
func ParseDigests(raw []byte, lim Limits) (*Digests, error) {
	if int64(len(raw)) > lim.manifest() {
		return nil, fail(DigestsInvalid, "the digests document is larger than %d bytes", lim.manifest())
	}
	v, err := proof.ParseJSON(raw, maxDepth)
	if err != nil {
		return nil, fail(DigestsInvalid, "the digests document: %v", err)
	}
	if err := checkShape(DigestsSchemaID, v, ""); err != nil {
		return nil, fail(DigestsInvalid, "not a DeDi digests document: %v", err)
	}
	doc := v.(map[string]any)
	d := &Digests{doc: doc, Version: doc["dedi_version"].(string), Domain: strings.ToLower(doc["domain"].(string)),
		UpdatedAt: timeOf(doc["updated_at"]), NextUpdate: timeOf(doc["next_update"]), Proof: proofOf(doc["proof"]),
		Digests: map[string]string{}}
	for name, dg := range doc["digests"].(map[string]any) {
		d.Digests[name] = dg.(string)
	}
	if d.UpdatedAt.IsZero() || d.NextUpdate.IsZero() {
		return nil, fail(DigestsInvalid, "a timestamp of the digests document cannot be read (leap second?)")
	}
	return d, nil
}

// CheckDigests authenticates a digests document against the manifest m: its domain is the
// manifest's, and it is signed by a key m lists (DigestsNotAuthenticated; UnsupportedKey when
// that key is of a type svc cannot check).
func CheckDigests(d *Digests, m *Manifest) error {
	if d.Domain != m.Domain {
		return fail(DigestsNotAuthenticated, "the digests document names domain %s, the manifest %s", shorten(d.Domain, 200), m.Domain)
	}
	k := m.Key(d.Proof.VerificationMethod)
	if k == nil {
		return fail(DigestsNotAuthenticated, "the digests document is signed by %q, which is not among the manifest's keys", shorten(d.Proof.VerificationMethod, 80))
	}
	return signatureError(VerifyJWS(d.Proof.JWS, d.doc, *k), DigestsNotAuthenticated, "the digests document's signature: ")
}

// DigestsAuthority is the digests document of the manifest m, checked: raw (as fetched from
// m.DigestsURL) parsed, authenticated by CheckDigests, fresh at now (DigestsStale) and not
// older than the accepted one (DigestsRollback); or, when raw is nil (it could not be
// fetched), the accepted one, authenticated again against m, while now is at or before its
// next_update (cached true), else DigestsUnavailable. It is nil, false, nil when m names no
// digests document.
func DigestsAuthority(raw []byte, m *Manifest, now time.Time, accepted *Digests, lim Limits) (*Digests, bool, error) {
	if m.DigestsURL == "" {
		return nil, false, nil
	}
	if raw == nil {
		if accepted == nil {
			return nil, false, fail(DigestsUnavailable, "the manifest names the digests document %s, which cannot be had, and none was accepted before", shorten(m.DigestsURL, 200))
		}
		if now.After(accepted.NextUpdate) {
			return accepted, true, fail(DigestsUnavailable, "the digests document %s cannot be had and the accepted copy expired at %s",
				shorten(m.DigestsURL, 200), formatTime(accepted.NextUpdate))
		}
		return accepted, true, CheckDigests(accepted, m)
	}
	d, err := ParseDigests(raw, lim)
	if err != nil {
		return nil, false, err
	}
	if err := CheckDigests(d, m); err != nil {
		return d, false, err
	}
	if now.After(d.NextUpdate) {
		return d, false, fail(DigestsStale, "the digests document expired at %s", formatTime(d.NextUpdate))
	}
	if accepted != nil && d.UpdatedAt.Before(accepted.UpdatedAt) {
		return d, false, fail(DigestsRollback, "the digests document's updated_at %s is older than the accepted %s",
			formatTime(d.UpdatedAt), formatTime(accepted.UpdatedAt))
	}
	return d, false, nil
}

// Where a referenced file's digest commitment comes from (Result.DigestFrom).
const (
	FromDigests  = "digests"  // the digests document
	FromManifest = "manifest" // the manifest's files[].digest
	FromNone     = "none"     // no digest anywhere: the file rests on its signature and domain binding
)

// Commitment is the digest the publisher commits to for the referenced entry e, and where it
// comes from: the digests document's entry (d, which takes precedence), else the entry's own
// digest, else none ("", FromNone).
func Commitment(e *Entry, d *Digests) (digest, from string) {
	if d != nil {
		if v, ok := d.Digests[e.Registry]; ok {
			return v, FromDigests
		}
	}
	if e.Digest != "" {
		return e.Digest, FromManifest
	}
	return "", FromNone
}

// checkDigest compares a file's bytes with a commitment (DigestMismatch); svc checks sha-256
// digests only, and a commitment by another algorithm cannot be met.
func checkDigest(raw []byte, commitment, from string) error {
	alg, value, _ := strings.Cut(commitment, ":")
	if alg != "sha-256" {
		return fail(DigestMismatch, "the %s commits to the file by a %s digest; svc checks sha-256 digests only", fromText(from), shorten(alg, 40))
	}
	if d := Digest(raw); !strings.EqualFold("sha-256:"+value, d) {
		return fail(DigestMismatch, "the file's digest is %s, the %s lists %s", d, fromText(from), shorten(commitment, 100))
	}
	return nil
}

func fromText(from string) string {
	if from == FromDigests {
		return "digests document"
	}
	return "manifest"
}
