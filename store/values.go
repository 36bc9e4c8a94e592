package store

import (
	"time"

	"github.com/svc-directory/svc/directory"
)

// Times are stored as Unix milliseconds.

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func msTimePtr(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := msTime(*ms)
	return &t
}

// stamp is the moment of a write at the store's clock.
func (s *Store) stamp() directory.Stamp { return directory.StampAt(s.now()) }

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
