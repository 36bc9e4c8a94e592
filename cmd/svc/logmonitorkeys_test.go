package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/store"
)

// TestLogMonitorReportsKeyChanges: a monitor run over a log holding two key changes of one DeDi
// publisher (its first key set, then a rotation) prints both, with the key ids before and after
// and the leaf index; the next run, after one more change, prints only that one, from the key
// ids its state kept.
func TestLogMonitorReportsKeyChanges(t *testing.T) {
	ctx := context.Background()
	l := newLogService(t, "example.test/svc/log")
	l.populate("n")
	if _, err := l.st.AddDediPublisher(ctx, "pub.test"); err != nil {
		t.Fatal(err)
	}
	k1, _ := dedi.GenerateKey("key-1")
	k2, _ := dedi.GenerateKey("key-2")
	at := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	accept := func(keys ...dedi.PrivateKey) {
		t.Helper()
		at = at.Add(time.Hour)
		m := &dedi.Manifest{Domain: "pub.test", UpdatedAt: at}
		for _, k := range keys {
			m.Keys = append(m.Keys, k.Public())
		}
		kl, err := m.KeysLeaf()
		if err != nil {
			t.Fatal(err)
		}
		if err := l.st.RecordDediCrawl(ctx, "pub.test", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true,
			NextCrawl: at.Add(time.Hour), Keys: &kl}); err != nil {
			t.Fatal(err)
		}
	}
	accept(k1)
	accept(k1) // unchanged: not logged
	accept(k1, k2)
	l.integrate()
	state := filepath.Join(t.TempDir(), "monitor.json")
	code, out, errs := svc(t, "log", "monitor", "--url", l.srv.URL, "--log-key", l.vkey, "--state", state)
	want := []string{
		"OK: log example.test/svc/log size 5 (5 new leaves); 0 state roots checked by rebuilding the index from leaf 0 (0 new)",
		"key change of pub.test at leaf 3: [] -> [key-1] (manifest updated_at 2026-09-01T13:00:00.000Z)",
		"key change of pub.test at leaf 4: [key-1] -> [key-1 key-2] (manifest updated_at 2026-09-01T15:00:00.000Z)",
	}
	if code != 0 || out != strings.Join(want, "\n")+"\n" {
		t.Fatalf("exit %d\n%s\n%s\nwant\n%s", code, out, errs, strings.Join(want, "\n"))
	}
	accept(k2)
	l.integrate()
	code, out, errs = svc(t, "log", "monitor", "--url", l.srv.URL, "--log-key", l.vkey, "--state", state)
	if wantLast := fmt.Sprintf("OK: log example.test/svc/log size 6 (1 new leaves); 0 state roots checked by rebuilding the index from leaf 0 (0 new)\n%s\n",
		"key change of pub.test at leaf 5: [key-1 key-2] -> [key-2] (manifest updated_at 2026-09-01T16:00:00.000Z)"); code != 0 || out != wantLast {
		t.Fatalf("second run: exit %d %q %q", code, out, errs)
	}
}
