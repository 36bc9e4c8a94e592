package translog

import (
	"context"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

// The storage the log lives in. As golang.org/x/mod/sumdb/tlog reads hashes through a
// HashReader it does not implement, each part of the log declares here the few calls it makes
// of its storage, in the words of translog/logstore; the store (package store) provides them
// all, and the composition root (cmd/svc) hands it over. translog imports no database.

// ReadStorage is what a Reader reads.
type ReadStorage interface {
	// LogState returns the integrated state of the log.
	LogState(ctx context.Context) (logstore.State, error)
	// LogTile returns the stored tile at its current width (level logstore.EntriesLevel: the
	// entry bundle); an error wrapping logstore.ErrNotFound when there is none.
	LogTile(ctx context.Context, level int, n int64) ([]byte, error)
	// LogEntry returns the index of a logged version and its leaf, built from the version's
	// fields; an error wrapping logstore.ErrNotFound while the version is not integrated
	// (queued, a draft or unknown).
	LogEntry(ctx context.Context, version string) (int64, leaf.Leaf, error)
	// LogPending reports whether version is a public version that is not in the log yet.
	LogPending(ctx context.Context, version string) (bool, error)
}

// IntegrateStorage is what an Integrator writes through.
type IntegrateStorage interface {
	// IntegrateLog runs one integration in one transaction: it takes up to limit queued leaves
	// in queue order and hands them to fn with the log's state; when fn returns nil, the leaves
	// get the next indices and leave the queue, and fn's tiles and checkpoint are stored (and
	// the size grows by the Update.Appended leaves fn appended after them), all at once; when
	// it fails nothing changes. With an empty queue fn is called too; an empty Update
	// (Update.Empty) writes nothing then, unless the log has no checkpoint yet. It returns how
	// many queued leaves it integrated.
	IntegrateLog(ctx context.Context, limit int, fn func(b *logstore.Batch) (logstore.Update, error)) (int, error)
	// CompactLog reclaims the space that integrations left behind, where the database does
	// not reuse it by itself.
	CompactLog(ctx context.Context) error
	// LogState and LogTile are a Reader's (ReadStorage): the integrator's state index reads
	// the log's leaves from its entry bundles to rebuild itself.
	LogState(ctx context.Context) (logstore.State, error)
	LogTile(ctx context.Context, level int, n int64) ([]byte, error)
	// MarkLogRolledBack records the marker of a log found rolled back, unless the log has one
	// already (the batch's State.RolledBack then); it reports whether it recorded r. While the
	// marker exists, every integrator refuses to sign.
	MarkLogRolledBack(ctx context.Context, r logstore.Rollback) (bool, error)
}

// WitnessStorage is what a Witnesser reads and writes: a Reader's calls and the cosigned
// checkpoint.
type WitnessStorage interface {
	ReadStorage
	// LogCosigned returns the latest cosigned checkpoint.
	LogCosigned(ctx context.Context) (logstore.Cosigned, error)
	// SaveLogCosigned keeps c as the latest cosigned checkpoint when it is larger than the one
	// stored; it reports whether it did.
	SaveLogCosigned(ctx context.Context, c logstore.Cosigned) (bool, error)
}
