package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/leaf"
)

// Outcomes of a crawl besides package dedi's words.
const (
	OutcomeConflict    = "conflict"    // a local namespace has verified the domain
	OutcomeUnreachable = "unreachable" // a file could not be fetched
)

// FileReport is what a crawl did with one registry's file.
type FileReport struct {
	Outcome     string // a dedi outcome word, or unreachable
	Reason      string
	State       string // the registry's origin state after the crawl ("" when never accepted)
	NewVersions int
}

// Report is what one crawl of a publisher did.
type Report struct {
	// Status is the publisher's status after the crawl (store.DediOK only when the manifest
	// and every file it lists were accepted); Outcome and Reason are what it says of it: the
	// manifest's outcome, or, when the manifest is authentic but some files were not
	// accepted, the first of their outcomes, with a reason that names them.
	Status, Outcome string
	Reason          string
	Manifest        string // the manifest's outcome (authentic when it was accepted), or conflict
	Digests         string // the digests document's outcome ("" when the manifest names none)
	Requests        int    // HTTP requests made (a 304 counts as one)
	NewVersions     int
	Files           map[string]FileReport
}

// crawl is the state of one crawl of a publisher.
type crawl struct {
	s        *Service
	domain   string
	now      time.Time
	pub      store.DediPublisher
	old      map[string]store.DediFile
	rep      Report
	nextDue  time.Time
	nsID     string
	lim      dedi.Limits
	accepted *dedi.Manifest
	keys     *leaf.KeysLeaf // the key set of the manifest this crawl accepted, for the log
	dg       digestsState   // the digests document (digests.go)
	// fctx is ctx bounded by the publisher's budget: the fetches use it, the store does not.
	fctx context.Context
}

// Crawl fetches, verifies and indexes one publisher now, its fetches bounded by the budget.
// Only what the store could not do is an error: every refusal of the publisher's documents is
// an outcome in the report (and on the publisher's and the files' rows).
func (s *Service) Crawl(ctx context.Context, domain string) (Report, error) {
	return s.crawl(ctx, domain, time.Time{})
}

