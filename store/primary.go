package store

import (
	"context"
	"time"
)

// Losing the primary (docs/deployment.md, "Losing the primary"). While no primary answers,
// the store's writes, and the reads that must see the primary, fail with an UnavailableError:
// the server answers it 503 with Retry-After, never 500. A transaction the primary was lost
// under is rolled back by Postgres (its session ended before COMMIT): nothing is half-written.
// The reads of requests marked with ReplicaReads keep going to the replicas.
//
// The primary is found again without a restart: SVC_DATABASE_URL may name every node
// (postgres://h1:p1,h2:p2,h3:p3/svc?target_session_attrs=read-write); each new connection of
// the primary's pool tries them in turn and keeps the one that accepts writes, so that after a
// promotion the pool's broken connections are replaced by connections to the new primary.

// Readiness is what the store can do now: read (the primary or a replica within the lag
// bound answers) and write (the primary answers).
type Readiness struct {
	CanRead, CanWrite bool
	// Err is the primary's failure when it cannot write.
	Err error
}

// Ready pings the primary and counts the usable replicas.
func (s *Store) Ready(ctx context.Context) Readiness {
	err := s.Ping(ctx)
	if s.replicas != nil {
		s.replicas.primaryAnswered(err == nil)
	}
	r := Readiness{CanWrite: err == nil, CanRead: err == nil, Err: err}
	for _, t := range s.Replicas() {
		r.CanRead = r.CanRead || t.Usable
	}
	return r
}

// primaryProbeSQL reads the primary's WAL position and which node answered (its address and
// port), so that a probe sees the primary change (a failover).
const primaryProbeSQL = `SELECT pg_current_wal_lsn()::text,
	COALESCE(host(inet_server_addr()), 'local') || ':' || COALESCE(inet_server_port()::text, '')`

// primaryLost reports whether the primary did not answer the last probe (false without
// replicas: then nothing probes it).
func (s *Store) primaryLost() bool { return s.replicas != nil && s.replicas.primaryDown.Load() }

// primaryAnswered records whether the primary answered a probe or a readiness ping.
func (rs *replicaSet) primaryAnswered(up bool) {
	if rs.primaryDown.Swap(!up) == up {
		if up {
			rs.log.Info("the primary database answers again")
		} else {
			rs.log.Warn("the primary database does not answer: writes answer 503 until it is back or another node is promoted; reads go to the replicas")
		}
	}
	rs.metrics.primary(up)
}

// primaryAt records the node a probe found the primary on: a node other than the last one is a
// failover. The caches of answers are emptied then (the OnCommit observers), since the new
// primary may lack writes the old one had acknowledged.
func (rs *replicaSet) primaryAt(node string) {
	old, _ := rs.primaryNode.Swap(node).(string)
	if old == "" || old == node {
		return
	}
	rs.log.Warn("the primary database changed (a failover)", "from", old, "to", node)
	rs.metrics.failover()
	rs.s.committed(context.Background())
}

// withoutPrimary measures the replicas' lag while the primary does not answer: against the
// replica furthest ahead, the best copy of the data there is. WAL positions no replica has
// reached are forgotten (they may be lost with the primary), so that the replicas do not look
// later and later behind a position none of them can reach.
func (rs *replicaSet) withoutPrimary(now time.Time) {
	var best uint64
	for _, t := range rs.replicas {
		if t.up.Load() {
			best = max(best, t.replayed.Load())
		}
	}
	if best == 0 {
		return
	}
	rs.mu.Lock()
	kept := rs.samples[:0]
	for _, sm := range rs.samples {
		if sm.lsn <= best {
			kept = append(kept, sm)
		}
	}
	rs.samples = kept
	rs.mu.Unlock()
	rs.sample(now, best)
	for _, t := range rs.replicas {
		if t.up.Load() {
			lag := rs.lagOf(now, t.replayed.Load())
			t.lagNS.Store(int64(lag))
			rs.metrics.probed(t.name, true, lag)
		}
	}
}
