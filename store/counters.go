package store

import (
	"math/rand/v2"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/proof"
)

// The platform's counters (table svc_counters; stats.go reads them): every write that creates
// a user or an entry increases its counter in its own transaction.

// Counter names.
const (
	counterUsers      = "users"
	counterNamespaces = "namespaces"
	counterRegistries = "registries"
	counterRecords    = "records"
)

// counterShards is how many rows each counter is spread over.
const counterShards = 16

// kindCounter is the counter of each kind of entry.
var kindCounter = map[proof.Kind]string{
	proof.KindNamespace: counterNamespaces,
	proof.KindRegistry:  counterRegistries,
	proof.KindRecord:    counterRecords,
}

// addToCounter increases the counter by n in tx. It starts from a shard picked at random and
// takes the first one from there that no other transaction holds (on Postgres, SKIP LOCKED), so
// that concurrent writers never wait for one another's counter row however their namespaces
// differ; only when all the counter's shards are held does it wait, for the random one.
func addToCounter(tx *gorm.DB, name string, n int) error {
	if n == 0 {
		return nil
	}
	start := rand.IntN(counterShards)
	res := tx.Exec(`UPDATE svc_counters SET n = n + ? WHERE name = ? AND shard = (SELECT shard FROM svc_counters
		WHERE name = ? ORDER BY (shard + ?) % ? LIMIT 1`+skipLockedOf(tx)+`)`, n, name, name, counterShards-start, counterShards)
	if res.Error != nil {
		return translate(res.Error, "count "+name)
	}
	if res.RowsAffected == 1 {
		return nil
	}
	err := tx.Exec(`UPDATE svc_counters SET n = n + ? WHERE name = ? AND shard = ?`, n, name, start).Error
	return translate(err, "count "+name)
}
