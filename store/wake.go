package store

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The background workers (the log's integrator, the webhook sender, the import worker) sleep
// until a write gives them work, with a slow poll as a safety net. On Postgres, an insert into
// the log's queue, the watchers' outbox or the import jobs notifies the channel svc_wake in the
// writing transaction (triggers of migration 0025): every instance listening hears it at the
// commit. The payload is "<schema>/<worker>" (0027), and a listener wakes only for its own
// schema: the channel is the database's, shared by every deployment in it. SQLite has one
// process: its commits wake the workers in memory.

// wakeChannel is the channel the triggers notify; the payload names the schema and the worker.
const wakeChannel = "svc_wake"

// Wakeups are the workers' wake-up calls: each channel (capacity 1) receives when a committed
// write may have given its worker work. A wake-up may be spurious; none is lost while the
// listener runs, and a lost connection wakes every worker once it is back.
type Wakeups struct {
	Log, Webhook, Jobs <-chan struct{}
}

// Listen feeds the wake-up calls until ctx ends. On Postgres it holds one connection of the
// pool, listening.
func (s *Store) Listen(ctx context.Context) Wakeups {
	chans := map[string]chan struct{}{"log": make(chan struct{}, 1), "webhook": make(chan struct{}, 1), "jobs": make(chan struct{}, 1)}
	wake := func(name string) {
		for n, c := range chans {
			if name == "" || n == name {
				select {
				case c <- struct{}{}:
				default:
				}
			}
		}
	}
	if s.d.notifies() {
		go s.listen(ctx, wake)
	} else {
		s.OnCommit(func() { wake("") })
	}
	return Wakeups{Log: chans["log"], Webhook: chans["webhook"], Jobs: chans["jobs"]}
}

// listen holds a connection listening on wakeChannel, again a second after it fails.
func (s *Store) listen(ctx context.Context, wake func(name string)) {
	for ctx.Err() == nil {
		err := withPgxConn(ctx, s.sqlDB, func(c *pgx.Conn) error {
			if _, err := c.Exec(ctx, "LISTEN "+wakeChannel); err != nil {
				return err
			}
			var schema string
			if err := c.QueryRow(ctx, "SELECT COALESCE(current_schema(), '')").Scan(&schema); err != nil {
				return err
			}
			defer func() {
				// The connection goes back to the pool: it must not keep listening.
				uctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				if _, err := c.Exec(uctx, "UNLISTEN *"); err != nil {
					_ = c.Close(uctx) // a connection that may still listen is not handed out again
				}
			}()
			wake("") // what was written while no one listened
			for {
				n, err := c.WaitForNotification(ctx)
				if err != nil {
					return err
				}
				if name, ours := wakeFor(n.Payload, schema); ours {
					wake(name)
				}
			}
		})
		if ctx.Err() != nil {
			return
		}
		s.log.WarnContext(ctx, "listening for the workers' wake-ups", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// wakeFor reads a wake-up's payload: the worker it names, and whether the write was to schema
// (a payload that names no schema, sent by 0025's trigger, is taken as ours).
func wakeFor(payload, schema string) (worker string, ours bool) {
	at, worker, named := strings.Cut(payload, "/")
	if !named {
		return payload, true
	}
	return worker, at == schema
}
