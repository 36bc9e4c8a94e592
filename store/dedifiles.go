// The DeDi files fetched from publishers, kept byte for byte to relay them, and the
// discovery lists (docs/dedi-files.md, "The server's side").

package store

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
)

// The states of an origin-hosted registry (DediFile.State).
const (
	OriginLive      = "live"      // authentic, fresh and live
	OriginInactive  = "inactive"  // the publisher says so
	OriginStale     = "stale"     // past next_update with no successful refresh; still served
	OriginWithdrawn = "withdrawn" // no longer authentic: key removed, file unlisted, signature or digest broken
)

// DediFile is the last accepted copy of one publisher's registry file, and its state.
type DediFile struct {
	Domain, Registry, URL   string
	State                   string
	LastOutcome, LastReason string
	ETag, LastModified      string
	Bytes                   []byte
	SHA256, Kid             string
	FetchedAt, UpdatedAt    time.Time
	NextUpdate              time.Time
	RecordCount             int64
	DediVersion             string // the dedi_version the accepted file declared
}

type dediFileRow struct {
	Domain       string `gorm:"column:domain;primaryKey"`
	RegistryName string `gorm:"column:registry_name;primaryKey"`
	URL          string `gorm:"column:url"`
	State        string `gorm:"column:state"`
	LastOutcome  string `gorm:"column:last_outcome"`
	LastReason   string `gorm:"column:last_reason"`
	ETag         string `gorm:"column:etag"`
	LastModified string `gorm:"column:last_modified"`
	Bytes        []byte `gorm:"column:bytes"`
	SHA256       string `gorm:"column:sha256"`
	Kid          string `gorm:"column:kid"`
	FetchedAt    int64  `gorm:"column:fetched_at"`
	UpdatedAt    int64  `gorm:"column:updated_at;autoUpdateTime:false"`
	NextUpdate   int64  `gorm:"column:next_update"`
	RecordCount  int64  `gorm:"column:record_count"`
	DediVersion  string `gorm:"column:dedi_version"`
}

func (dediFileRow) TableName() string { return "dedi_files" }

func (r dediFileRow) file() DediFile {
	return DediFile{Domain: r.Domain, Registry: r.RegistryName, URL: r.URL, State: r.State, LastOutcome: r.LastOutcome,
		LastReason: r.LastReason, ETag: r.ETag, LastModified: r.LastModified, Bytes: r.Bytes, SHA256: r.SHA256, Kid: r.Kid,
		FetchedAt: msTime(r.FetchedAt), UpdatedAt: msTime(r.UpdatedAt), NextUpdate: msTime(r.NextUpdate), RecordCount: r.RecordCount,
		DediVersion: r.DediVersion}
}

// DediFiles reads the accepted files of a publisher, by registry name.
func (s *Store) DediFiles(ctx context.Context, domain string) (map[string]DediFile, error) {
	var rows []dediFileRow
	if err := s.db.WithContext(ctx).Where("domain = ?", domain).Find(&rows).Error; err != nil {
		return nil, translate(err, "publisher files")
	}
	out := make(map[string]DediFile, len(rows))
	for _, r := range rows {
		out[r.RegistryName] = r.file()
	}
	return out, nil
}

// DediFileStates reads the accepted files of a publisher without their bytes, by registry
// name.
func (s *Store) DediFileStates(ctx context.Context, domain string) ([]DediFile, error) {
	var rows []dediFileRow
	if err := s.db.WithContext(ctx).Omit("bytes").Where("domain = ?", domain).Order("registry_name").Find(&rows).Error; err != nil {
		return nil, translate(err, "publisher files")
	}
	out := make([]DediFile, len(rows))
	for i, r := range rows {
		out[i] = r.file()
	}
	return out, nil
}

// DediFile reads one accepted file with its bytes (a *directory.NotFoundError when there is none).
func (s *Store) DediFile(ctx context.Context, domain, registry string) (DediFile, error) {
	return s.dediFile(ctx, domain, registry, true)
}

// DediFileState reads one accepted file without its bytes (up to the file cap): what a lookup
// of an origin-hosted entry shows of it.
func (s *Store) DediFileState(ctx context.Context, domain, registry string) (DediFile, error) {
	return s.dediFile(ctx, domain, registry, false)
}

