package store

import (
	"context"
	"database/sql"
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
