package dedi

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/svc-directory/svc/proof"
)

// Accepted is what a verifier accepted before from the same publisher; the zero value means
// nothing yet.
type Accepted struct {
	// Manifest is the last accepted manifest: a newer one may not be older (updated_at), and it
	// stands in, while still fresh, for a manifest that cannot be fetched.
	Manifest *Manifest
	// FileUpdatedAt is registry.updated_at of the last accepted copy of this registry's file.
	FileUpdatedAt time.Time
	// Digests is the last accepted digests document: a newer one may not be older, and it
	// stands in, while fresh, for one that cannot be fetched.
	Digests *Digests
}

// Input is everything a verification depends on.
type Input struct {
	File []byte // the file's bytes as fetched (or an Entry's Inline text)
	// Manifest is the manifest's bytes as fetched from ManifestURL; nil when it could not be
	// fetched (then Accepted.Manifest stands in while fresh, else UnavailableAuthority).
	Manifest    []byte
	ManifestURL string
	// Digests is the digests document's bytes as fetched from the manifest's digests URL; nil
	// when the manifest names none or it could not be fetched (then Accepted.Digests stands in
	// while fresh, else a referenced file is DigestsUnavailable).
	Digests  []byte
	Now      time.Time
	Accepted Accepted
	Schemas  *Schemas // resolves registry schemas named by URL (nil: SchemaUnavailable)
	Limits   Limits
}

// Result is the outcome of a verification and what it found on the way.
type Result struct {
	Outcome  Outcome
	Reason   string    // why, one line ("" when Authentic)
	File     *File     // the file, once it parsed
	Manifest *Manifest // the manifest it was checked against (fetched or cached), once known
	Entry    *Entry    // the manifest's entry for the file, once found
	Digest   string    // "sha-256:<hex>" of the file's bytes
	Cached   bool      // the manifest could not be fetched and the accepted one stood in
	// Digests is the digests document the file was checked against (nil when the manifest
	// names none, or it failed); DigestsCached says the accepted one stood in for it.
	Digests       *Digests
	DigestsCached bool
	// DigestFrom says where the commitment the file met came from (FromDigests, FromManifest,
	// FromNone); "" for an inline file or when the check was not reached.
	DigestFrom string
}

// Verify runs the steps of docs/dedi-files.md in order and stops at the first that fails:
//  1. shape: the file parses and matches its schema (Invalid);
//  2. integrity: its signature verifies with its embedded key (BadSignature);
//  3. authenticity: the manifest is the publisher's (CheckManifest), lists the file's key
//     and registry, and has the file's domain and namespace (NotAuthenticated); a referenced
//     file has the listed digest, an inline one is the listed text (DigestMismatch); with no
//     manifest the accepted one stands in while fresh (else UnavailableAuthority);
//  4. freshness: now is at or before both next_updates (Stale);
//  5. state: the registry is live (Inactive);
//  6. rollback: neither the manifest nor the file is older than the accepted copy (Rollback);
//  7. records: every record conforms to the registry's schema (Invalid, SchemaUnavailable).
func Verify(ctx context.Context, in Input) Result {
	res := Result{Digest: Digest(in.File)}
	f, err := parseAndCheckFile(in.File, in.Limits)
	res.File = f
	if err != nil {
		return res.end(err)
	}
	m, cached, err := Authority(in.Manifest, in.ManifestURL, in.Now, in.Accepted.Manifest, in.Limits)
	res.Manifest, res.Cached = m, cached
	if err != nil {
		return res.end(err)
	}
	accepted := in.Accepted.Manifest
	if cached {
		accepted = nil // the accepted manifest stands in for itself
	}
	d, dcached, derr := DigestsAuthority(in.Digests, m, in.Now, in.Accepted.Digests, in.Limits)
	if derr == nil {
		res.Digests, res.DigestsCached = d, dcached
	}
	err = fileSteps(ctx, &res, in.File, accepted, FileCheck{Now: in.Now, AcceptedUpdatedAt: in.Accepted.FileUpdatedAt, Schemas: in.Schemas,
		Digests: d, DigestsErr: derr})
	return res.end(err)
}

