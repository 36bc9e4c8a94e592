package store_test

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/store"
)

// A store on a multi-host URL (a node that refuses, then the primary behind a proxy the test
// takes away): while the primary is lost, a write and a read of the primary fail with an
// UnavailableError and write nothing, the store can neither read nor write (it has no
// replicas); once the primary is back the same store writes again, without being reopened.
func TestLosingThePrimary(t *testing.T) {
	_, dbURL := storetest.OpenURL(t, store.DialectPostgres)
	via, p := testdb.LosingPostgres(t, dbURL)
	u, err := url.Parse(via)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "127.0.0.1:1," + u.Host
	q := u.Query()
	q.Set("target_session_attrs", "read-write")
	q.Set("connect_timeout", "2")
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	ctx := context.Background()
	s, err := store.Open(ctx, u.String(), slog.New(slog.DiscardHandler), store.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ns := acmePeople(t, s)
	add := func(name string) error {
		_, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, directory.RecordInput{RecordName: name, Details: map[string]any{"n": 1.0}})
		return err
	}
	if err := add("a"); err != nil {
		t.Fatal(err)
	}
	if r := s.Ready(ctx); !r.CanRead || !r.CanWrite {
		t.Fatalf("before: %+v", r)
	}

	p.Lose()
	err = add("b")
	var ue *store.UnavailableError
	if !errors.As(err, &ue) || !store.Unavailable(err) {
		t.Fatalf("a write without the primary: %v (%T), want an UnavailableError", err, err)
	}
	if _, err := s.GetRecord(ctx, ns.NamespaceID, "people", "a", directory.VersionSel{}); !store.Unavailable(err) {
		t.Fatalf("a read of the primary without it: %v, want an UnavailableError", err)
	}
	if _, err := s.GetRecord(store.ReplicaReads(ctx, 0), ns.NamespaceID, "people", "a", directory.VersionSel{}); !store.Unavailable(err) {
		t.Fatalf("a replica read without replicas nor primary: %v, want an UnavailableError", err)
	}
	if r := s.Ready(ctx); r.CanRead || r.CanWrite || r.Err == nil {
		t.Fatalf("without the primary: %+v", r)
	}
	// A refusal is not an unavailability.
	if store.Unavailable(directory.ErrConflict) || store.Unavailable(context.Canceled) {
		t.Fatal("a refusal reads as unavailable")
	}

	p.Restore()
	deadline := time.Now().Add(10 * time.Second)
	for err = add("c"); err != nil; err = add("c") {
		if !store.Unavailable(err) || time.Now().After(deadline) {
			t.Fatalf("after the primary came back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := s.Ready(ctx); !r.CanRead || !r.CanWrite {
		t.Fatalf("after: %+v", r)
	}
	if _, err := s.GetRecord(ctx, ns.NamespaceID, "people", "b", directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
		t.Fatalf("the write that failed left %v", err)
	}
	if !strings.Contains(u.String(), ",") {
		t.Fatal("not a multi-host URL")
	}
}
