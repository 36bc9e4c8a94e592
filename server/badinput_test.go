package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/svc-directory/svc/store"
)

// TestBadInputIs4xxAndWritesNothing sends every kind of client mistake to both dialects: each
// gets a 4xx with a clear message, and none leaves a trace in the database.
func TestBadInputIs4xxAndWritesNothing(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		id := publish(t, h, key)
		reg := "/svc/" + id + "/employees"
		// The lifecycle's refusals need a revoked record, an archived and a revoked registry.
		h.must(200, "POST", reg+"/bob/revoke-record", key, nil)
		for _, r := range []struct{ name, action string }{{"frozen", "archive"}, {"gone", "revoke"}} {
			h.must(201, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"`+r.name+`","schema":{}}`)
			h.must(200, "POST", "/svc/"+id+"/"+r.name+"/"+r.action+"-registry", key, nil)
		}
		frozen, gone := "/svc/"+id+"/frozen", "/svc/"+id+"/gone"
		// A watch on the namespace: a refused write that queued a webhook event would show.
		// Its URL is kept as the one URL rule normalises it (docs/webhooks.md).
		if w := h.must(201, "POST", "/svc/watch", key, `{"watch_type":"namespace","target_id":"`+id+`","webhook_url":"https://Hooks.Example.COM.:443/"}`).data(); w["webhook_url"] != "https://hooks.example.com/" {
			t.Fatalf("webhook_url %v; want it normalised", w["webhook_url"])
		}
		tests := []struct {
			name, method, path, body string
			status                   int
			msg                      string // substring of the message
		}{
			{"NUL escaped in a value", "POST", reg + "/add-record", `{"record_name":"n1","details":{"email":"a\u0000@example.com"}}`, 400, "NUL"},
			{"NUL in a nested key", "POST", reg + "/add-record", `{"record_name":"n2","details":{"email":"a@example.com","x":{"k\u0000":1}}}`, 400, "NUL"},
			{"NUL in meta", "POST", "/svc/create-namespace", `{"name":"x","meta":{"a":"\u0000"}}`, 400, "/meta/a"},
			{"lone high surrogate", "POST", reg + "/add-record", `{"record_name":"n3","details":{"email":"\ud800@example.com"}}`, 400, "surrogate"},
			{"lone low surrogate in description", "POST", "/svc/create-namespace", `{"name":"x","description":"\udc00"}`, 400, "surrogate"},
			{"duplicate key", "POST", "/svc/create-namespace", `{"name":"x","name":"y"}`, 400, "duplicate"},
			{"not JSON", "POST", "/svc/create-namespace", `{name:`, 400, "Invalid input"},
			{"too deep", "POST", reg + "/add-record", `{"record_name":"n4","details":{"email":"a@example.com","d":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}}`, 400, "deeper"},
			{"blank namespace name", "POST", "/svc/create-namespace", `{"name":"   "}`, 400, "name"},
			{"unknown field", "POST", "/svc/create-namespace", `{"name":"x","colour":"red"}`, 400, "colour"},
			{"negative ttl", "POST", "/svc/create-namespace", `{"name":"x","ttl":-1}`, 400, "ttl"},
			{"bad registry name", "POST", "/svc/" + id + "/create-registry", `{"registry_name":"has space","schema":{}}`, 400, "registry_name"},
			{"registry name too long", "POST", "/svc/" + id + "/create-registry", `{"registry_name":"` + strings.Repeat("a", 129) + `","schema":{}}`, 400, "registry_name"},
			{"custom registry without schema", "POST", "/svc/" + id + "/create-registry", `{"registry_name":"r1"}`, 400, "schema is missing"},
			{"invalid schema", "POST", "/svc/" + id + "/create-registry", `{"registry_name":"r2","schema":{"type":"strin"}}`, 400, "JSON Schema"},
			{"remote schema ref", "POST", "/svc/" + id + "/create-registry", `{"registry_name":"r3","schema":{"$ref":"https://example.com/s.json"}}`, 400, "JSON Schema"},
			{"schema with a standard tag", "POST", "/svc/" + id + "/create-registry", `{"registry_name":"r4","tag":"revoke","schema":{}}`, 400, "built-in"},
			{"unknown tag", "POST", "/svc/" + id + "/create-registry", `{"registry_name":"r5","tag":"other","schema":{}}`, 400, "tag"},
			{"taken registry name", "POST", "/svc/" + id + "/create-registry", `{"registry_name":"employees","schema":{}}`, 409, "already exists"},
			{"details against the schema", "POST", reg + "/add-record", `{"record_name":"n5","details":{"email":5}}`, 400, "/details/email"},
			{"details missing required", "POST", reg + "/add-record", `{"record_name":"n6","details":{}}`, 400, "/details"},
			{"bad record name", "POST", reg + "/add-record", `{"record_name":".dot","details":{"email":"a@example.com"}}`, 400, "record_name"},
			{"taken record name", "POST", reg + "/add-record", `{"record_name":"alice","details":{"email":"a@example.com"}}`, 409, "already exists"},
			{"bad state", "POST", reg + "/add-record", `{"record_name":"n7","details":{"email":"a@example.com"},"state":"gone"}`, 400, "state"},
			{"bad valid_till", "POST", reg + "/add-record", `{"record_name":"n8","details":{"email":"a@example.com"},"valid_till":"tomorrow"}`, 400, "valid_till"},
			{"batch with one bad record", "POST", reg + "/add-records", `{"records":[{"record_name":"b1","details":{"email":"a@example.com"}},{"record_name":"b2","details":{"email":1}}]}`, 400, "records[1] (b2)"},
			{"batch with a taken name", "POST", reg + "/add-records", `{"records":[{"record_name":"b3","details":{"email":"a@example.com"}},{"record_name":"bob","details":{"email":"a@example.com"}}]}`, 409, "bob"},
			{"batch with a name twice", "POST", reg + "/add-records", `{"records":[{"record_name":"b4","details":{"email":"a@example.com"}},{"record_name":"b4","details":{"email":"a@example.com"}}]}`, 409, "twice"},
			{"empty batch", "POST", reg + "/add-records", `{"records":[]}`, 400, "records"},
			{"empty update", "POST", reg + "/alice/update-record", `{}`, 400, "Invalid input"},
			{"bad If-Match", "POST", reg + "/alice/update-record", `{"description":"x"}`, 400, "If-Match"},
			{"bad If-Match on update-namespace", "POST", "/svc/" + id + "/update-namespace", `{"description":"x"}`, 400, "If-Match"},
			{"bad If-Match on update-registry", "POST", reg + "/update-registry", `{"description":"x"}`, 400, "If-Match"},
			{"bad If-Match on deactivate-registry", "POST", reg + "/deactivate-registry", ``, 400, "If-Match"},
			{"bad If-Match on activate-registry", "POST", reg + "/activate-registry", ``, 400, "If-Match"},
			{"bad If-Match on publish-record", "POST", reg + "/carol/publish-record", ``, 400, "If-Match"},
			{"update of an unknown record", "POST", reg + "/zed/update-record", `{"description":"x"}`, 404, "Record not found"},
			{"publish a live record", "POST", reg + "/alice/publish-record", ``, 409, "not a draft"},
			{"bad If-Match on suspend-record", "POST", reg + "/alice/suspend-record", ``, 400, "If-Match"},
			{"bad If-Match on reinstate-record", "POST", reg + "/alice/reinstate-record", ``, 400, "If-Match"},
			{"bad If-Match on revoke-record", "POST", reg + "/alice/revoke-record", ``, 400, "If-Match"},
			{"bad If-Match on archive-registry", "POST", reg + "/archive-registry", ``, 400, "If-Match"},
			{"bad If-Match on restore-registry", "POST", frozen + "/restore-registry", ``, 400, "If-Match"},
			{"bad If-Match on revoke-registry", "POST", reg + "/revoke-registry", ``, 400, "If-Match"},
			{"suspend a draft", "POST", reg + "/carol/suspend-record", ``, 409, "the record is draft, and only a record that is live can be suspended"},
			{"revoke a draft", "POST", reg + "/carol/revoke-record", ``, 409, "only a record that is live or suspended can be revoked"},
			{"reinstate a revoked record", "POST", reg + "/bob/reinstate-record", ``, 409, "revocation is final"},
			{"suspend a revoked record", "POST", reg + "/bob/suspend-record", ``, 409, "revocation is final"},
			{"update a revoked record", "POST", reg + "/bob/update-record", `{"description":"back"}`, 409, "revocation is final"},
			{"suspend an unknown record", "POST", reg + "/zed/suspend-record", ``, 404, "Record not found"},
			{"revoke a record of an unknown registry", "POST", "/svc/" + id + "/nope/alice/revoke-record", ``, 404, "Registry not found"},
			{"add to an archived registry", "POST", frozen + "/add-record", `{"record_name":"x","details":{}}`, 409, "archived"},
			{"update an archived registry", "POST", frozen + "/update-registry", `{"description":"x"}`, 409, "archived"},
			{"activate an archived registry", "POST", frozen + "/activate-registry", ``, 409, "the registry is archived, and only a registry that is inactive can be activated"},
			{"deactivate an archived registry", "POST", frozen + "/deactivate-registry", ``, 409, "only a registry that is live can be deactivated"},
			{"restore a revoked registry", "POST", gone + "/restore-registry", ``, 409, "revocation is final"},
			{"archive a revoked registry", "POST", gone + "/archive-registry", ``, 409, "revocation is final"},
			{"add to a revoked registry", "POST", gone + "/add-records", `{"records":[{"record_name":"x","details":{}}]}`, 409, "revoked"},
			{"update a revoked registry", "POST", gone + "/update-registry", `{"ttl":5}`, 409, "revoked"},
			{"restore a live registry's unknown sibling", "POST", "/svc/" + id + "/nope/restore-registry", ``, 404, "Registry not found"},
			{"unknown record state filter", "GET", "/svc/query/" + id + "/employees?state=gone", ``, 400, "state"},
			{"unknown search record_state", "GET", "/svc/search/" + id + "?record_state=inactive", ``, 400, "record_state"},
			{"unknown registry status filter", "GET", "/svc/query/" + id + "?status=live", ``, 400, "status"},
			{"unknown namespace", "GET", "/svc/lookup/did:svc:unknown", ``, 404, "Namespace not found"},
			{"unknown domain", "GET", "/svc/lookup/unknown.example.com", ``, 404, "Namespace not found"},
			{"unknown registry", "GET", "/svc/lookup/" + id + "/nope", ``, 404, "Registry not found"},
			{"unknown record", "GET", "/svc/lookup/" + id + "/employees/nope", ``, 404, "Record not found"},
			{"record of an unknown registry", "GET", "/svc/lookup/" + id + "/nope/alice", ``, 404, "Registry not found"},
			{"record of an unknown namespace", "GET", "/svc/lookup/did:svc:nope/employees/alice", ``, 404, "Namespace not found"},
			{"as_on not a date", "GET", "/svc/lookup/" + id + "?as_on=yesterday", ``, 400, "as_on"},
			{"as_on impossible date", "GET", "/svc/lookup/" + id + "?as_on=2026-02-30", ``, 400, "as_on"},
			{"version_id malformed", "GET", "/svc/lookup/" + id + "?version_id=12", ``, 400, "version_id"},
			{"name in path over 1,024 characters", "GET", "/svc/lookup/" + id + "/" + strings.Repeat("n", 1025), ``, 400, "registry_name"},
			{"bad profile id", "GET", "/0OIl/did.json", ``, 400, "profile_id"},
			{"unknown profile", "GET", "/4vJ9JU1bJJE96FWSJKvHsj/did.json", ``, 404, "Profile not found"},
			{"unknown path", "GET", "/svc/nothing/here/at/all/really", ``, 404, "Not found"},
			{"wrong method", "DELETE", "/svc/lookup/" + id, ``, 405, "Method not allowed"},
			{"details over 64 KiB", "POST", reg + "/add-record", `{"record_name":"big","details":{"email":"a@example.com","x":"` + strings.Repeat("a", 70000) + `"}}`, 400, "64 KiB"},
			{"updated details over 64 KiB", "POST", reg + "/alice/update-record", `{"details":{"email":"a@example.com","x":"` + strings.Repeat("a", 70000) + `"}}`, 400, "64 KiB"},
			{"NUL in a path parameter", "GET", "/svc/lookup/did:svc:%00x", ``, 400, "NUL"},
			{"NUL in a query filter", "GET", "/svc/query/" + id + "/employees?name=ab%00c", ``, 400, "NUL"},
			{"NUL in a search value", "GET", "/svc/search/" + id + "?email=%00", ``, 400, "NUL"},
			{"invalid UTF-8 in a search value", "GET", "/svc/search/" + id + "?record_name=%FFab", ``, 400, "UTF-8"},
			{"registry delegate: not an email", "POST", reg + "/add-registry-delegate", `{"email":"not an email"}`, 400, "email"},
			{"registry delegate: NUL in the email", "POST", reg + "/add-registry-delegate", `{"email":"a\u0000@example.com"}`, 400, "NUL"},
			{"registry delegate: blank email", "POST", reg + "/add-registry-delegate", `{"email":"  "}`, 400, "email"},
			{"registry delegate: unknown field", "POST", reg + "/add-registry-delegate", `{"email":"d@example.com","role":"admin"}`, 400, "role"},
			{"registry delegate: the owner", "POST", reg + "/add-registry-delegate", `{"email":"owner@example.com"}`, 409, "owner"},
			{"registry delegate: unknown registry", "POST", "/svc/" + id + "/nope/add-registry-delegate", `{"email":"new@example.com"}`, 404, "Registry not found"},
			{"registry delegate: remove a non-delegate", "POST", reg + "/remove-registry-delegate", `{"email":"nobody@example.com"}`, 404, "delegate"},
			{"watch: plain http", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"http://hooks.example.com/"}`, 400, "webhook_url"},
			{"watch: private address", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://192.168.0.1/"}`, 400, "not a public address"},
			{"watch: metadata address", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://169.254.169.254/"}`, 400, "webhook_url"},
			{"watch: credentials in the URL", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://a:b@hooks.example.com/"}`, 400, "credentials"},
			{"watch: NUL in the URL", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://hooks.example.com/\u0000"}`, 400, "NUL"},
			{"watch: unknown watch_type", "POST", "/svc/watch", `{"watch_type":"user","target_id":"` + id + `","webhook_url":"https://hooks.example.com/"}`, 400, "watch_type"},
			{"watch: missing target", "POST", "/svc/watch", `{"watch_type":"record","webhook_url":"https://hooks.example.com/"}`, 400, "target_id"},
			{"watch: unknown target", "POST", "/svc/watch", `{"watch_type":"record","target_id":"nope","webhook_url":"https://hooks.example.com/"}`, 404, "no record with id nope"},
			{"watch: https://LOCALHOST/", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://LOCALHOST/"}`, 400, "not a public host"},
			{"watch: https://localhost./", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://localhost./"}`, 400, "not a public host"},
			{"watch: https://127.1/", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://127.1/"}`, 400, "not a public address"},
			{"watch: https://2130706433/", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://2130706433/"}`, 400, "not a public address"},
			{"watch: https://0x7f.0.0.1/", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://0x7f.0.0.1/"}`, 400, "not a public address"},
			{"watch: https://[fd00:ec2::254%25lo]/", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://[fd00:ec2::254%25lo]/"}`, 400, "zone"},
			{"watch: https://[fc00::1%25lo]/", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://[fc00::1%25lo]/"}`, 400, "zone"},
			{"watch: https://[64:ff9b::a9fe:a9fe%25eth0]/", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://[64:ff9b::a9fe:a9fe%25eth0]/"}`, 400, "zone"},
			{"watch: https://[2002:7f00:1::1%25lo]/", "POST", "/svc/watch", `{"watch_type":"namespace","target_id":"` + id + `","webhook_url":"https://[2002:7f00:1::1%25lo]/"}`, 400, "zone"},
			{"watch: NUL in the target", "POST", "/svc/watch", `{"watch_type":"registry","target_id":"a\u0000b","webhook_url":"https://hooks.example.com/"}`, 400, "NUL"},
			{"watch: delete an unknown subscription", "DELETE", "/svc/watch/nope", ``, 404, "Subscription not found"},
			{"watch: deliveries of an unknown subscription", "GET", "/svc/watch/nope/deliveries", ``, 404, "Subscription not found"},
			{"body too large", "POST", "/svc/create-namespace", `{"name":"x","description":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "too large"},
		}
		before := countRows(t, h)
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				var body any
				if tc.body != "" {
					body = tc.body
				}
				headers := []string{}
				if strings.HasPrefix(tc.name, "bad If-Match") {
					headers = []string{"If-Match", "version-1"}
				}
				r := h.do(tc.method, tc.path, key, body, headers...)
				if r.Status != tc.status || !strings.Contains(r.msg(), tc.msg) {
					t.Fatalf("status %d message %q; want %d containing %q", r.Status, r.msg(), tc.status, tc.msg)
				}
			})
		}
		if after := countRows(t, h); after != before {
			t.Fatalf("refused requests wrote to the database: %v before, %v after", before, after)
		}
	})
}

// countRows counts the entries and versions the harness's store holds.
func countRows(t *testing.T, h *harness) store.Counts {
	t.Helper()
	c, err := h.store.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}
