package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
)

// TestVerificationLogIsBounded: verify calls with bodies of about 1 MB (in the message, in digest
// fields, in the identifiers, in the proof, in fields the check ignores) add only a bounded
// number of bytes to the log; the log keeps what the check compared, shortened.
func TestVerificationLogIsBounded(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			st, dbURL := storetest.OpenURL(t, d)
			h := newHarnessOn(t, st, nil)
			db := rawDB(t, d, dbURL)
			owner, mallory := h.key("owner@example.com"), h.key("mallory@example.com")
			id := publish(t, h, owner)
			data := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/alice", "", nil).data()
			junk := strings.Repeat("ü", 500_000) // 1,000,000 bytes
			type attempt struct {
				name    string
				message string
				mutate  func(map[string]any)
				status  int
			}
			attempts := []attempt{
				{"message (the check passes)", junk, func(map[string]any) {}, 200},
				{"description", "m", func(m map[string]any) { m["description"] = junk }, 400},
				{"details", "m", func(m map[string]any) { m["details"] = map[string]any{"email": junk} }, 400},
				{"record_id", "m", func(m map[string]any) { m["record_id"] = junk }, 400},
				{"version", "m", func(m map[string]any) { m["version"] = junk }, 400},
				{"proof.digest", "m", func(m map[string]any) { m["proof"].(map[string]any)["digest"] = junk }, 400},
				{"proof.type", "m", func(m map[string]any) { m["proof"].(map[string]any)["type"] = junk }, 400},
				{"an unknown field (the check passes)", "m", func(m map[string]any) { m["x"] = junk }, 200},
			}
			const rounds = 4
			start := time.Now()
			for range rounds {
				for _, a := range attempts {
					bad := clone(data)
					a.mutate(bad)
					body := map[string]any{"record_lookup_response": map[string]any{"message": a.message, "data": bad}}
					if r := h.do("POST", "/svc/verify-record-lookup", mallory, body); r.Status != a.status {
						t.Fatalf("%s: %d %s", a.name, r.Status, r.Raw)
					}
				}
			}
			calls := rounds * len(attempts)
			rows, err := db.Query(`SELECT verified_id, reason, request FROM verification_logs`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			stored, n := 0, 0
			for rows.Next() {
				var vid, reason, req string
				if err := rows.Scan(&vid, &reason, &req); err != nil {
					t.Fatal(err)
				}
				stored += len(vid) + len(reason) + len(req)
				n++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d calls of ~1 MB in %s stored %d bytes in %d log rows (%d per row)", calls, time.Since(start).Round(time.Millisecond), stored, n, stored/max(n, 1))
			if n != calls {
				t.Fatalf("%d log rows for %d calls", n, calls)
			}
			if stored > calls*2048 {
				t.Fatalf("the log grew by %d bytes for %d calls (over 2 KiB per attempt)", stored, calls)
			}

			// What the namespace's members see of a stranger's attempt: the compared fields only.
			logs := h.must(200, "GET", "/svc/"+id+"/employees/alice/get-record-verification-logs?page_size=100", owner, nil).data()["logs"].([]any)
			var seen int
			for _, e := range logs {
				req := e.(map[string]any)["request"].(map[string]any)
				got := req["data"].(map[string]any)
				if got["record_id"] != data["record_id"] || got["version"] == nil || got["proof"] == nil {
					continue // the attempts that named another record or version are in no log of this record
				}
				seen++
				for _, f := range []string{"description", "details", "x", "meta"} {
					if _, ok := got[f]; ok {
						t.Fatalf("the log kept %s: %v", f, got)
					}
				}
				if msg, _ := req["message"].(string); len(msg) > 256 {
					t.Fatalf("the log kept a message of %d bytes", len(msg))
				}
			}
			if seen < rounds*(len(attempts)-2) {
				t.Fatalf("the owner sees %d of the attempts on the record", seen)
			}
		})
	}
}
