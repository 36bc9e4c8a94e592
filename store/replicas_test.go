package store_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// A consistency token reads back as the WAL position it was written from; anything else is
// ErrInvalid.
func TestConsistencyTokenText(t *testing.T) {
	for _, s := range []string{"0/0", "16/B374D848", "FFFFFFFF/FFFFFFFF", "0/1"} {
		tok, err := store.ParseConsistencyToken(s)
		if err != nil || tok.String() != s {
			t.Fatalf("%q: %v %v", s, tok, err)
		}
	}
	if tok, err := store.ParseConsistencyToken("16/b374d848"); err != nil || tok.String() != "16/B374D848" {
		t.Fatalf("lower case: %v %v", tok, err)
	}
	if a, _ := store.ParseConsistencyToken("1/0"); a <= store.ConsistencyToken(0xFFFFFFFF) {
		t.Fatalf("1/0 (%d) does not order after 0/FFFFFFFF", a)
	}
	for _, s := range []string{"", "/", "16", "16/", "/1", "1/2/3", "g/1", "123456789/1", "1/-1", " 1/1", "1/1 ", "+1/1"} {
		if _, err := store.ParseConsistencyToken(s); !errors.Is(err, directory.ErrInvalid) {
			t.Fatalf("%q: %v, want ErrInvalid", s, err)
		}
	}
}

// Every committed write moves the Postgres token forward; SQLite has none.
func TestConsistencyTokenFollowsWrites(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		before, err := s.ConsistencyToken(ctx)
		if err != nil {
			t.Fatal(err)
		}
		acmePeople(t, s)
		after, err := s.ConsistencyToken(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Dialect() == store.DialectSQLite {
			if before != 0 || after != 0 {
				t.Fatalf("SQLite tokens %v %v, want none", before, after)
			}
			return
		}
		if after <= before {
			t.Fatalf("a write left the token at %v (was %v)", after, before)
		}
	})
}

// Replicas that are not streaming replicas (the primary itself: not in recovery) or that do
// not answer (a closed port) are never read from: a request marked for replica reads, with
// or without a token, reads from the primary and fails nothing, and the store reports both
// replicas down. Reads that fall back are counted.
func TestReplicaReadsWithoutAUsableReplica(t *testing.T) {
	_, url := storetest.OpenURL(t, store.DialectPostgres)
	metrics := store.NewReplicaMetrics()
	ctx := context.Background()
	s, err := store.Open(ctx, url, slog.New(slog.DiscardHandler), store.Options{MaxOpenConns: 4, ReplicaMetrics: metrics,
		ReplicaURLs: []string{url, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ns := acmePeople(t, s)
	if _, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, directory.RecordInput{RecordName: "a", Details: map[string]any{"n": 1.0}}); err != nil {
		t.Fatal(err)
	}
	tok, err := s.ConsistencyToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range []store.ConsistencyToken{0, tok} {
		rctx := store.ReplicaReads(ctx, tk)
		rec, err := s.GetRecord(rctx, ns.NamespaceID, "people", "a", directory.VersionSel{})
		if err != nil || rec.RecordName != "a" {
			t.Fatalf("token %v: %+v %v", tk, rec, err)
		}
		if page, err := s.Search(rctx, ns.NamespaceID, store.SearchOptions{Fields: []store.FieldFilter{{Path: "n", Value: "1"}}, Page: 1, Size: 10}); err != nil || len(page.Records) != 1 {
			t.Fatalf("token %v: search %+v %v", tk, page, err)
		}
	}
	time.Sleep(700 * time.Millisecond) // a few probes: neither passes
	for _, r := range s.Replicas() {
		if r.Up || r.Usable {
			t.Fatalf("replica %s is usable: %+v", r.Name, r)
		}
	}
	if len(s.Replicas()) != 2 {
		t.Fatalf("replicas %+v", s.Replicas())
	}
}

// Replicas need a Postgres primary, and replica URLs must be Postgres ones.
func TestReplicaOptionsRefused(t *testing.T) {
	ctx := context.Background()
	if _, err := store.Open(ctx, storetest.URL(t, store.DialectSQLite), nil, store.Options{ReplicaURLs: []string{"postgres://x@127.0.0.1:1/y"}}); err == nil {
		t.Fatal("SQLite with replicas opened")
	}
	_, url := storetest.OpenURL(t, store.DialectPostgres)
	if _, err := store.Open(ctx, url, nil, store.Options{ReplicaURLs: []string{"sqlite://x.db"}}); err == nil {
		t.Fatal("a SQLite replica URL was accepted")
	}
}
