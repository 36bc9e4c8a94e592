// Package ingest is the DeDi server's crawler (docs/dedi-files.md, "The server's side"): it
// fetches each publisher's manifest and files with the hardened fetcher (conditional GET, so
// that an unchanged publisher costs one 304 per document), verifies them end to end with
// package dedi, and indexes an accepted file as read-only data of the namespace named by the
// publisher's domain, through the store's own writes (new versions only when content changed,
// logged like every public version). A failed refresh never destroys the data accepted before:
// it only changes the file's state (stale, withdrawn) and its last outcome.
package ingest

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/discovery"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/store"
)

// Store is what the crawler needs of the store.
type Store interface {
	DediPublisher(ctx context.Context, domain string) (store.DediPublisher, error)
	DediFiles(ctx context.Context, domain string) (map[string]store.DediFile, error)
	RecordDediCrawl(ctx context.Context, domain string, c store.DediCrawl) error
	MarkDediFile(ctx context.Context, domain, registry, state, outcome, reason, etag, lastModified string) error
	ClaimDueDediPublishers(ctx context.Context, now, leaseUntil time.Time, limit int) ([]string, error)
	RenewDediLease(ctx context.Context, domain string, held, until time.Time) (bool, error)
	DomainHolderOwner(ctx context.Context, domain string) (namespaceID, ownerID string, err error)
	EnsureUser(ctx context.Context, email string) (store.User, error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
}

// Fetcher fetches a publisher's documents (dedi/fetch.Fetcher).
type Fetcher interface {
	Manifest(ctx context.Context, domain, etag, lastModified string) (fetch.Response, error)
	File(ctx context.Context, url, etag, lastModified string) (fetch.Response, error)
	Digests(ctx context.Context, url, etag, lastModified string) (fetch.Response, error)
	FetchSchema(ctx context.Context, url string) ([]byte, error)
	Limits() dedi.Limits
}

// Config configures a Service.
type Config struct {
	Store   Store
	Fetcher Fetcher
	Logger  *slog.Logger
	Now     func() time.Time
	// Interval is how often a publisher is crawled at most apart (SVC_DEDI_CRAWL_INTERVAL,
	// default 1h); it is crawled sooner when a file's or the manifest's next_update comes.
	Interval time.Duration
	// CreatorDID is the created_by of origin-hosted entries: the server's own DID,
	// did:web:{SVC_DID_HOST} (required).
	CreatorDID string
	// Metrics count the crawls (nil: none).
	Metrics *Metrics
	// Budget bounds the fetching of one publisher's crawl (SVC_DEDI_CRAWL_BUDGET, default
	// DefaultBudget): the files not fetched within it are unreachable for this crawl, and what
	// was fetched is still verified and indexed.
	Budget time.Duration
	// MaxFiles caps the files of one manifest that are fetched (SVC_DEDI_MAX_FILES, default
	// DefaultMaxFiles): the entries past it are refused as invalid.
	MaxFiles int
	// Concurrency is how many publishers CrawlDue crawls at once (SVC_DEDI_CRAWL_CONCURRENCY,
	// default DefaultConcurrency).
	Concurrency int
	// Lease is how long a claimed publisher is held by its crawler (default 15 min); it is
	// renewed every third of it while the crawl runs.
	Lease time.Duration
}

// The defaults of the crawl's bounds (docs/dedi-files.md, "Bounds of a crawl").
const (
	DefaultBudget      = 10 * time.Minute
	DefaultMaxFiles    = 1000
	DefaultConcurrency = 4
	DefaultLease       = 15 * time.Minute
)

// OwnerEmail is the system user that owns every origin-hosted namespace. It has no API key:
// no caller is a member of those namespaces.
const OwnerEmail = "dedi-origin@svc.invalid"

// minInterval keeps a publisher whose next_update has come from being crawled in a loop.
const minInterval = time.Minute

// Service crawls and indexes publishers.
type Service struct {
	cfg     Config
	log     *slog.Logger
	schemas *dedi.Schemas
	mu      sync.Mutex
	owner   string // the owner's user id, once known
}

// New builds the crawler.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Hour
	}
	if cfg.Budget <= 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.MaxFiles <= 0 {
		cfg.MaxFiles = DefaultMaxFiles
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	return &Service{cfg: cfg, log: cfg.Logger, schemas: dedi.NewSchemas(cfg.Fetcher, 1000, time.Hour, cfg.Now)}
}

// ownerID returns the id of the system user owning origin-hosted namespaces.
func (s *Service) ownerID(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner != "" {
		return s.owner, nil
	}
	u, err := s.cfg.Store.EnsureUser(ctx, OwnerEmail)
	if err != nil {
		return "", err
	}
	s.owner = u.ID
	return s.owner, nil
}

// Run crawls due publishers every tick until ctx ends.
func (s *Service) Run(ctx context.Context, tick time.Duration) {
	if tick <= 0 {
		tick = time.Minute
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	ls, _ := s.cfg.Store.(ListStore)
	lf, _ := s.cfg.Fetcher.(discovery.Fetcher)
	every := &lists{every: s.cfg.Interval}
	for {
		if ls != nil && lf != nil && every.due(s.cfg.Now()) {
			if err := ReadLists(ctx, ls, lf, s.log); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "dedi discovery lists", "error", err)
			}
		}
		if st, err := s.CrawlDue(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "dedi crawl", "error", err)
		} else if st.Publishers > 0 {
			s.log.InfoContext(ctx, "dedi crawl", "publishers", st.Publishers, "requests", st.Requests, "new_versions", st.NewVersions)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