// FileCheck is what VerifyFile needs besides the file and its manifest.
type FileCheck struct {
	Now               time.Time
	AcceptedUpdatedAt time.Time // registry.updated_at of the last accepted copy of this file
	Schemas           *Schemas
	Limits            Limits
	// Digests and DigestsErr are what DigestsAuthority gave for the manifest: the digests
	// document whose entries take precedence, or why it failed (then a referenced file of a
	// manifest that names one takes that outcome).
	Digests    *Digests
	DigestsErr error
}

// VerifyFile is Verify for a crawler that has already authenticated the manifest m (Authority,
// then CheckManifestRollback against the manifest it accepted before) and now checks each of
// its files: raw is the file's bytes as fetched from the entry's URL, or an inline entry's
// text. cached says m is the accepted copy standing in for one that could not be fetched.
// The steps and outcomes are Verify's, but for the manifest's own.
func VerifyFile(ctx context.Context, raw []byte, m *Manifest, cached bool, c FileCheck) Result {
	res := Result{Digest: Digest(raw), Manifest: m, Cached: cached, Digests: c.Digests}
	f, err := parseAndCheckFile(raw, c.Limits)
	res.File = f
	if err != nil {
		return res.end(err)
	}
	err = fileSteps(ctx, &res, raw, nil, c)
	return res.end(err)
}

// fileSteps are steps 3 (the file in res.Manifest) to 7; acceptedManifest, when not nil, is
// the manifest accepted before, for step 6.
func fileSteps(ctx context.Context, res *Result, raw []byte, acceptedManifest *Manifest, c FileCheck) error {
	f, m := res.File, res.Manifest
	entry, err := checkListed(f, raw, m, c.Digests, c.DigestsErr, &res.DigestFrom)
	res.Entry = entry
	if err != nil {
		return err
	}
	if err := CheckFresh(m, f, c.Now); err != nil {
		return err
	}
	if f.Registry.State != "live" {
		return fail(Inactive, "registry %q is %s", shorten(f.Registry.Name, 80), f.Registry.State)
	}
	if err := CheckManifestRollback(m, acceptedManifest); err != nil {
		return err
	}
	if err := CheckFileRollback(f, c.AcceptedUpdatedAt); err != nil {
		return err
	}
	return f.CheckRecords(ctx, c.Schemas)
}

// end sets the outcome of err (Authentic for nil) and its reason.
func (res Result) end(err error) Result {
	res.Outcome = OutcomeOf(err)
	if err != nil {
		res.Reason = err.Error()
		if e, ok := err.(*Error); ok {
			res.Reason = e.Reason
		}
	}
	return res
}

// Authority is step 3's manifest: the one in raw, authenticated by CheckManifest, or, when raw
// is nil (the manifest could not be fetched), the accepted one while now is at or before its
// next_update (cached true), else UnavailableAuthority. A manifest that fails to parse or
// authenticate is NotAuthenticated (a file cannot be authenticated by it).
func Authority(raw []byte, manifestURL string, now time.Time, accepted *Manifest, lim Limits) (*Manifest, bool, error) {
	if raw == nil {
		if accepted == nil {
			return nil, false, fail(UnavailableAuthority, "the manifest cannot be fetched and none was accepted before")
		}
		if now.After(accepted.NextUpdate) {
			return accepted, true, fail(UnavailableAuthority, "the manifest cannot be fetched and the accepted copy expired at %s", formatTime(accepted.NextUpdate))
		}
		return accepted, true, nil
	}
	m, err := ParseManifest(raw, lim)
	if err != nil {
		return nil, false, fail(NotAuthenticated, "the manifest is not valid: %s", err.(*Error).Reason)
	}
	if err := CheckManifest(m, manifestURL); err != nil {
		return m, false, err
	}
	return m, false, nil
}

