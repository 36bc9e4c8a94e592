package store

import (
	"context"
	"fmt"
)

// Platform statistics: how many users, namespaces, registries and records exist. They are
// counters (table svc_counters, migration 0011) that every write creating one of them increases
// in its own transaction: users where a user is created (ensureUserTx), the others at the one
// place new versions come into existence (appendVersions), by their first versions. A delete
// counts off what it hides and a restore counts it back (deleted.go). Reading them sums 64 rows, whatever the size of the
// directory. Records count in every state but draft: a draft is private (its namespace's owner
// and delegates see it), so it is counted when it is published (migration 0017 took the
// drafts counted before out).

// Stats are the platform's counts.
type Stats struct {
	Users, Namespaces, Registries, Records int64
}

// Stats returns the platform's counts.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var rows []struct {
		Name  string `gorm:"column:name"`
		Total int64  `gorm:"column:total"`
	}
	if err := s.rdb(ctx).Raw(`SELECT name, SUM(n) AS total FROM svc_counters GROUP BY name`).Scan(&rows).Error; err != nil {
		return Stats{}, fmt.Errorf("store: stats: %w", err)
	}
	var st Stats
	for _, r := range rows {
		switch r.Name {
		case counterUsers:
			st.Users = r.Total
		case counterNamespaces:
			st.Namespaces = r.Total
		case counterRegistries:
			st.Registries = r.Total
		case counterRecords:
			st.Records = r.Total
		}
	}
	return st, nil
}

// Counts are the numbers of entries and of versions in the directory.
type Counts struct {
	Namespaces, Registries, Records, Versions int64
	// Users, and Members: namespace members and registry delegates.
	Users, Members int64
	// Subscriptions are watch subscriptions, WebhookEvents the events waiting in their outbox.
	Subscriptions, WebhookEvents int64
}

// Count counts the directory's entries and versions, its users and their memberships, with
// full counts (tests and tools; GET /svc/stats reads the maintained counters instead).
func (s *Store) Count(ctx context.Context) (Counts, error) {
	var c Counts
	err := s.db.WithContext(ctx).Raw(`SELECT
		(SELECT COUNT(*) FROM namespaces) AS namespaces,
		(SELECT COUNT(*) FROM registries) AS registries,
		(SELECT COUNT(*) FROM records) AS records,
		(SELECT COUNT(*) FROM users) AS users,
		(SELECT COUNT(*) FROM namespace_members) + (SELECT COUNT(*) FROM registry_delegates) AS members,
		(SELECT COUNT(*) FROM watch_subscriptions) AS subscriptions,
		(SELECT COUNT(*) FROM watch_outbox) AS webhook_events,
		(SELECT COUNT(*) FROM namespace_versions) + (SELECT COUNT(*) FROM registry_versions) +
		(SELECT COUNT(*) FROM record_versions) AS versions`).Scan(&c).Error
	return c, translate(err, "count")
}
