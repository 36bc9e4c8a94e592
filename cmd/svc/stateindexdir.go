package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/indexstore"
)

// stateIndexSuffix names the folder svc serve keeps the state index in beside an embedded
// database, without SVC_STATE_INDEX_DIR: the database file's name and this (svc.db.index).
const stateIndexSuffix = ".index"

// stateIndexes are an instance's two state indexes on disk (docs/state-index.md, "Storage"):
// its integrator's and its serving index's, in the folders integrator/ and serving/ of one
// directory. The index is derived from the log, so the directory is the instance's own cache:
// a restart resumes from it, and a missing or stale one is rebuilt.
type stateIndexes struct {
	integrator, serving *indexstore.Store
	dir                 string
	temporary           bool // made for this run, removed by close
}

// openStateIndexes opens the state indexes in cfg.StateIndexDir; without it, beside an
// embedded database file, or else (Postgres, an in-memory database) in a temporary directory
// removed at the end of the run (each start then rebuilds the index from the log).
func openStateIndexes(cfg Config, log *slog.Logger) (*stateIndexes, error) {
	x := &stateIndexes{dir: cfg.StateIndexDir}
	if x.dir == "" {
		if db := sqlitePath(cfg.DatabaseURL); strings.HasPrefix(cfg.DatabaseURL, "sqlite://") && db != "" && !strings.Contains(db, ":memory:") && !strings.HasPrefix(db, "file::") {
			x.dir = db + stateIndexSuffix
		} else {
			d, err := os.MkdirTemp("", "svc-state-index-")
			if err != nil {
				return nil, fmt.Errorf("state index: %w", err)
			}
			x.dir, x.temporary = d, true
			log.Info("state index: kept in a temporary directory for this run; set SVC_STATE_INDEX_DIR to keep it across restarts", "dir", d)
		}
	}
	opts := indexstore.Options{CacheBytes: int64(cfg.StateIndexCacheMB) << 20, Log: log}
	var err error
	if x.integrator, err = indexstore.Open(filepath.Join(x.dir, "integrator"), opts); err != nil {
		x.close()
		return nil, err
	}
	if x.serving, err = indexstore.Open(filepath.Join(x.dir, "serving"), opts); err != nil {
		x.close()
		return nil, err
	}
	return x, nil
}

// stores are the two as the log's IndexStores.
func (x *stateIndexes) stores() (integrator, serving translog.IndexStore) {
	return x.integrator, x.serving
}

// close closes both, and removes a temporary directory.
func (x *stateIndexes) close() {
	for _, s := range []*indexstore.Store{x.integrator, x.serving} {
		if s != nil {
			_ = s.Close()
		}
	}
	if x.temporary {
		_ = os.RemoveAll(x.dir)
	}
}