// crawl is Crawl of a publisher claimed until lease (zero: not claimed), renewing the lease
// while it runs.
func (s *Service) crawl(ctx context.Context, domain string, lease time.Time) (Report, error) {
	if s.cfg.CreatorDID == "" {
		return Report{}, errors.New("ingest: no CreatorDID configured (the server's DID names the creator of indexed entries)")
	}
	if !lease.IsZero() {
		defer s.renew(ctx, domain, lease)()
	}
	fctx, cancel := context.WithTimeout(ctx, s.cfg.Budget)
	defer cancel()
	c := &crawl{s: s, domain: domain, now: s.cfg.Now(), lim: s.cfg.Fetcher.Limits(), rep: Report{Files: map[string]FileReport{}}, fctx: fctx}
	var err error
	if c.pub, err = s.cfg.Store.DediPublisher(ctx, domain); err != nil {
		return c.rep, err
	}
	c.nsID = c.pub.NamespaceID
	c.nextDue = c.now.Add(s.cfg.Interval)
	if c.old, err = s.cfg.Store.DediFiles(ctx, domain); err != nil {
		return c.rep, err
	}
	owner, err := s.ownerID(ctx)
	if err != nil {
		return c.rep, err
	}
	holder, holderOwner, err := s.cfg.Store.DomainHolderOwner(ctx, domain)
	if err != nil {
		return c.rep, err
	}
	if holder != "" && holderOwner != owner {
		return c.end(ctx, store.DediConflict, OutcomeConflict, "the domain is verified by a local namespace: its DeDi files are not ingested", false, nil)
	}
	if c.pub.Manifest.Bytes != nil {
		c.accepted, _ = dedi.ParseManifest(c.pub.Manifest.Bytes, c.lim)
	}
	resp, ferr := s.cfg.Fetcher.Manifest(fctx, domain, c.pub.Manifest.ETag, c.pub.Manifest.LastModified)
	c.rep.Requests++
	if errors.Is(ferr, fetch.ErrTooLarge) {
		// Served, but not a manifest this server reads: refused, the accepted data stays.
		c.markStale(ctx, string(dedi.Invalid), ferr.Error())
		return c.end(ctx, store.DediFailed, string(dedi.Invalid), ferr.Error(), false, nil)
	}
	var raw []byte
	fetched := false
	switch {
	case ferr != nil:
	case resp.NotModified:
		raw = c.pub.Manifest.Bytes // nil when none was accepted: then as if unavailable
	default:
		raw, fetched = resp.Body, true
	}
	m, cached, aerr := dedi.Authority(raw, dedi.WellKnownURL(domain), c.now, c.accepted, c.lim)
	if aerr == nil && !cached {
		aerr = dedi.CheckManifestRollback(m, c.accepted)
	}
	if aerr != nil {
		reason := aerr.(*dedi.Error).Reason
		if ferr != nil {
			reason += " (" + ferr.Error() + ")"
		}
		outcome := dedi.OutcomeOf(aerr)
		if outcome == dedi.NotAuthenticated && m != nil {
			// A manifest that parses but is not the publisher's: nothing it lists is authentic.
			c.markAll(ctx, store.OriginWithdrawn, string(outcome), reason)
		} else {
			c.markStale(ctx, string(outcome), reason)
		}
		return c.end(ctx, store.DediFailed, string(outcome), reason, false, nil)
	}
	var saved *store.DediManifest
	if fetched {
		saved = &store.DediManifest{URL: resp.URL, ETag: resp.ETag, LastModified: resp.LastModified, Bytes: raw, SHA256: dedi.Digest(raw),
			Kid: m.Proof.VerificationMethod, FetchedAt: c.now, UpdatedAt: m.UpdatedAt, NextUpdate: m.NextUpdate, DediVersion: m.Version}
	}
	if !cached {
		// Logged by the store when it is a key change (docs/dedi-files.md).
		kl, err := m.KeysLeaf()
		if err != nil {
			return c.rep, fmt.Errorf("the key set of %s: %w", domain, err)
		}
		c.keys = &kl
	}
	c.due(m.NextUpdate)
	c.digests(ctx, m, cached)
	listed := map[string]bool{}
	for i := range m.Files {
		e := &m.Files[i]
		listed[e.Registry] = true
		if i >= s.cfg.MaxFiles {
			old, had := c.old[e.Registry]
			c.mark(ctx, e.Registry, c.keep(old, had, ""), string(dedi.Invalid),
				fmt.Sprintf("the manifest lists %d files; this server fetches the first %d of a publisher (SVC_DEDI_MAX_FILES)", len(m.Files), s.cfg.MaxFiles), "", "")
			continue
		}
		if err := c.file(ctx, m, cached, e); err != nil {
			return c.rep, err
		}
	}
	if !cached {
		for name, f := range c.old {
			if !listed[name] && f.State != store.OriginWithdrawn {
				c.mark(ctx, name, store.OriginWithdrawn, string(dedi.NotAuthenticated), "the manifest no longer lists the registry", "", "")
			}
		}
	}
	outcome, reason := string(dedi.Authentic), ""
	if cached {
		outcome, reason = string(dedi.UnavailableAuthority), "the manifest could not be fetched; the accepted copy stands in while fresh"
		if ferr != nil {
			reason += ": " + ferr.Error()
		}
	}
	c.rep.Manifest = outcome
	status := store.DediOK
	if first, summary := c.notAccepted(m); summary != "" {
		status = store.DediFailed
		if outcome == string(dedi.Authentic) {
			outcome, reason = first, summary
		} else {
			reason += "; " + summary
		}
	}
	return c.end(ctx, status, outcome, reason, !cached, saved)
}

