package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

//go:embed migrations/postgres/*.sql migrations/sqlite/*.sql
var migrationFS embed.FS

// migration is one versioned, embedded SQL file: migrations/<dialect>/NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations(dialect string) ([]migration, error) {
	dir := "migrations/" + dialect
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, fmt.Errorf("store: migrations for %s: %w", dialect, err)
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: migration file %q is not NNNN_name.sql", name)
		}
		body, err := fs.ReadFile(migrationFS, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: rest, sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := range out {
		if out[i].version != i+1 {
			return nil, fmt.Errorf("store: migrations for %s are not numbered 1..n (found %d at %d)", dialect, out[i].version, i+1)
		}
	}
	return out, nil
}

// goSteps are the parts of migrations that SQL cannot express, by version: each runs in its
// migration's transaction, before the migration's SQL file.
var goSteps = map[int]func(ctx context.Context, s *Store, tx *gorm.DB) error{
	5: refoldSearchText,
}

// Migrate applies the pending migrations of the store's dialect, each in its own transaction,
// and then makes sure the deployment's network genesis exists. It is safe to run from several
// processes at once: on Postgres an advisory lock serializes them; on SQLite the immediate
// transaction does.
func (s *Store) Migrate(ctx context.Context) (applied int, err error) { return s.migrate(ctx, 0) }

// migrate applies the pending migrations up to version upTo (0: all of them); the migration
// tests stop early to build a database as an earlier release left it.
func (s *Store) migrate(ctx context.Context, upTo int) (applied int, err error) {
	migs, err := loadMigrations(s.dialect)
	if err != nil {
		return 0, err
	}
	if upTo > 0 && upTo < len(migs) {
		migs = migs[:upTo]
	}
	db := s.db.WithContext(ctx)
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := s.migrationLock(tx); err != nil {
			return err
		}
		return tx.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
			version    BIGINT PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at BIGINT NOT NULL)`).Error
	})
	if err != nil {
		return 0, fmt.Errorf("store: schema_migrations: %w", err)
	}
	for _, m := range migs {
		done := false
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := s.migrationLock(tx); err != nil {
				return err
			}
			var n int64
			if err := tx.Raw(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if step := goSteps[m.version]; step != nil {
				if err := step(ctx, s, tx); err != nil {
					return fmt.Errorf("migration %04d_%s: %w", m.version, m.name, err)
				}
			}
			if err := execScript(tx, m.sql); err != nil {
				return fmt.Errorf("migration %04d_%s: %w", m.version, m.name, err)
			}
			done = true
			return tx.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`, m.version, m.name, s.nowMS()).Error
		})
		if err != nil {
			return applied, fmt.Errorf("store: %w", err)
		}
		if done {
			applied++
			s.log.InfoContext(ctx, "migration applied", "version", m.version, "name", m.name, "dialect", s.dialect)
		}
	}
	if _, err := s.ensureNetworkGenesis(ctx); err != nil {
		return applied, err
	}
	return applied, nil
}

// migrationLock makes one migrator at a time run across processes on Postgres (released at
// commit). SQLite's immediate transactions already serialize writers.
func (s *Store) migrationLock(tx *gorm.DB) error {
	if s.dialect != DialectPostgres {
		return nil
	}
	return tx.Exec(`SELECT pg_advisory_xact_lock(7347001)`).Error
}

// SchemaVersion reports the highest applied migration (0 when none).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v *int64
	if err := s.db.WithContext(ctx).Raw(`SELECT MAX(version) FROM schema_migrations`).Scan(&v).Error; err != nil {
		return 0, translate(err, "schema version")
	}
	if v == nil {
		return 0, nil
	}
	return int(*v), nil
}

// execScript runs the statements of a migration file one by one (the SQLite driver executes
// only the first statement of a multi-statement string). Statements are separated by ";" at the
// end of a line; comments are dropped.
func execScript(tx *gorm.DB, script string) error {
	var b strings.Builder
	for _, line := range strings.Split(script, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimRight(line, " \t\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
		if strings.HasSuffix(line, ";") {
			if err := tx.Exec(b.String()).Error; err != nil {
				return fmt.Errorf("%w\n%s", err, b.String())
			}
			b.Reset()
		}
	}
	if strings.TrimSpace(b.String()) != "" {
		return tx.Exec(b.String()).Error
	}
	return nil
}
