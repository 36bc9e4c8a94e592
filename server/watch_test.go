package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	svc "github.com/svc-directory/svc"
	"github.com/svc-directory/svc/internal/testclock"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/webhook"
)

// receiver is the standardwebhooks receiver (webhook/testdata/receiver.mjs) on a port.
type receiver struct {
	cmd   *exec.Cmd
	lines chan map[string]any
}

// requireReceiverModules fails in CI and skips elsewhere when the npm dev tools are missing.
func requireReceiverModules(t *testing.T, root string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "node_modules", "standardwebhooks", "package.json")); err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("node_modules/standardwebhooks is missing: run `make node-tools` before the Go tests (make test does)")
	}
	t.Skip("SKIPPING: node_modules/standardwebhooks is missing (run `make node-tools`)")
}

func startReceiver(t *testing.T, root, secret string, port int) *receiver {
	t.Helper()
	cmd := exec.Command("node", filepath.Join(root, "webhook", "testdata", "receiver.mjs"))
	cmd.Env = append(os.Environ(), "SECRET="+secret, fmt.Sprintf("PORT=%d", port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	r := &receiver{cmd: cmd, lines: make(chan map[string]any, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				r.lines <- m
			}
		}
		close(r.lines)
	}()
	if l := r.next(t); l["listening"] != float64(port) {
		t.Fatalf("the receiver says %v", l)
	}
	return r
}

func (r *receiver) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			t.Fatal("the receiver stopped")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver said nothing for 10 s")
	}
	return nil
}