// file fetches, verifies and indexes one of the manifest's files.
func (c *crawl) file(ctx context.Context, m *dedi.Manifest, cached bool, e *dedi.Entry) error {
	old, had := c.old[e.Registry]
	var raw []byte
	var etag, lastModified string
	if e.Inline != nil {
		raw = e.Inline
	} else {
		if had && old.URL == e.URL {
			etag, lastModified = old.ETag, old.LastModified
		}
		if c.fctx.Err() != nil && ctx.Err() == nil {
			c.mark(ctx, e.Registry, c.unreachableState(old, had), OutcomeUnreachable, "not fetched: "+c.budgetSpent(), "", "")
			return nil
		}
		resp, err := c.s.cfg.Fetcher.File(c.fctx, e.URL, etag, lastModified)
		c.rep.Requests++
		switch {
		case err != nil:
			outcome, reason := OutcomeUnreachable, err.Error()
			if errors.Is(err, fetch.ErrTooLarge) {
				outcome = string(dedi.Invalid)
			} else if c.fctx.Err() != nil && ctx.Err() == nil {
				reason += " (" + c.budgetSpent() + ")"
			}
			c.mark(ctx, e.Registry, c.unreachableState(old, had), outcome, reason, "", "")
			return nil
		case resp.NotModified && had:
			raw = old.Bytes
		case resp.NotModified:
			c.mark(ctx, e.Registry, "", OutcomeUnreachable, "304 for a file never accepted", "", "")
			return nil
		default:
			raw = resp.Body
		}
		etag, lastModified = resp.ETag, resp.LastModified
	}
	var acceptedAt time.Time
	if had {
		acceptedAt = old.UpdatedAt
	}
	res := c.verifyFile(ctx, raw, m, cached, acceptedAt)
	if res.File != nil {
		c.due(res.File.NextUpdate)
	}
	outcome := string(res.Outcome)
	switch res.Outcome {
	case dedi.Authentic, dedi.Inactive:
		state := store.OriginLive
		if res.Outcome == dedi.Inactive {
			state = store.OriginInactive
		}
		if had && old.SHA256 == res.Digest && old.State == state {
			c.mark(ctx, e.Registry, state, outcome, "", etag, lastModified)
			return nil
		}
		df := store.DediFile{Domain: c.domain, Registry: e.Registry, URL: e.URL, State: state, LastOutcome: outcome, LastReason: res.Reason,
			ETag: etag, LastModified: lastModified, Bytes: raw, SHA256: res.Digest, Kid: res.File.Publisher.Key.Kid, FetchedAt: c.now,
			UpdatedAt: res.File.Registry.UpdatedAt, NextUpdate: res.File.NextUpdate, RecordCount: int64(res.File.RecordCount()),
			DediVersion: res.File.Version}
		n, nsID, err := c.s.index(ctx, c.domain, res.File, df)
		if errors.Is(err, store.ErrOriginConflict) {
			c.mark(ctx, e.Registry, "", OutcomeConflict, err.Error(), "", "")
			return nil
		}
		if reason, refused := refusal(err); refused {
			// The file is authentic, but a rule of the directory refused it: nothing of it was
			// written; the copy accepted before (if any) stays as it was.
			c.mark(ctx, e.Registry, c.keep(old, had, ""), string(dedi.Invalid), reason, "", "")
			return nil
		}
		if err != nil {
			return fmt.Errorf("indexing %s/%s: %w", c.domain, e.Registry, err)
		}
		c.nsID = nsID
		c.rep.NewVersions += n
		c.rep.Files[e.Registry] = FileReport{Outcome: outcome, State: state, NewVersions: n}
	case dedi.Stale:
		c.mark(ctx, e.Registry, c.keep(old, had, store.OriginStale), outcome, res.Reason, "", "")
	case dedi.DigestsInvalid, dedi.DigestsNotAuthenticated, dedi.DigestsStale, dedi.DigestsRollback, dedi.DigestsUnavailable, dedi.UnsupportedKey:
		// It could not be checked: the accepted copy keeps its state, stale past its next_update.
		c.mark(ctx, e.Registry, c.unreachableState(old, had), outcome, res.Reason, "", "")
	case dedi.NotAuthenticated, dedi.DigestMismatch, dedi.BadSignature:
		c.mark(ctx, e.Registry, c.keep(old, had, store.OriginWithdrawn), outcome, res.Reason, "", "")
	default: // invalid, rollback, schema_unavailable: refused, the accepted copy stays as it was
		c.mark(ctx, e.Registry, c.keep(old, had, ""), outcome, res.Reason, "", "")
	}
	return nil
}

