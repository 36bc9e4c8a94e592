package ownership_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/entries"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/internal/testclock"
	"github.com/svc-directory/svc/ownership"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/translog/stateindex"
)

// TestDomainBindingChangesAreLogged: every path by which a namespace gains or loses its
// verified domain queues exactly one domain leaf, with the domain, the namespace, the method
// and the store's time, in the transaction of the change: a self verification, a delegation
// accepted, remove-namespace-verification, the sweep's removal of the last source past its
// grace, and the deletion of the namespace. A second source for a held domain, a refused claim
// (a domain taken, a namespace holding another) and a removal of nothing log nothing. Once
// integrated, each leaf is at its index in the log, the monitor passes over the log, and the
// state index maps each to the domain's key.
func TestDomainBindingChangesAreLogged(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			clk := testclock.New()
			s, _ := storetest.OpenWith(t, d, store.Options{Now: clk.Now})
			testDomainBindingChanges(t, s, clk)
		})
	}
}

func testDomainBindingChanges(t *testing.T, s *store.Store, clk *testclock.Clock) {
	ctx := context.Background()
	v := ownership.New(ownership.Config{Store: s, Now: clk.Now, Interval: time.Hour, Grace: time.Minute})
	attester, requester, owner, requestID := acceptSetup(t, s, v)
	alice := store.Principal{UserID: owner.ID}
	dave, _ := s.EnsureUser(ctx, "dave@example.com")
	other, err := s.CreateNamespace(ctx, dave, "did:web:x:dave", directory.NamespaceInput{Name: "Dave"})
	if err != nil {
		t.Fatal(err)
	}
	for _, dom := range []string{"dave.test", "second.test"} {
		if err := s.AllowDomain(ctx, dom); err != nil {
			t.Fatal(err)
		}
	}
	var want []leaf.DomainLeaf // every domain leaf queued so far, in order
	expect := func(step, domain, ns, method, change string) {
		t.Helper()
		want = append(want, leaf.DomainLeaf{Domain: domain, NamespaceID: ns, Method: method, Change: change, Time: leaf.DomainTime(clk.Now())})
		checkQueued(t, s, step, want)
	}
	// acceptSetup self-verified the attester over DNS.
	expect("self verification", "attester.test", attester, store.MethodSelfDNS, leaf.DomainGained)

	clk.Advance(time.Second)
	if err := v.MarkSelfVerified(ctx, attester, "attester.test", store.MethodSelfHTTP, alice); err != nil {
		t.Fatal(err)
	}
	checkQueued(t, s, "a second source", want)
	queued, _ := s.LogQueueLength(ctx)
	if err := v.MarkSelfVerified(ctx, other.NamespaceID, "attester.test", store.MethodSelfDNS, store.Principal{UserID: dave.ID}); err == nil {
		t.Fatal("a domain held by another namespace was claimed")
	}
	if err := v.MarkSelfVerified(ctx, attester, "second.test", store.MethodSelfDNS, alice); err == nil {
		t.Fatal("a namespace claimed a second domain")
	}
	if n, _ := s.LogQueueLength(ctx); n != queued {
		t.Fatalf("refused claims queued %d leaves", n-queued)
	}
	checkQueued(t, s, "refused claims", want)

	clk.Advance(time.Second)
	if _, err := v.Accept(ctx, requestID, owner, "did:web:x:alice"); err != nil {
		t.Fatal(err)
	}
	expect("delegation accepted", "carol.test", requester, store.MethodDelegated, leaf.DomainGained)

	clk.Advance(time.Second)
	if r, err := v.Remove(ctx, attester, "attester.test", alice); err != nil || !r.DomainRemoved {
		t.Fatalf("removal: %+v %v", r, err)
	}
	// Two sources went at once: the loss names the oldest, the one that gained the domain.
	expect("remove-namespace-verification", "attester.test", attester, store.MethodSelfDNS, leaf.DomainLost)
	if _, err := v.Remove(ctx, attester, "attester.test", alice); err == nil {
		t.Fatal("a second removal of nothing succeeded")
	}
	checkQueued(t, s, "a removal of nothing", want)

	// The sweep: the attester is no longer self-verified, so carol's delegated source fails,
	// and past its grace the requester loses the domain.
	clk.Advance(2 * time.Hour)
	srcs, err := s.ClaimDueSources(ctx, clk.Now(), clk.Now().Add(time.Minute), 10)
	if err != nil || len(srcs) != 1 || srcs[0].Method != store.MethodDelegated {
		t.Fatalf("due sources: %+v %v", srcs, err)
	}
	if out, err := v.RecordCheck(ctx, srcs[0], false, "gone"); err != nil || out != ownership.OutcomeGrace {
		t.Fatalf("first failure: %s %v", out, err)
	}
	checkQueued(t, s, "a source in its grace", want)
	clk.Advance(2 * time.Minute)
	if out, err := v.RecordCheck(ctx, srcs[0], false, "gone"); err != nil || out != ownership.OutcomeDomainRemoved {
		t.Fatalf("past the grace: %s %v", out, err)
	}
	expect("the sweep", "carol.test", requester, store.MethodDelegated, leaf.DomainLost)

	// The namespace's deletion releases its domain; its restore does not take it back.
	clk.Advance(time.Second)
	if err := v.MarkSelfVerified(ctx, other.NamespaceID, "dave.test", store.MethodSelfHTTP, store.Principal{UserID: dave.ID}); err != nil {
		t.Fatal(err)
	}
	expect("self verification over HTTP", "dave.test", other.NamespaceID, store.MethodSelfHTTP, leaf.DomainGained)
	clk.Advance(time.Second)
	svc := entries.New(s, nil)
	if _, err := svc.DeleteNamespace(ctx, entries.Caller{UserID: dave.ID}, other.NamespaceID, "gone"); err != nil {
		t.Fatal(err)
	}
	expect("namespace deletion", "dave.test", other.NamespaceID, store.MethodSelfHTTP, leaf.DomainLost)
	if _, err := svc.RestoreNamespace(ctx, entries.Caller{UserID: dave.ID}, other.NamespaceID); err != nil {
		t.Fatal(err)
	}
	checkQueued(t, s, "namespace restore", want)

	checkIntegrated(t, s, want)
}

