// The DeDi server's sources (docs/dedi-files.md, "The server's side"): the publishers it
// crawls, with the manifest it last accepted from each, and the discovery lists that name more
// of them. Crawling and verifying are package dedi/ingest's; this file only persists.

package store

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/translog/leaf"
)

// Publisher statuses.
const (
	DediPending  = "pending"  // added, not crawled yet
	DediOK       = "ok"       // the last crawl accepted the manifest and every file it lists
	DediFailed   = "failed"   // the last crawl did not accept the manifest, or some file (the data accepted before stays)
	DediConflict = "conflict" // a local namespace has verified the domain: not ingested
)

// DediPublisher is a publisher the server crawls.
type DediPublisher struct {
	Domain      string
	NamespaceID string // the origin-hosted namespace, "" until first indexed
	Status      string
	LastSuccess *time.Time
	LastOutcome string
	LastReason  string
	NextCrawl   time.Time
	Manifest    DediManifest
	// Digests is the last digests document accepted from the publisher (Bytes nil when its
	// manifest names none, or none was accepted yet).
	Digests   DediManifest
	FileCount int64
}

// DediManifest is the last manifest (or digests document) accepted from a publisher, as
// fetched.
type DediManifest struct {
	URL, ETag, LastModified string
	Bytes                   []byte // nil when none was accepted yet
	SHA256, Kid             string
	FetchedAt, UpdatedAt    time.Time
	NextUpdate              time.Time
	DediVersion             string // the dedi_version it declared
}

type dediPublisherRow struct {
	Domain             string  `gorm:"column:domain;primaryKey"`
	NamespaceID        *string `gorm:"column:namespace_id"`
	Status             string  `gorm:"column:status"`
	LastSuccessAt      *int64  `gorm:"column:last_success_at"`
	LastOutcome        string  `gorm:"column:last_outcome"`
	LastReason         string  `gorm:"column:last_reason"`
	NextCrawlAt        int64   `gorm:"column:next_crawl_at"`
	ManifestURL        string  `gorm:"column:manifest_url"`
	ManifestETag       string  `gorm:"column:manifest_etag"`
	ManifestModified   string  `gorm:"column:manifest_modified"`
	ManifestBytes      []byte  `gorm:"column:manifest_bytes"`
	ManifestSHA256     string  `gorm:"column:manifest_sha256"`
	ManifestKid        string  `gorm:"column:manifest_kid"`
	ManifestFetchedAt  *int64  `gorm:"column:manifest_fetched_at"`
	ManifestUpdatedAt  *int64  `gorm:"column:manifest_updated_at"`
	ManifestNextUpdate *int64  `gorm:"column:manifest_next_update"`
	ManifestVersion    string  `gorm:"column:manifest_dedi_version"`
	DigestsURL         string  `gorm:"column:digests_url"`
	DigestsETag        string  `gorm:"column:digests_etag"`
	DigestsModified    string  `gorm:"column:digests_modified"`
	DigestsBytes       []byte  `gorm:"column:digests_bytes"`
	DigestsSHA256      string  `gorm:"column:digests_sha256"`
	DigestsKid         string  `gorm:"column:digests_kid"`
	DigestsFetchedAt   *int64  `gorm:"column:digests_fetched_at"`
	DigestsUpdatedAt   *int64  `gorm:"column:digests_updated_at"`
	DigestsNextUpdate  *int64  `gorm:"column:digests_next_update"`
	DigestsVersion     string  `gorm:"column:digests_dedi_version"`
	CreatedAt          int64   `gorm:"column:created_at;autoCreateTime:false"`
}

func (dediPublisherRow) TableName() string { return "dedi_publishers" }

func msOr0(p *int64) time.Time {
	if p == nil {
		return time.Time{}
	}
	return msTime(*p)
}

func (r dediPublisherRow) publisher() DediPublisher {
	return DediPublisher{Domain: r.Domain, NamespaceID: deref(r.NamespaceID), Status: r.Status, LastSuccess: msTimePtr(r.LastSuccessAt),
		LastOutcome: r.LastOutcome, LastReason: r.LastReason, NextCrawl: msTime(r.NextCrawlAt),
		Manifest: DediManifest{URL: r.ManifestURL, ETag: r.ManifestETag, LastModified: r.ManifestModified, Bytes: r.ManifestBytes,
			SHA256: r.ManifestSHA256, Kid: r.ManifestKid, FetchedAt: msOr0(r.ManifestFetchedAt), UpdatedAt: msOr0(r.ManifestUpdatedAt),
			NextUpdate: msOr0(r.ManifestNextUpdate), DediVersion: r.ManifestVersion},
		Digests: DediManifest{URL: r.DigestsURL, ETag: r.DigestsETag, LastModified: r.DigestsModified, Bytes: r.DigestsBytes,
			SHA256: r.DigestsSHA256, Kid: r.DigestsKid, FetchedAt: msOr0(r.DigestsFetchedAt), UpdatedAt: msOr0(r.DigestsUpdatedAt),
			NextUpdate: msOr0(r.DigestsNextUpdate), DediVersion: r.DigestsVersion}}
}

