package ingest_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestIngestDiscoveryLists: a list that names itself and a non-https URL is read once, its
// bad lines refused; the publishers of it and of the list it names are added; a list whose
// head did not change adds nothing again.
func TestIngestDiscoveryLists(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		o := newOrigin(t)
		o.dns.SetAddrs("lists.test", "127.0.0.1")
		o.put("lists.test", "/domains.txt", []byte("# head: h1\n# a list\npub.test\nhttps://lists.test/domains.txt\nhttp://lists.test/plain.txt\nhttps://lists.test/more.txt\n"))
		o.put("lists.test", "/more.txt", []byte("other.test\nhttps://lists.test/domains.txt\n"))
		if _, err := s.AddDediList(ctx, "https://lists.test/domains.txt"); err != nil {
			t.Fatal(err)
		}
		log := slog.New(slog.DiscardHandler)
		if err := ingest.ReadLists(ctx, s, o.fetcher(nil), log); err != nil {
			t.Fatal(err)
		}
		pubs, _ := s.DediPublishers(ctx)
		if len(pubs) != 2 || pubs[0].Domain != "other.test" || pubs[1].Domain != "pub.test" {
			t.Fatalf("publishers %+v", pubs)
		}
		if got := o.count("lists.test/domains.txt"); got != 1 {
			t.Fatalf("the list naming itself was fetched %d times", got)
		}
		if o.count("lists.test/plain.txt") != 0 {
			t.Fatal("a non-https list was fetched")
		}
		ls, _ := s.DediLists(ctx)
		if ls[0].Head != "h1" || ls[0].LastOutcome != "ok" {
			t.Fatalf("list %+v", ls[0])
		}
		// Unchanged head: nothing added again (a publisher removed meanwhile stays removed).
		_, _ = s.RemoveDediPublisher(ctx, "pub.test")
		if err := ingest.ReadLists(ctx, s, o.fetcher(nil), log); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DediPublisher(ctx, "pub.test"); err == nil {
			t.Fatal("an unchanged list added its publisher again")
		}
		if ls, _ = s.DediLists(ctx); ls[0].LastOutcome != "unchanged" {
			t.Fatalf("list %+v", ls[0])
		}
	})
}