// CheckManifest authenticates a parsed manifest (NotAuthenticated): it came from
// https://{domain}/.well-known/dedi.index.json, its domain being that host, and its signature
// verifies with the key of its own keys that its proof names.
func CheckManifest(m *Manifest, manifestURL string) error {
	u, err := url.Parse(manifestURL)
	if err != nil || u.Scheme != "https" || u.Path != WellKnownPath || u.RawQuery != "" || u.User != nil || u.Port() != "" {
		return fail(NotAuthenticated, "the manifest did not come from a well-known URL (https://{domain}%s): %s", WellKnownPath, shorten(manifestURL, 200))
	}
	if strings.ToLower(u.Hostname()) != m.Domain {
		return fail(NotAuthenticated, "the manifest names domain %s but was served by %s", m.Domain, shorten(u.Hostname(), 200))
	}
	return m.CheckSignature()
}

// CheckListed is the rest of step 3: the manifest has the file's publisher domain and
// namespace, lists its key (same kid and x) and has an entry for its registry
// (NotAuthenticated); a referenced file's bytes have the digest the publisher commits to
// (Commitment: the digests document d first, then the entry's own; none at all leaves the
// file resting on its signature and domain binding), an inline entry is the same document
// (DigestMismatch). A reference of a manifest that names a digests document needs d
// (DigestsUnavailable without it). It returns the entry.
func CheckListed(f *File, raw []byte, m *Manifest, d *Digests) (*Entry, error) {
	var from string
	return checkListed(f, raw, m, d, nil, &from)
}

func checkListed(f *File, raw []byte, m *Manifest, d *Digests, derr error, from *string) (*Entry, error) {
	if f.Publisher.Domain != m.Domain {
		return nil, fail(NotAuthenticated, "the file's publisher domain %s is not the manifest's domain %s", f.Publisher.Domain, m.Domain)
	}
	if !strings.EqualFold(f.Namespace, m.Domain) {
		return nil, fail(NotAuthenticated, "the file's namespace %q is not the manifest's domain %s", shorten(f.Namespace, 80), m.Domain)
	}
	listed := false
	for _, k := range m.Keys {
		if k.Same(f.Publisher.Key) {
			listed = true
			break
		}
	}
	if !listed {
		return nil, fail(NotAuthenticated, "the file's key %q is not among the manifest's keys", shorten(f.Publisher.Key.Kid, 80))
	}
	e := m.Entry(f.Registry.Name)
	if e == nil {
		return nil, fail(NotAuthenticated, "the manifest does not list registry %q", shorten(f.Registry.Name, 80))
	}
	if e.Inline == nil {
		if m.DigestsURL != "" {
			if derr != nil {
				return e, derr
			}
			if d == nil {
				return e, fail(DigestsUnavailable, "the manifest names the digests document %s, which was not given", shorten(m.DigestsURL, 200))
			}
		}
		c, src := Commitment(e, d)
		*from = src
		if src == FromNone {
			return e, nil
		}
		return e, checkDigest(raw, c, src)
	}
	canon, err := proof.Canonicalize(f.doc)
	if err != nil || !bytes.Equal(canon, e.Inline) {
		return e, fail(DigestMismatch, "the file is not the manifest's inline copy of registry %q", shorten(f.Registry.Name, 80))
	}
	return e, nil
}

// CheckFresh is step 4: now is at or before the next_update of the manifest and of the file.
func CheckFresh(m *Manifest, f *File, now time.Time) error {
	if m != nil && now.After(m.NextUpdate) {
		return fail(Stale, "the manifest expired at %s", formatTime(m.NextUpdate))
	}
	if f != nil && now.After(f.NextUpdate) {
		return fail(Stale, "the file expired at %s", formatTime(f.NextUpdate))
	}
	return nil
}

// CheckManifestRollback refuses a manifest older (updated_at) than the accepted one.
func CheckManifestRollback(m, accepted *Manifest) error {
	if accepted != nil && m.UpdatedAt.Before(accepted.UpdatedAt) {
		return fail(Rollback, "the manifest's updated_at %s is older than the accepted %s", formatTime(m.UpdatedAt), formatTime(accepted.UpdatedAt))
	}
	return nil
}

// CheckFileRollback refuses a file older (registry.updated_at) than the accepted copy.
func CheckFileRollback(f *File, accepted time.Time) error {
	if f.Registry.UpdatedAt.Before(accepted) {
		return fail(Rollback, "the file's updated_at %s is older than the accepted %s", formatTime(f.Registry.UpdatedAt), formatTime(accepted))
	}
	return nil
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