// AddDediPublisher adds a publisher, due for its first crawl now; it reports whether it was
// new (adding one twice changes nothing).
func (s *Store) AddDediPublisher(ctx context.Context, domain string) (bool, error) {
	now := s.nowMS()
	res := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).
		Create(&dediPublisherRow{Domain: domain, Status: DediPending, NextCrawlAt: now, CreatedAt: now})
	return res.RowsAffected > 0, translate(res.Error, "add publisher")
}

// RemoveDediPublisher stops crawling a publisher and forgets its fetched documents; the
// namespace indexed from it stays, read-only, with every version it has. It reports whether
// the publisher was there.
func (s *Store) RemoveDediPublisher(ctx context.Context, domain string) (bool, error) {
	var n int64
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("domain = ?", domain).Delete(&dediFileRow{}).Error; err != nil {
			return translate(err, "remove publisher files")
		}
		res := tx.Where("domain = ?", domain).Delete(&dediPublisherRow{})
		if n = res.RowsAffected; n > 0 {
			originsChanged(tx) // its namespace is no longer origin-hosted
		}
		return translate(res.Error, "remove publisher")
	})
	return n > 0, err
}

// DediPublisher reads one publisher (a *directory.NotFoundError when it is not one).
func (s *Store) DediPublisher(ctx context.Context, domain string) (DediPublisher, error) {
	var rows []dediPublisherRow
	if err := s.db.WithContext(ctx).Where("domain = ?", domain).Limit(1).Find(&rows).Error; err != nil {
		return DediPublisher{}, translate(err, "publisher")
	}
	if len(rows) == 0 {
		return DediPublisher{}, fmt.Errorf("DeDi publisher %q: %w", domain, directory.ErrNotFound)
	}
	p := rows[0].publisher()
	err := s.db.WithContext(ctx).Model(&dediFileRow{}).Where("domain = ?", domain).Count(&p.FileCount).Error
	return p, translate(err, "publisher files")
}

// DediPublishers lists the publishers by domain, with their file counts (without the
// manifests' bytes).
func (s *Store) DediPublishers(ctx context.Context) ([]DediPublisher, error) {
	var rows []dediPublisherRow
	if err := s.db.WithContext(ctx).Omit("manifest_bytes", "digests_bytes").Order("domain").Find(&rows).Error; err != nil {
		return nil, translate(err, "publishers")
	}
	type count struct {
		Domain string
		N      int64
	}
	var counts []count
	if err := s.db.WithContext(ctx).Model(&dediFileRow{}).Select("domain, COUNT(*) AS n").Group("domain").Scan(&counts).Error; err != nil {
		return nil, translate(err, "publisher files")
	}
	byDomain := map[string]int64{}
	for _, c := range counts {
		byDomain[c.Domain] = c.N
	}
	out := make([]DediPublisher, len(rows))
	for i, r := range rows {
		out[i] = r.publisher()
		out[i].FileCount = byDomain[r.Domain]
	}
	return out, nil
}

// OriginsGeneration counts the committed changes of the set of origin-hosted namespaces made
// through this store (a namespace first indexed, a publisher removed): a reader that keeps the
// set (server/dedi.go) reads it again when the count moved, so that every read of this
// process agrees with the commit at once. It moves after the commit. Changes made by other
// processes on the same database do not move it.
func (s *Store) OriginsGeneration() uint64 { return s.originsGen.Load() }

// OriginNamespaces are the namespaces indexed from publishers, by namespace_id, with their
// domains: the namespaces that only their origin writes.
func (s *Store) OriginNamespaces(ctx context.Context) (map[string]string, error) {
	var rows []dediPublisherRow
	if err := s.db.WithContext(ctx).Select("domain, namespace_id").Where("namespace_id IS NOT NULL").Find(&rows).Error; err != nil {
		return nil, translate(err, "origin namespaces")
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[*r.NamespaceID] = r.Domain
	}
	return out, nil
}

// ClaimDueDediPublishers leases up to limit publishers due for a crawl at now: their next crawl
// moves to leaseUntil, so that with several instances on one database each publisher is
// crawled by one of them (Postgres: FOR UPDATE SKIP LOCKED; SQLite: one writer at a time).
func (s *Store) ClaimDueDediPublishers(ctx context.Context, now, leaseUntil time.Time, limit int) ([]string, error) {
	var domains []string
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Raw(`SELECT domain FROM dedi_publishers WHERE next_crawl_at <= ? ORDER BY next_crawl_at, domain LIMIT ?`+s.d.forUpdateSkipLocked(),
			now.UnixMilli(), limit).Scan(&domains).Error; err != nil {
			return translate(err, "due publishers")
		}
		if len(domains) == 0 {
			return nil
		}
		return translate(tx.Model(&dediPublisherRow{}).Where("domain IN ?", domains).Update("next_crawl_at", leaseUntil.UnixMilli()).Error, "lease publishers")
	})
	return domains, err
}

