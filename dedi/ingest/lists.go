package ingest

import (
	"context"
	"log/slog"
	"time"

	"github.com/svc-directory/svc/dedi/discovery"
	"github.com/svc-directory/svc/store"
)

// ListStore is what reading the discovery lists needs of the store.
type ListStore interface {
	DediLists(ctx context.Context) ([]store.DediList, error)
	RecordDediList(ctx context.Context, url, head, outcome string) error
	AddDediPublisher(ctx context.Context, domain string) (bool, error)
}

// ReadLists walks the discovery lists (depth 3, each list once: discovery.Walk) and adds the
// publishers of the lists that changed since their head was last seen. A list that cannot be
// read keeps its last head; its outcome says why.
func ReadLists(ctx context.Context, s ListStore, f discovery.Fetcher, log *slog.Logger) error {
	lists, err := s.DediLists(ctx)
	if err != nil || len(lists) == 0 {
		return err
	}
	roots := make([]string, len(lists))
	heads := map[string]string{}
	for i, l := range lists {
		roots[i] = l.URL
		heads[l.URL] = l.Head
	}
	res := discovery.Walk(ctx, f, roots, discovery.Options{Heads: heads})
	for _, d := range res.Domains {
		if added, err := s.AddDediPublisher(ctx, d); err != nil {
			return err
		} else if added {
			log.InfoContext(ctx, "dedi publisher discovered", "domain", d)
		}
	}
	for _, v := range res.Lists {
		if _, root := heads[v.URL]; !root || v.Depth != 0 {
			continue
		}
		outcome, head := "ok", v.Head
		switch {
		case v.Err != nil:
			outcome, head = "unavailable: "+v.Err.Error(), heads[v.URL]
		case v.Unchanged:
			outcome = "unchanged"
		}
		if err := s.RecordDediList(ctx, v.URL, head, outcome); err != nil {
			return err
		}
	}
	return nil
}

// lists reads the discovery lists at most every interval, from a crawl loop.
type lists struct {
	every time.Duration
	last  time.Time
}

func (l *lists) due(now time.Time) bool {
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		return false
	}
	l.last = now
	return true
}