func (s *Store) dediFile(ctx context.Context, domain, registry string, withBytes bool) (DediFile, error) {
	var rows []dediFileRow
	q := s.db.WithContext(ctx)
	if !withBytes {
		q = q.Omit("bytes")
	}
	if err := q.Where("domain = ? AND registry_name = ?", domain, registry).Limit(1).Find(&rows).Error; err != nil {
		return DediFile{}, translate(err, "publisher file")
	}
	if len(rows) == 0 {
		return DediFile{}, fmt.Errorf("DeDi file %s/%s: %w", domain, registry, directory.ErrNotFound)
	}
	return rows[0].file(), nil
}

// PutDediFile stores a newly accepted copy of a file (replacing the one before), in the
// transaction that indexes it.
func (t *Tx) PutDediFile(f DediFile) error {
	row := dediFileRow{Domain: f.Domain, RegistryName: f.Registry, URL: f.URL, State: f.State, LastOutcome: f.LastOutcome,
		LastReason: f.LastReason, ETag: f.ETag, LastModified: f.LastModified, Bytes: f.Bytes, SHA256: f.SHA256, Kid: f.Kid,
		FetchedAt: f.FetchedAt.UnixMilli(), UpdatedAt: f.UpdatedAt.UnixMilli(), NextUpdate: f.NextUpdate.UnixMilli(), RecordCount: f.RecordCount,
		DediVersion: f.DediVersion}
	return translate(t.db.Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "domain"}, {Name: "registry_name"}},
		UpdateAll: true,
	}).Create(&row).Error, "put publisher file")
}

// MarkDediFile sets the state and last outcome of an accepted file without touching its bytes
// (a refresh that failed, a 304 that confirmed it); etag and lastModified, when not empty, are
// the validators received.
func (s *Store) MarkDediFile(ctx context.Context, domain, registry, state, outcome, reason, etag, lastModified string) error {
	set := map[string]any{"state": state, "last_outcome": outcome, "last_reason": reason}
	if etag != "" || lastModified != "" {
		set["etag"], set["last_modified"] = etag, lastModified
	}
	return translate(s.db.WithContext(ctx).Model(&dediFileRow{}).Where("domain = ? AND registry_name = ?", domain, registry).
		Updates(set).Error, "mark publisher file")
}

// DediList is a discovery list the server reads.
type DediList struct {
	URL, Head, LastOutcome string
	FetchedAt              *time.Time
}

type dediListRow struct {
	URL         string `gorm:"column:url;primaryKey"`
	Head        string `gorm:"column:head"`
	LastOutcome string `gorm:"column:last_outcome"`
	FetchedAt   *int64 `gorm:"column:fetched_at"`
	CreatedAt   int64  `gorm:"column:created_at;autoCreateTime:false"`
}

func (dediListRow) TableName() string { return "dedi_lists" }

// AddDediList adds a discovery list; it reports whether it was new.
func (s *Store) AddDediList(ctx context.Context, url string) (bool, error) {
	res := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&dediListRow{URL: url, CreatedAt: s.nowMS()})
	return res.RowsAffected > 0, translate(res.Error, "add list")
}

// RemoveDediList removes a discovery list; it reports whether it was there.
func (s *Store) RemoveDediList(ctx context.Context, url string) (bool, error) {
	res := s.db.WithContext(ctx).Where("url = ?", url).Delete(&dediListRow{})
	return res.RowsAffected > 0, translate(res.Error, "remove list")
}

// DediLists lists the discovery lists by URL.
func (s *Store) DediLists(ctx context.Context) ([]DediList, error) {
	var rows []dediListRow
	if err := s.db.WithContext(ctx).Order("url").Find(&rows).Error; err != nil {
		return nil, translate(err, "lists")
	}
	out := make([]DediList, len(rows))
	for i, r := range rows {
		out[i] = DediList{URL: r.URL, Head: r.Head, LastOutcome: r.LastOutcome, FetchedAt: msTimePtr(r.FetchedAt)}
	}
	return out, nil
}

// RecordDediList stores the head and outcome of a read of a list.
func (s *Store) RecordDediList(ctx context.Context, url, head, outcome string) error {
	return translate(s.db.WithContext(ctx).Model(&dediListRow{}).Where("url = ?", url).
		Updates(map[string]any{"head": head, "last_outcome": outcome, "fetched_at": s.nowMS()}).Error, "record list")
}