// RenewDediLease extends the lease of a publisher being crawled from held (the lease its
// crawler holds: the next crawl the claim or the last renewal set) to until, and reports
// whether it still held it. A crawl that ended (RecordDediCrawl) or a lease that ran out and
// was claimed by another instance has moved the next crawl: then nothing changes.
func (s *Store) RenewDediLease(ctx context.Context, domain string, held, until time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Model(&dediPublisherRow{}).Where("domain = ? AND next_crawl_at = ?", domain, held.UnixMilli()).
		Update("next_crawl_at", until.UnixMilli())
	return res.RowsAffected > 0, translate(res.Error, "renew lease")
}

// DediCrawl is what one crawl of a publisher leaves on its row.
type DediCrawl struct {
	Status, Outcome, Reason string
	Success                 bool          // the manifest was accepted (last success moves to now)
	NextCrawl               time.Time     // when it is due again
	Manifest                *DediManifest // a newly accepted manifest, else nil (the old one stays)
	// Digests is a newly accepted digests document, else nil (the old one stays);
	// ClearDigests forgets the one kept (the accepted manifest names none any more).
	Digests      *DediManifest
	ClearDigests bool
	NamespaceID  string // the origin-hosted namespace, when known
	// Keys is the key set of the manifest the crawl accepted (nil when it accepted none): a
	// key change when it differs from the last logged (dedikeys.go).
	Keys *leaf.KeysLeaf
}

// RecordDediCrawl stores the end of a crawl of domain and, in the same transaction, queues the
// accepted key set for the log when it is a key change.
func (s *Store) RecordDediCrawl(ctx context.Context, domain string, c DediCrawl) error {
	set := map[string]any{"status": c.Status, "last_outcome": c.Outcome, "last_reason": c.Reason, "next_crawl_at": c.NextCrawl.UnixMilli()}
	if c.Success {
		set["last_success_at"] = s.nowMS()
	}
	if c.NamespaceID != "" {
		set["namespace_id"] = c.NamespaceID
	}
	if m := c.Manifest; m != nil {
		set["manifest_url"], set["manifest_etag"], set["manifest_modified"] = m.URL, m.ETag, m.LastModified
		set["manifest_bytes"], set["manifest_sha256"], set["manifest_kid"] = m.Bytes, m.SHA256, m.Kid
		set["manifest_fetched_at"], set["manifest_updated_at"] = m.FetchedAt.UnixMilli(), m.UpdatedAt.UnixMilli()
		set["manifest_next_update"], set["manifest_dedi_version"] = m.NextUpdate.UnixMilli(), m.DediVersion
	}
	if c.ClearDigests {
		c.Digests = &DediManifest{}
	}
	if d := c.Digests; d != nil {
		var fetched, updated, next *int64
		if d.Bytes != nil {
			fetched, updated, next = msPtr(d.FetchedAt), msPtr(d.UpdatedAt), msPtr(d.NextUpdate)
		}
		set["digests_url"], set["digests_etag"], set["digests_modified"] = d.URL, d.ETag, d.LastModified
		set["digests_bytes"], set["digests_sha256"], set["digests_kid"] = d.Bytes, d.SHA256, d.Kid
		set["digests_fetched_at"], set["digests_updated_at"], set["digests_next_update"] = fetched, updated, next
		set["digests_dedi_version"] = d.DediVersion
	}
	return s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Model(&dediPublisherRow{}).Where("domain = ?", domain).Updates(set).Error; err != nil {
			return translate(err, "record crawl")
		}
		if c.Keys == nil {
			return nil
		}
		if c.Keys.Domain != domain {
			return fmt.Errorf("store: the key set of %s recorded for %s", c.Keys.Domain, domain)
		}
		_, err := logKeyChange(tx, s.nowMS(), *c.Keys)
		return err
	})
}

func msPtr(t time.Time) *int64 {
	v := t.UnixMilli()
	return &v
}

// TouchDediManifest keeps the validators of a manifest answered 304 (they may change).
func (s *Store) TouchDediManifest(ctx context.Context, domain, etag, lastModified string) error {
	return translate(s.db.WithContext(ctx).Model(&dediPublisherRow{}).Where("domain = ?", domain).
		Updates(map[string]any{"manifest_etag": etag, "manifest_modified": lastModified}).Error, "touch manifest")
}
