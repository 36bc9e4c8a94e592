package store

import (
	"fmt"
	"strings"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

// Picking the dialect of a database URL, at Open.

// openDialect picks the dialect of databaseURL and the GORM dialector that opens it.
func openDialect(databaseURL string) (dialect, gorm.Dialector, error) {
	switch {
	case strings.HasPrefix(databaseURL, "sqlite://"):
		return openSQLite(databaseURL)
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		dsn, err := postgresDSN(databaseURL)
		if err != nil {
			return nil, nil, err
		}
		return postgresDialect{}, postgres.New(postgres.Config{DSN: dsn}), nil
	default:
		return nil, nil, fmt.Errorf("store: unsupported database URL %q (want sqlite://PATH or postgres://...)", redact(databaseURL))
	}
}
