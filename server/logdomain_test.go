package server_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
)

// TestLogEndpointsWithDomainLeaves: a domain leaf is served in its entry bundle like any leaf,
// and the endpoints that take a version answer a domain leaf's digest (its id in the queue: it
// has no version) with a 400, as not a version, whether it is queued or integrated; never 500.
func TestLogEndpointsWithDomainLeaves(t *testing.T) {
	for _, d := range []string{store.DialectSQLite, store.DialectPostgres} {
		t.Run(d, func(t *testing.T) {
			lk, vkey := newLogKey(t)
			h := newHarnessWith(t, d, func(c *server.Config) { c.LogVerifierKey = vkey })
			ctx := context.Background()
			key := h.key("owner@example.com")
			id := publish(t, h, key)
			if err := h.store.MarkVerified(ctx, id, "acme.example", store.MethodSelfDNS, time.Hour); err != nil {
				t.Fatal(err)
			}
			changes, err := h.store.DomainChanges(ctx, "acme.example")
			if err != nil || len(changes) != 1 || changes[0].Index != -1 {
				t.Fatalf("domain changes %+v %v", changes, err)
			}
			digest := proof.DigestBytes([]byte(changes[0].Text))
			h.must(400, "GET", "/svc/log/inclusion/"+digest, "", nil)
			if _, err := translog.NewIntegrator(h.store, lk, nil, nil).IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}
			changes, _ = h.store.DomainChanges(ctx, "acme.example")
			if len(changes) != 1 || changes[0].Index < 0 {
				t.Fatalf("domain changes after integration %+v", changes)
			}
			h.must(400, "GET", "/svc/log/inclusion/"+digest, "", nil)
			st, err := h.store.LogState(ctx)
			if err != nil || st.Size <= changes[0].Index || st.Size >= leaf.TileWidth {
				t.Fatalf("log state %+v %v", st, err)
			}
			code, _, body := h.raw("/svc/log/tile/entries/000.p/" + strconv.FormatInt(st.Size, 10))
			leaves, err := leaf.SplitBundle([]byte(body), int(st.Size))
			if code != 200 || err != nil || string(leaves[changes[0].Index]) != changes[0].Text {
				t.Fatalf("entry bundle: %d %v", code, err)
			}
			if !strings.Contains(changes[0].Text, `"kind":"domain"`) {
				t.Fatalf("leaf %s", changes[0].Text)
			}
		})
	}
}
