package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/svc-directory/svc/directory"
)

// ConsistencyToken is a position in the primary's write-ahead log (a Postgres LSN): a read
// that carries one is served by a database that has replayed past it. The zero token asks
// for nothing.
type ConsistencyToken uint64

// String is the token as Postgres writes an LSN: two hexadecimal halves, "16/B374D848".
func (t ConsistencyToken) String() string {
	return fmt.Sprintf("%X/%X", uint64(t)>>32, uint64(t)&0xFFFFFFFF)
}

// ParseConsistencyToken reads a token as String writes it (either case). A malformed one is
// ErrInvalid.
func ParseConsistencyToken(s string) (ConsistencyToken, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if ok && len(hi) >= 1 && len(hi) <= 8 && len(lo) >= 1 && len(lo) <= 8 {
		h, err1 := strconv.ParseUint(hi, 16, 32)
		l, err2 := strconv.ParseUint(lo, 16, 32)
		if err1 == nil && err2 == nil {
			return ConsistencyToken(h<<32 | l), nil
		}
	}
	return 0, fmt.Errorf("%w: the consistency token %.40q is not a WAL position (two hexadecimal numbers of 1 to 8 digits joined by '/', as a write's Svc-Consistency-Token header gives it)", directory.ErrInvalid, s)
}

// ConsistencyToken is the primary's current WAL insert position, which is past every write
// that has committed: a write's caller hands it back on later reads (ReplicaReads) to read
// what it wrote, through any instance. SQLite, a single database, has none (0).
func (s *Store) ConsistencyToken(ctx context.Context) (ConsistencyToken, error) {
	return s.d.consistencyToken(ctx, s.sqlDB)
}
