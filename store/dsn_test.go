package store

import (
	"context"
	"testing"
)

// TestPostgresSessionSettings: JIT is off on every pooled connection unless the URL sets it.
func TestPostgresSessionSettings(t *testing.T) {
	s := openForTest(t, DialectPostgres)
	ctx := context.Background()
	conns := make([]interface{ Close() error }, 0, 3)
	for range 3 { // several connections of the pool, not only the first
		c, err := s.sqlDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var jit string
		if err := c.QueryRowContext(ctx, "SHOW jit").Scan(&jit); err != nil {
			t.Fatal(err)
		}
		if jit != "off" {
			t.Fatalf("jit = %q on a pooled connection, want off", jit)
		}
	}
	for _, c := range conns {
		_ = c.Close()
	}
	for _, tc := range []struct{ in, want string }{
		{"postgres://u@h:5432/db", "postgres://u@h:5432/db?jit=off"},
		{"postgres://u@h/db?sslmode=disable", "postgres://u@h/db?jit=off&sslmode=disable"},
		{"postgresql://u@h/db?jit=on", "postgresql://u@h/db?jit=on"},
	} {
		got, err := postgresDSN(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("postgresDSN(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
