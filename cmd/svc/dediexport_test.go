package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// exportService is an in-process service holding a namespace to export.
type exportService struct {
	t   *testing.T
	url string
	key string
	ns  string
}

func (s *exportService) call(method, path, body string) map[string]any {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// newExportService starts the service on SQLite with a namespace of five registries: keys
// (live, with records in every state), revocations (the negative companion of keys), retired
// (inactive), private (not queryable by anyone) and tiny (one record).
func newExportService(t *testing.T) *exportService {
	st := storetest.Open(t, store.DialectSQLite)
	srv, err := server.NewServer(server.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Echo())
	t.Cleanup(hs.Close)
	key, _, err := st.CreateAPIKey(context.Background(), "pub@example.org")
	if err != nil {
		t.Fatal(err)
	}
	s := &exportService{t: t, url: hs.URL, key: key}
	created := s.call("POST", "/svc/create-namespace", `{"name":"Example Org","description":"Trust registries of Example Org"}`)
	s.ns = created["data"].(map[string]any)["namespace_id"].(string)
	ns := "/svc/" + s.ns
	s.call("POST", ns+"/create-registry", `{"registry_name":"keys","description":"signing keys","meta":{"display":"Keys"},"schema":{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}}`)
	s.call("POST", ns+"/keys/add-record", `{"record_name":"a","details":{"id":"a","n":1.5,"ü":"ß"}}`)
	s.call("POST", ns+"/keys/add-record", `{"record_name":"b","details":{"id":"b"},"description":"second","meta":{"k":[1,2]}}`)
	s.call("POST", ns+"/keys/add-record", `{"record_name":"c-draft","details":{"id":"c"},"state":"draft"}`)
	s.call("POST", ns+"/keys/add-record", `{"record_name":"d-suspended","details":{"id":"d"}}`)
	s.call("POST", ns+"/keys/d-suspended/suspend-record", ``)
	s.call("POST", ns+"/keys/add-record", `{"record_name":"e-expired","details":{"id":"e"},"valid_till":"`+time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)+`"}`)
	s.call("POST", ns+"/keys/add-record", `{"record_name":"f-revoked","details":{"id":"f"}}`)
	s.call("POST", ns+"/keys/f-revoked/revoke-record", ``)
	s.call("POST", ns+"/create-registry", `{"registry_name":"revocations","tag":"revoke"}`)
	s.call("POST", ns+"/revocations/add-record", `{"record_name":"f-revoked","details":{"credential_id":"f","status":"revoked"}}`)
	s.call("POST", ns+"/create-registry", `{"registry_name":"retired","schema":{"type":"object"}}`)
	s.call("POST", ns+"/retired/add-record", `{"record_name":"old","details":{}}`)
	s.call("POST", ns+"/retired/deactivate-registry", ``)
	s.call("POST", ns+"/create-registry", `{"registry_name":"private","schema":{"type":"object"},"query_allowed":false}`)
	s.call("POST", ns+"/private/add-record", `{"record_name":"hidden","details":{}}`)
	s.call("POST", ns+"/create-registry", `{"registry_name":"tiny","schema":{"type":"object"}}`)
	s.call("POST", ns+"/tiny/add-record", `{"record_name":"only","details":{"x":true}}`)
	return s
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parsedFile(t *testing.T, name string) *dedi.File {
	t.Helper()
	f, err := dedi.ParseFile(readFile(t, name), dedi.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDediExport(t *testing.T) {
	s := newExportService(t)
	dir := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "key.jwk")
	if code, _, errs := svc(t, "dedi", "key", "create", "--kid", "pub-2026", "--out", keyFile); code != 0 {
		t.Fatal(errs)
	}
	t1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	export := func(at time.Time, out string, extra ...string) string {
		t.Helper()
		var stdout, stderr strings.Builder
		args := append([]string{"--url", s.url, "--namespace", s.ns, "--key", keyFile, "--base-url", "https://example.org/dedi/",
			"--valid-for", "168h", "--out", out}, extra...)
		if err := exportWith(context.Background(), args, &stdout, &stderr, func() time.Time { return at }); err != nil {
			t.Fatalf("export: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		return stdout.String() + stderr.String()
	}
	log := export(t1, dir)
	if !strings.Contains(log, "registry private is not published") {
		t.Fatalf("the private registry: %s", log)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "dedi.*.json"))
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if want := []string{"dedi.keys.json", "dedi.retired.json", "dedi.revocations.json", "dedi.tiny.json"}; !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	manifestPath := filepath.Join(dir, ".well-known", "dedi.index.json")
	verify := func(file string, at time.Time) (int, string) {
		code, out, _ := svc(t, "dedi", "verify", filepath.Join(dir, file), "--manifest", manifestPath, "--at", at.Format(time.RFC3339))
		return code, strings.TrimSpace(out)
	}
	for file, want := range map[string]string{"dedi.keys.json": "authentic", "dedi.revocations.json": "authentic", "dedi.tiny.json": "authentic", "dedi.retired.json": "inactive"} {
		if code, out := verify(file, t1.Add(time.Hour)); out != want || (code == 0) != (want == "authentic") {
			t.Errorf("%s: %d %s, want %s", file, code, out, want)
		}
	}
	if _, out := verify("dedi.keys.json", t1.Add(169*time.Hour)); out != "stale" {
		t.Errorf("after --valid-for: %s", out)
	}
	keys := parsedFile(t, filepath.Join(dir, "dedi.keys.json"))
	var recs []string
	for _, r := range keys.Records {
		recs = append(recs, r.Name)
	}
	if !slices.Equal(recs, []string{"a", "b"}) {
		t.Fatalf("records %v: only the live ones belong in the file", recs)
	}
	if keys.Registry.Description != "signing keys" || keys.Registry.Meta["display"] != "Keys" || keys.Records[1].Description != "second" ||
		keys.Records[0].Details["ü"] != "ß" || keys.Namespace != "example.org" || keys.Publisher.Domain != "example.org" ||
		keys.SourceURL != "https://example.org/dedi/dedi.keys.json" || !keys.Registry.UpdatedAt.Equal(t1) || !keys.NextUpdate.Equal(t1.Add(168*time.Hour)) {
		t.Fatalf("keys file: %+v", keys)
	}
	m, err := dedi.ParseManifest(readFile(t, manifestPath), dedi.Limits{})
	if err != nil || m.Domain != "example.org" || m.Name != "Example Org" || m.Description != "Trust registries of Example Org" || len(m.Files) != 4 || !m.UpdatedAt.Equal(t1) {
		t.Fatalf("manifest %+v %v", m, err)
	}

	// Again with nothing changed: only next_update moves.
	t2 := t1.Add(24 * time.Hour)
	before := map[string]*dedi.File{}
	for _, n := range names {
		before[n] = parsedFile(t, filepath.Join(dir, n))
	}
	export(t2, dir)
	for _, n := range names {
		f := parsedFile(t, filepath.Join(dir, n))
		if !f.Registry.UpdatedAt.Equal(before[n].Registry.UpdatedAt) || !f.NextUpdate.Equal(t2.Add(168*time.Hour)) {
			t.Errorf("%s re-exported unchanged: updated_at %v (was %v), next_update %v", n, f.Registry.UpdatedAt, before[n].Registry.UpdatedAt, f.NextUpdate)
		}
		if !sameExceptNextUpdate(t, before[n].Document(), f.Document()) {
			t.Errorf("%s: more than next_update and the proof changed", n)
		}
	}
	m2, _ := dedi.ParseManifest(readFile(t, manifestPath), dedi.Limits{})
	if !m2.UpdatedAt.Equal(t1) || !m2.NextUpdate.Equal(t2.Add(168*time.Hour)) {
		t.Fatalf("manifest re-exported unchanged: updated_at %v, next_update %v", m2.UpdatedAt, m2.NextUpdate)
	}

	// A record changes: that registry's updated_at moves, and the manifest's; not the others'.
	s.call("POST", "/svc/"+s.ns+"/keys/b/update-record", `{"details":{"id":"b2"}}`)
	t3 := t2.Add(time.Hour)
	export(t3, dir)
	if f := parsedFile(t, filepath.Join(dir, "dedi.keys.json")); !f.Registry.UpdatedAt.Equal(t3) || f.Records[1].Details["id"] != "b2" {
		t.Fatalf("changed registry: updated_at %v", f.Registry.UpdatedAt)
	}
	if f := parsedFile(t, filepath.Join(dir, "dedi.revocations.json")); !f.Registry.UpdatedAt.Equal(t1) {
		t.Fatalf("unchanged registry: updated_at %v", f.Registry.UpdatedAt)
	}
	if m3, _ := dedi.ParseManifest(readFile(t, manifestPath), dedi.Limits{}); !m3.UpdatedAt.Equal(t3) {
		t.Fatalf("manifest after a change: updated_at %v", m3.UpdatedAt)
	}
	if code, out := verify("dedi.keys.json", t3.Add(time.Hour)); code != 0 {
		t.Fatalf("after the change: %s", out)
	}

	// --inline-max 1 embeds the one-record registry; 0 never inlines (above).
	inlineDir := t.TempDir()
	export(t1, inlineDir, "--inline-max", "1")
	mi, err := dedi.ParseManifest(readFile(t, filepath.Join(inlineDir, ".well-known", "dedi.index.json")), dedi.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tiny := mi.Entry("tiny")
	if tiny == nil || tiny.Inline == nil || mi.Entry("keys").Inline != nil {
		t.Fatalf("inline entries: %+v", mi.Files)
	}
	if _, err := os.Stat(filepath.Join(inlineDir, "dedi.tiny.json")); err == nil {
		t.Fatal("an inline registry was also written as a file")
	}
	res := dedi.Verify(context.Background(), dedi.Input{File: tiny.Inline, Manifest: readFile(t, filepath.Join(inlineDir, ".well-known", "dedi.index.json")),
		ManifestURL: dedi.WellKnownURL("example.org"), Now: t1.Add(time.Hour)})
	if res.Outcome != dedi.Authentic {
		t.Fatalf("inline file: %s %s", res.Outcome, res.Reason)
	}
}

// sameExceptNextUpdate compares two file documents but for next_update and the proof.
func sameExceptNextUpdate(t *testing.T, a, b map[string]any) bool {
	strip := func(d map[string]any) string {
		c := map[string]any{}
		for k, v := range d {
			if k != "next_update" && k != "proof" {
				c[k] = v
			}
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	return strip(a) == strip(b)
}

func TestDediExportBadInput(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "key.jwk")
	if code, pub, errs := svc(t, "dedi", "key", "create", "--kid", "k", "--out", keyFile); code != 0 {
		t.Fatal(errs)
	} else if err := os.WriteFile(keyFile+".pub", []byte(pub), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"dedi", "export", "--url", "http://127.0.0.1:1", "--namespace", "ns", "--key", keyFile, "--valid-for", "1h", "--out", t.TempDir()}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"http base URL", []string{"--base-url", "http://example.org/dedi/"}, 2},
		{"base URL with a query", []string{"--base-url", "https://example.org/dedi/?x=1"}, 2},
		{"bad domain", []string{"--base-url", "https://example.org/dedi/", "--domain", "not a domain"}, 2},
		{"an IP as domain", []string{"--base-url", "https://127.0.0.1/dedi/"}, 2},
		{"negative inline-max", []string{"--base-url", "https://example.org/dedi/", "--inline-max", "-1"}, 2},
		{"a public key to sign with", []string{"--base-url", "https://example.org/dedi/", "--key", keyFile + ".pub"}, 1},
		{"service down", []string{"--base-url", "https://example.org/dedi/"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, out, errs := svc(t, append(base, tc.args...)...); code != tc.code {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.code, out, errs)
			}
		})
	}
}

// TestDediExportTypeScript: the files export writes verify with the TypeScript SDK's
// verifyDediFile() too, an independent verifier (sdk/typescript/src/dedi.ts); it needs
// `make sdk-ts` first (missing or stale: a failure under CI=true, else a skip).
func TestDediExportTypeScript(t *testing.T) {
	sdk, err := filepath.Abs("../../sdk/typescript")
	if err != nil {
		t.Fatal(err)
	}
	problem := ""
	built, err := os.Stat(filepath.Join(sdk, "dist", "index.js"))
	if err != nil {
		problem = "sdk/typescript/dist is missing"
	} else if srcs, _ := filepath.Glob(filepath.Join(sdk, "src", "*.ts")); len(srcs) > 0 {
		for _, s := range srcs {
			if fi, err := os.Stat(s); err == nil && fi.ModTime().After(built.ModTime()) {
				problem = "sdk/typescript/dist is older than " + filepath.Base(s)
			}
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		problem = "node is not installed"
	}
	if problem != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: run `make sdk-ts` first", problem)
		}
		t.Skipf("SKIPPING: %s (run `make sdk-ts`)", problem)
	}
	s := newExportService(t)
	dir := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "key.jwk")
	if code, _, errs := svc(t, "dedi", "key", "create", "--kid", "pub-2026", "--out", keyFile); code != 0 {
		t.Fatal(errs)
	}
	var stdout, stderr strings.Builder
	args := []string{"--url", s.url, "--namespace", s.ns, "--key", keyFile, "--base-url", "https://example.org/dedi/", "--valid-for", "168h",
		"--out", dir, "--inline-max", "1"}
	if err := exportWith(context.Background(), args, &stdout, &stderr, time.Now); err != nil {
		t.Fatalf("export: %v %s", err, stderr.String())
	}
	const script = `
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
const [sdk, dir] = process.argv.slice(1);
const { verifyDediFile } = await import(join(sdk, "dist", "index.js"));
const manifestText = readFileSync(join(dir, ".well-known", "dedi.index.json"));
let digests;
try { digests = readFileSync(join(dir, "dedi.digests.json")); } catch {}
const out = {};
for (const name of readdirSync(dir).filter((n) => n.startsWith("dedi.") && n.endsWith(".json") && n !== "dedi.digests.json")) {
  out[name] = verifyDediFile(readFileSync(join(dir, name)), manifestText, { digests }).outcome;
}
for (const entry of JSON.parse(manifestText).files.filter((e) => e.url === undefined)) {
  out["inline " + entry.registry.name] = verifyDediFile(entry, manifestText, { digests }).outcome;
}
const tampered = readFileSync(join(dir, "dedi.keys.json"), "utf8").replace('"b"', '"B"');
out["tampered"] = verifyDediFile(tampered, manifestText, { digests }).outcome;
console.log(JSON.stringify(out));
`
	verify := func(dir string) map[string]string {
		t.Helper()
		cmd := exec.Command("node", "--input-type=module", "-e", script, sdk, dir)
		outb, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, outb)
		}
		var got map[string]string
		if err := json.Unmarshal(outb, &got); err != nil {
			t.Fatalf("node said %s", outb)
		}
		return got
	}
	// --inline-max 1: the registries of one record are in the manifest.
	want := map[string]string{"dedi.keys.json": "authentic", "inline revocations": "authentic", "inline retired": "inactive",
		"inline tiny": "authentic", "tampered": "bad_signature"}
	if got := verify(dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("the TypeScript verifier: %v, want %v", got, want)
	}
	// --digests: the files' digests in the signed digests document the manifest names.
	dir2 := t.TempDir()
	args = []string{"--url", s.url, "--namespace", s.ns, "--key", keyFile, "--base-url", "https://example.org/dedi/", "--valid-for", "168h",
		"--out", dir2, "--digests"}
	if err := exportWith(context.Background(), args, &stdout, &stderr, time.Now); err != nil {
		t.Fatalf("export --digests: %v %s", err, stderr.String())
	}
	want = map[string]string{"dedi.keys.json": "authentic", "dedi.revocations.json": "authentic", "dedi.retired.json": "inactive",
		"dedi.tiny.json": "authentic", "tampered": "bad_signature"}
	if got := verify(dir2); !reflect.DeepEqual(got, want) {
		t.Fatalf("the TypeScript verifier, --digests: %v, want %v", got, want)
	}
}