// freePort is a loopback port nothing listens on (the receiver starts on it later).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Watch subscriptions end to end: versions of a watched registry are delivered, signed, to a
// receiver built on the standardwebhooks npm package, which verifies them, including the
// deliveries made after it was down for a minute; a tampered delivery is refused; a receiver
// that stays down past the retry window leaves its subscription failing; drafts and
// unwatched entries send nothing.
func TestWebhooksReachAStandardWebhooksReceiver(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	requireReceiverModules(t, root)
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			h := newHarnessWith(t, dialect, func(c *server.Config) { c.WebhookInsecure = true })
			ctx := context.Background()
			key := h.key("owner@example.com")
			watcher := h.key("watcher@example.com")
			id := publish(t, h, key)
			reg := "/svc/" + id + "/employees"
			regID := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees", "", nil).data()["registry_id"].(string)
			h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"other","schema":{}}`)

			port, deadPort := freePort(t), freePort(t)
			sub := h.must(http.StatusCreated, "POST", "/svc/watch", watcher,
				fmt.Sprintf(`{"watch_type":"registry","target_id":%q,"webhook_url":"http://127.0.0.1:%d/hook"}`, regID, port)).data()
			secret, subID := sub["secret"].(string), sub["subscription_id"].(string)
			if !strings.HasPrefix(secret, "whsec_") || sub["state"] != "active" || sub["namespace_id"] != id {
				t.Fatalf("subscription: %v", sub)
			}
			dead := h.must(http.StatusCreated, "POST", "/svc/watch", watcher,
				fmt.Sprintf(`{"watch_type":"namespace","target_id":%q,"webhook_url":"http://127.0.0.1:%d/hook"}`, id, deadPort)).data()
			if list := h.must(http.StatusOK, "GET", "/svc/watch/subscriptions", watcher, nil); len(list.Body["data"].([]any)) != 2 {
				t.Fatalf("the watcher's subscriptions: %v", list.Body)
			}
			if list := h.must(http.StatusOK, "GET", "/svc/watch/subscriptions", key, nil); len(list.Body["data"].([]any)) != 0 {
				t.Fatalf("another user sees subscriptions: %v", list.Body)
			}

			// Three public versions of the watched registry's records, a draft, and a write
			// elsewhere in the namespace (which only the namespace subscription hears of).
			want := map[string]string{} // version -> digest
			for _, w := range []struct{ path, body string }{
				{reg + "/add-record", `{"record_name":"erin","details":{"email":"erin@example.com"}}`},
				{reg + "/alice/update-record", `{"description":"Alice B."}`},
				{reg + "/alice/suspend-record", ``},
			} {
				var body any
				if w.body != "" {
					body = w.body
				}
				r := h.do("POST", w.path, key, body)
				if r.Status/100 != 2 {
					t.Fatalf("%s: %d %s", w.path, r.Status, r.msg())
				}
				want[r.data()["version"].(string)] = r.data()["digest"].(string)
			}
			h.must(http.StatusCreated, "POST", reg+"/add-record", key, `{"record_name":"frank","details":{"email":"f@example.com"},"state":"draft"}`)
			h.must(http.StatusCreated, "POST", "/svc/"+id+"/other/add-record", key, `{"record_name":"x","details":{}}`)

			doc, err := openapi3.NewLoader().LoadFromData(svc.OpenAPI)
			if err != nil {
				t.Fatal(err)
			}
			payloadSchema := doc.Components.Schemas["WebhookPayload"].Value
			clock := testclock.New()
			sender := webhook.NewSender(h.store, webhook.Config{Now: clock.Now,
				Poster: webhook.NewPoster(webhook.PostOptions{Insecure: true, Timeout: 2 * time.Second})})
			// The receiver is down: every attempt fails and is retried later.
			st, err := sender.SendOnce(ctx)
			if err != nil || st.Retried != 3+4 || st.Delivered != 0 {
				t.Fatalf("first attempts: %+v, %v; want 7 retried (3 to the receiver, 4 to the dead one)", st, err)
			}
			clock.Advance(30 * time.Second)
			if st, err := sender.SendOnce(ctx); err != nil || st.Retried != 7 {
				t.Fatalf("second attempts: %+v, %v", st, err)
			}
			// A minute later the receiver is up: the events waiting for it are delivered.
			clock.Advance(31 * time.Second)
			rcv := startReceiver(t, root, secret, port)
			if st, err := sender.SendOnce(ctx); err != nil || st.Delivered != 3 || st.Retried != 4 {
				t.Fatalf("after the receiver came back: %+v, %v; want 3 delivered, 4 retried", st, err)
			}
			for range 3 {
				l := rcv.next(t)
				if l["verified"] != true {
					t.Fatalf("the receiver refused a delivery: %v", l)
				}
				p := l["payload"].(map[string]any)
				if err := payloadSchema.VisitJSON(p); err != nil {
					t.Fatalf("the delivery does not match the contract's WebhookPayload: %v\n%v", err, p)
				}
				d := p["data"].(map[string]any)
				if d["kind"] != "record" || d["registry_id"] != regID || want[d["version"].(string)] != d["digest"] ||
					p["subscription_id"] != subID || !strings.HasPrefix(p["type"].(string), "record.") || d["state"] == nil {
					t.Fatalf("delivery %v does not describe a version written", p)
				}
				// The receiver can fetch the version and finds the digest the webhook gave.
				rec := h.must(http.StatusOK, "GET", fmt.Sprintf("/svc/lookup/%s/employees/%s?version_id=%s", id,
					map[bool]string{true: "erin", false: "alice"}[d["version_count"] == 1.0], d["version"]), "", nil).data()
				if rec["digest"] != d["digest"] || rec["state"] != d["state"] {
					t.Fatalf("the version %v reads %v, %v", d["version"], rec["digest"], rec["state"])
				}
				delete(want, d["version"].(string))
			}
			if st, err := sender.SendOnce(ctx); err != nil || st != (webhook.SendStats{}) {
				t.Fatalf("a delivered event was sent again: %+v, %v", st, err)
			}
			hist := h.must(http.StatusOK, "GET", "/svc/watch/"+subID+"/deliveries", watcher, nil).Body["data"].([]any)
			if len(hist) != 9 || hist[0].(map[string]any)["delivered"] != true || hist[0].(map[string]any)["status_code"] != 204.0 ||
				hist[8].(map[string]any)["delivered"] != false || hist[8].(map[string]any)["status_code"] != 0.0 || hist[8].(map[string]any)["error"] == "" {
				t.Fatalf("delivery history: %v", hist)
			}

			// A delivery whose body was changed after signing is refused by the receiver.
			body := []byte(`{"type":"record.updated","data":{"digest":"forged"}}`)
			headers, err := webhook.Headers(secret, "msg_forged", time.Now(), []byte(`{"type":"record.updated"}`))
			if err != nil {
				t.Fatal(err)
			}
			if res, err := webhook.NewPoster(webhook.PostOptions{Insecure: true}).Post(ctx, fmt.Sprintf("http://127.0.0.1:%d/", port), headers, body); err == nil || res.StatusCode != 400 {
				t.Fatalf("a tampered delivery: %+v, %v", res, err)
			}
			if l := rcv.next(t); l["verified"] != false {
				t.Fatalf("the receiver accepted a tampered delivery: %v", l)
			}

			// The dead receiver never answers: past the 24 h window its subscription is failing.
			clock.Advance(25 * time.Hour)
			if st, err := sender.SendOnce(ctx); err != nil || st.GivenUp != 4 {
				t.Fatalf("past the window: %+v, %v", st, err)
			}
			for _, s := range h.must(http.StatusOK, "GET", "/svc/watch/subscriptions", watcher, nil).Body["data"].([]any) {
				s := s.(map[string]any)
				if wantState := map[bool]string{true: "failing", false: "active"}[s["subscription_id"] == dead["subscription_id"]]; s["state"] != wantState ||
					(wantState == "failing") == (s["failing_since"] == nil) {
					t.Fatalf("subscription %v after the window: %v, want %s", s["subscription_id"], s, wantState)
				}
			}

			if one := h.must(http.StatusOK, "GET", "/svc/watch/"+subID, watcher, nil).data(); one["state"] != "active" || one["secret"] != nil {
				t.Fatalf("one subscription: %v", one)
			}
			h.must(http.StatusNotFound, "GET", "/svc/watch/"+subID, key, nil)
			// Deleting a subscription removes it for its owner only.
			h.must(http.StatusNotFound, "DELETE", "/svc/watch/"+subID, key, nil)
			h.must(http.StatusOK, "DELETE", "/svc/watch/"+subID, watcher, nil)
			h.must(http.StatusNotFound, "GET", "/svc/watch/"+subID+"/deliveries", watcher, nil)
			h.must(http.StatusCreated, "POST", reg+"/add-record", key, `{"record_name":"gina","details":{"email":"g@example.com"}}`)
			if depth, _, err := h.store.WebhookQueue(ctx); err != nil || depth != 1 { // only the namespace subscription's
				t.Fatalf("outbox after the deletion: %d, %v", depth, err)
			}
		})
	}
}
