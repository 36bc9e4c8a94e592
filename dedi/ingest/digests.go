package ingest

import (
	"context"
	"errors"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/store"
)

// The digests document of a crawl (docs/dedi-files.md, "The digests document"): fetched from
// the URL the accepted manifest names, conditionally and under the same fetch rules and budget,
// capped as a manifest; verified by dedi.DigestsAuthority (shape, signature by a listed key,
// domain, freshness, rollback against the one accepted before, which stands in while fresh
// when it cannot be fetched); its entries take precedence over files[].digest; and fetched
// once more, unconditionally, when a file does not have the digest it lists, before the file
// is refused.

// digestsState is the digests document of one crawl.
type digestsState struct {
	accepted  *dedi.Digests       // the one accepted before (nil: none)
	doc       *dedi.Digests       // the one files are checked against (nil: none, or it failed)
	err       error               // why it failed (nil: it did not)
	saved     *store.DediManifest // newly accepted, to record
	clear     bool                // the manifest names none any more: forget the kept one
	refetched bool                // fetched again after a mismatch, in this crawl
}

// digests fetches and verifies the digests document of the manifest m.
func (c *crawl) digests(ctx context.Context, m *dedi.Manifest, cached bool) {
	kept := c.pub.Digests
	if kept.Bytes != nil {
		c.dg.accepted, _ = dedi.ParseDigests(kept.Bytes, c.lim)
	}
	if m.DigestsURL == "" {
		c.dg.clear = kept.Bytes != nil && !cached
		return
	}
	etag, lastModified := "", ""
	if kept.Bytes != nil && kept.URL == m.DigestsURL {
		etag, lastModified = kept.ETag, kept.LastModified
	}
	c.fetchDigests(ctx, m, etag, lastModified)
	c.rep.Digests = string(dedi.OutcomeOf(c.dg.err))
}

// fetchDigests fetches the digests document (conditionally when validators are given) and
// checks it; an accepted one becomes the crawl's.
func (c *crawl) fetchDigests(ctx context.Context, m *dedi.Manifest, etag, lastModified string) {
	if c.fctx.Err() != nil && ctx.Err() == nil {
		c.dg.err = &dedi.Error{Outcome: dedi.DigestsUnavailable, Reason: "the digests document was not fetched: " + c.budgetSpent()}
		return
	}
	resp, ferr := c.s.cfg.Fetcher.Digests(c.fctx, m.DigestsURL, etag, lastModified)
	c.rep.Requests++
	var raw []byte
	fetched := false
	switch {
	case errors.Is(ferr, fetch.ErrTooLarge):
		c.dg.doc, c.dg.err = nil, &dedi.Error{Outcome: dedi.DigestsInvalid, Reason: ferr.Error()}
		return
	case ferr != nil:
	case resp.NotModified:
		raw = c.pub.Digests.Bytes // nil when none was kept: as if it could not be fetched
	default:
		raw, fetched = resp.Body, true
	}
	d, _, err := dedi.DigestsAuthority(raw, m, c.now, c.dg.accepted, c.lim)
	if err != nil {
		if ferr != nil {
			err = &dedi.Error{Outcome: dedi.OutcomeOf(err), Reason: err.(*dedi.Error).Reason + " (" + ferr.Error() + ")"}
		}
		c.dg.doc, c.dg.err = nil, err
		return
	}
	c.dg.doc, c.dg.err = d, nil
	c.due(d.NextUpdate)
	if fetched {
		c.dg.saved = &store.DediManifest{URL: resp.URL, ETag: resp.ETag, LastModified: resp.LastModified, Bytes: raw, SHA256: dedi.Digest(raw),
			Kid: d.Proof.VerificationMethod, FetchedAt: c.now, UpdatedAt: d.UpdatedAt, NextUpdate: d.NextUpdate, DediVersion: d.Version}
		c.dg.accepted = d
	}
}

// refetch is the digests document fetched again, unconditionally, after a file did not have
// the digest it lists: once a crawl. It reports whether a newer document was accepted.
func (c *crawl) refetch(ctx context.Context, m *dedi.Manifest) bool {
	if c.dg.refetched || m.DigestsURL == "" {
		return false
	}
	c.dg.refetched = true
	before := c.dg.doc
	c.fetchDigests(ctx, m, "", "")
	if c.dg.err != nil {
		// The refetch failed: the document the crawl had stays the one the files are checked against.
		c.dg.doc, c.dg.err = before, nil
		return false
	}
	return before == nil || c.dg.doc.UpdatedAt.After(before.UpdatedAt) || !sameDigests(before, c.dg.doc)
}

func sameDigests(a, b *dedi.Digests) bool {
	if len(a.Digests) != len(b.Digests) {
		return false
	}
	for k, v := range a.Digests {
		if b.Digests[k] != v {
			return false
		}
	}
	return true
}

// verifyFile is dedi.VerifyFile with the crawl's digests document, fetching that document
// again once when the file does not have the digest it lists.
func (c *crawl) verifyFile(ctx context.Context, raw []byte, m *dedi.Manifest, cached bool, acceptedAt time.Time) dedi.Result {
	check := func() dedi.Result {
		return dedi.VerifyFile(c.fctx, raw, m, cached, dedi.FileCheck{Now: c.now, AcceptedUpdatedAt: acceptedAt, Schemas: c.s.schemas,
			Limits: c.lim, Digests: c.dg.doc, DigestsErr: c.dg.err})
	}
	res := check()
	if res.Outcome == dedi.DigestMismatch && res.DigestFrom == dedi.FromDigests && c.refetch(ctx, m) {
		res = check()
	}
	return res
}