// checkQueued: the domain leaves queued (or integrated) so far are want, in order.
func checkQueued(t *testing.T, s *store.Store, step string, want []leaf.DomainLeaf) {
	t.Helper()
	ctx := context.Background()
	var got []leaf.DomainLeaf
	for _, dom := range []string{"attester.test", "carol.test", "dave.test", "second.test"} {
		changes, err := s.DomainChanges(ctx, dom)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			got = append(got, c.Leaf)
		}
	}
	queued, err := s.LogQueuedLeaves(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var inQueue []leaf.DomainLeaf
	for _, q := range queued {
		if leaf.KindOf(q.Leaf) == leaf.KindDomain {
			l, err := leaf.ParseDomain(q.Leaf)
			if err != nil {
				t.Fatal(err)
			}
			inQueue = append(inQueue, l)
		}
	}
	sortByTime := func(ls []leaf.DomainLeaf) {
		slices.SortStableFunc(ls, func(a, b leaf.DomainLeaf) int { return compareStrings(a.Time, b.Time) })
	}
	sortByTime(got)
	if !slices.Equal(got, want) || !slices.Equal(inQueue, want) {
		t.Fatalf("%s: domain changes\n %+v\nqueued\n %+v\nwant\n %+v", step, got, inQueue, want)
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkIntegrated integrates the queue and checks that each domain leaf is at its index, that
// the monitor passes over the whole log and reports the bindings, and that the state index
// names the domain's key for each.
func checkIntegrated(t *testing.T, s *store.Store, want []leaf.DomainLeaf) {
	t.Helper()
	ctx := context.Background()
	skey, _, err := translog.GenerateKey("localhost:8080/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := translog.NewIntegrator(s, lk, nil, nil).IntegrateOnce(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := s.LogState(ctx)
	if err != nil || st.Size == 0 {
		t.Fatalf("log state %+v %v", st, err)
	}
	if n, _ := s.LogQueueLength(ctx); n != 0 {
		t.Fatalf("%d leaves left in the queue", n)
	}
	var all [][]byte
	for n := int64(0); n*leaf.TileWidth < st.Size; n++ {
		data, err := s.LogTile(ctx, logstore.EntriesLevel, n)
		if err != nil {
			t.Fatal(err)
		}
		ls, err := leaf.SplitBundle(data, int(min(leaf.TileWidth, st.Size-n*leaf.TileWidth)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ls...)
	}
	var mon leaf.MonitorState
	changes, err := mon.Check(0, all)
	if err != nil {
		t.Fatalf("the monitor refused the log: %v", err)
	}
	var bindings []leaf.DomainLeaf
	for _, c := range changes {
		if b, ok := c.(leaf.BindingChange); ok {
			bindings = append(bindings, b.Leaf)
			if string(mustCanonical(t, b.Leaf)) != string(all[b.Index]) {
				t.Fatalf("binding change %v is not leaf %d", b, b.Index)
			}
		}
	}
	if !slices.Equal(bindings, want) {
		t.Fatalf("the monitor reported %+v, want %+v", bindings, want)
	}
	for _, w := range want {
		changes, err := s.DomainChanges(ctx, w.Domain)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			if c.Index < 0 || string(all[c.Index]) != c.Text {
				t.Fatalf("domain change %+v is not at its index", c)
			}
			keys, err := stateindex.KeysOf(all[c.Index])
			if err != nil || len(keys) != 1 || keys[0].Kind != stateindex.KindDomain || !slices.Equal(keys[0].Parts, []string{w.Domain}) {
				t.Fatalf("keys of %s: %+v %v", c.Text, keys, err)
			}
		}
	}
}

func mustCanonical(t *testing.T, l leaf.DomainLeaf) []byte {
	t.Helper()
	b, err := l.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
