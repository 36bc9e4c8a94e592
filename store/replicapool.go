package store

import (
	"context"
	"database/sql"
	"errors"

	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
)

// failoverPool is a replica's pool for reads, which runs a read the replica fails under
// again on the primary. It serves as the replica's GORM connection too. Writes never come
// here; ExecContext goes to the primary for safety.
type failoverPool struct {
	rs *replicaSet
	t  *readTarget
}

func (p *failoverPool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	// The guard covers the wait for the answer; the rows, once there, are read without it.
	gctx, release := p.t.guard(ctx)
	rows, err := p.t.sqlDB.QueryContext(gctx, q, args...)
	release()
	if p.rs.failed(ctx, p.t, err) {
		rows, err = p.rs.s.sqlDB.QueryContext(ctx, q, args...)
		return rows, unavailable(err, "read")
	}
	return rows, err
}

// QueryRowContext answers from the replica; its error only shows at Scan, too late to fail
// over, so the store's raw reads use rawRow instead.
func (p *failoverPool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return p.t.sqlDB.QueryRowContext(ctx, q, args...)
}

func (p *failoverPool) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return p.rs.s.sqlDB.ExecContext(ctx, q, args...)
}

func (p *failoverPool) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	return p.t.sqlDB.PrepareContext(ctx, q)
}

// retryOnPrimary is a replica handle's GORM callback, after its query: a read the replica
// failed while its rows were read (a connection terminated by a replica's shutdown or rewind
// after the first rows came: the failoverPool sees only the start) runs again, whole, on the
// primary; the primary's connection failures are typed as UnavailableError, as every read of
// the primary's handle is (markUnavailable), so that no database failure answers a 500.
func (p *failoverPool) retryOnPrimary(db *gorm.DB) {
	err := db.Error
	var ue *UnavailableError
	if err == nil || errors.As(err, &ue) || !p.rs.failed(db.Statement.Context, p.t, err) {
		return
	}
	db.Error, db.RowsAffected = nil, 0
	db.Statement.ConnPool = p.rs.s.sqlDB
	callbacks.Query(db)
	if db.Error != nil {
		db.Error = unavailable(db.Error, "read")
	}
}