// unreachableState is the state of a file that could not be fetched: the one it had, stale
// once past its next_update ("" when it was never accepted).
func (c *crawl) unreachableState(old store.DediFile, had bool) string {
	if !had {
		return ""
	}
	if c.now.After(old.NextUpdate) && old.State == store.OriginLive {
		return store.OriginStale
	}
	return old.State
}

// budgetSpent says that the publisher's budget ran out.
func (c *crawl) budgetSpent() string {
	return fmt.Sprintf("the publisher's crawl budget of %s ran out (SVC_DEDI_CRAWL_BUDGET)", c.s.cfg.Budget)
}

// keep is the state of a file the crawl refused: to (or, "" for to, the state it had) when it
// had an accepted copy, else "" (nothing to serve).
func (c *crawl) keep(old store.DediFile, had bool, to string) string {
	if !had {
		return ""
	}
	if to == "" {
		return old.State
	}
	return to
}

// mark records the outcome of a file; state "" means no accepted copy (nothing is stored, the
// outcome goes only to the report).
func (c *crawl) mark(ctx context.Context, registry, state, outcome, reason, etag, lastModified string) {
	c.rep.Files[registry] = FileReport{Outcome: outcome, Reason: reason, State: state}
	if _, had := c.old[registry]; !had || state == "" {
		return
	}
	if err := c.s.cfg.Store.MarkDediFile(ctx, c.domain, registry, state, outcome, reason, etag, lastModified); err != nil {
		c.s.log.WarnContext(ctx, "dedi mark file", "domain", c.domain, "registry", registry, "error", err)
	}
	if state == store.OriginWithdrawn && c.old[registry].State != store.OriginWithdrawn && c.nsID != "" {
		// No longer authentic: the registry stops reading as live (its data stays).
		if err := c.s.deactivate(ctx, c.nsID, registry); err != nil {
			c.s.log.WarnContext(ctx, "dedi withdraw", "domain", c.domain, "registry", registry, "error", err)
		}
	}
}

// markAll marks every accepted file of the publisher.
func (c *crawl) markAll(ctx context.Context, state, outcome, reason string) {
	for name := range c.old {
		c.mark(ctx, name, state, outcome, reason, "", "")
	}
}

// markStale marks the accepted files past their next_update stale (the data stays served).
func (c *crawl) markStale(ctx context.Context, outcome, reason string) {
	for name, f := range c.old {
		state := f.State
		if c.now.After(f.NextUpdate) && state == store.OriginLive {
			state = store.OriginStale
		}
		c.mark(ctx, name, state, outcome, reason, "", "")
	}
}

// due brings the next crawl forward to t (a next_update), but not sooner than minInterval.
func (c *crawl) due(t time.Time) {
	if t.After(c.now) && t.Before(c.nextDue) {
		c.nextDue = t
	}
	if min := c.now.Add(minInterval); c.nextDue.Before(min) {
		c.nextDue = min
	}
}

// keysIf is the accepted key set when the crawl succeeded, else nil.
func (c *crawl) keysIf(success bool) *leaf.KeysLeaf {
	if !success {
		return nil
	}
	return c.keys
}

// end records the crawl on the publisher's row.
func (c *crawl) end(ctx context.Context, status, outcome, reason string, success bool, m *store.DediManifest) (Report, error) {
	c.rep.Status, c.rep.Outcome, c.rep.Reason = status, outcome, reason
	if c.rep.Manifest == "" {
		c.rep.Manifest = outcome
	}
	c.s.cfg.Metrics.crawled(c.rep)
	c.due(c.nextDue)
	err := c.s.cfg.Store.RecordDediCrawl(ctx, c.domain, store.DediCrawl{Status: status, Outcome: outcome, Reason: reason,
		Success: success, NextCrawl: c.nextDue, Manifest: m, NamespaceID: c.nsID, Keys: c.keysIf(success),
		Digests: c.dg.saved, ClearDigests: c.dg.clear})
	if status != store.DediOK {
		c.s.log.InfoContext(ctx, "dedi crawl", "domain", c.domain, "status", status, "outcome", outcome, "reason", reason)
	}
	return c.rep, err
}
