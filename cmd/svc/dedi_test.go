package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/domainverify/dnstest"
)

const vectors = "../../dedi/testdata/"

func TestDediVerifyVectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"valid", []string{vectors + "valid-file.json", "--manifest", vectors + "valid-manifest.json", "--at", "2026-08-22T06:30:00Z"}, 0, "authentic"},
		{"flags first", []string{"--at", "2026-08-22T06:30:00Z", "--manifest", vectors + "valid-manifest.json", vectors + "valid-file.json"}, 0, "authentic"},
		{"tampered", []string{vectors + "tampered-file.json", "--manifest", vectors + "valid-manifest.json", "--at", "2026-08-22T06:30:00Z"}, 1, "bad_signature"},
		{"removed key", []string{vectors + "valid-file.json", "--manifest", vectors + "removed-key-manifest.json", "--at", "2026-08-22T06:30:00Z"}, 1, "not_authenticated"},
		{"now: past next_update", []string{vectors + "valid-file.json", "--manifest", vectors + "valid-manifest.json"}, 1, "stale"},
		{"the manifest as the file", []string{vectors + "valid-manifest.json", "--manifest", vectors + "valid-manifest.json", "--at", "2026-08-22T06:30:00Z"}, 1, "invalid"},
		{"no manifest", []string{vectors + "valid-file.json"}, 2, ""},
		{"both", []string{vectors + "valid-file.json", "--manifest", vectors + "valid-manifest.json", "--fetch"}, 2, ""},
		{"bad --at", []string{vectors + "valid-file.json", "--manifest", vectors + "valid-manifest.json", "--at", "tomorrow"}, 2, ""},
		{"two files", []string{vectors + "valid-file.json", vectors + "valid-file.json", "--manifest", vectors + "valid-manifest.json"}, 2, ""},
		{"missing file", []string{"/nonexistent.json", "--manifest", vectors + "valid-manifest.json"}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := svc(t, append([]string{"dedi", "verify"}, tc.args...)...)
			if code != tc.code || strings.TrimSpace(out) != tc.out {
				t.Fatalf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tc.code, out, tc.out, errs)
			}
		})
	}
}

// dediKey is a fixed signing key named kid.
func dediKey(kid string) dedi.PrivateKey {
	seed := sha256.Sum256([]byte(kid))
	return dedi.KeyFromSeed(kid, seed[:])
}

// dediPublisher is a publisher at pub.test with one registry "keys", signed by fileKey.
type dediPublisher struct {
	fileKey, manifestKey dedi.PrivateKey
	manifestKeys         []dedi.Key
	file                 dedi.File
	updated, next        time.Time
}

func newDediPublisher(t testing.TB) *dediPublisher {
	k := dediKey("key-1")
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	return &dediPublisher{fileKey: k, manifestKey: k, manifestKeys: []dedi.Key{k.Public()},
		updated: at("2026-08-20T00:00:00Z"), next: at("2026-09-01T00:00:00Z"),
		file: dedi.File{SourceURL: "https://pub.test/dedi/dedi.keys.json", NextUpdate: at("2026-09-01T00:00:00Z"),
			Publisher: dedi.Publisher{Domain: "pub.test"}, Namespace: "pub.test",
			Registry: dedi.Registry{Name: "keys", State: "live", UpdatedAt: at("2026-08-20T00:00:00Z"), Schema: map[string]any{"type": "object"}},
			Records:  []dedi.Record{{Name: "a", Details: map[string]any{"id": "a"}}}}}
}

// write signs the file and its manifest into dir and returns their paths and bytes.
func (p *dediPublisher) write(t testing.TB, dir string) (string, string, []byte, []byte) {
	t.Helper()
	file, err := dedi.SignFile(&p.file, p.fileKey)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := dedi.SignManifest(&dedi.Manifest{Domain: "pub.test", Keys: p.manifestKeys, UpdatedAt: p.updated, NextUpdate: p.next,
		Files: []dedi.Entry{{Registry: "keys", URL: p.file.SourceURL, Digest: dedi.Digest(file)}}}, p.manifestKey)
	if err != nil {
		t.Fatal(err)
	}
	fp, mp := filepath.Join(dir, "file.json"), filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(fp, file, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mp, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	return fp, mp, file, manifest
}

// servePublisher serves pub.test's manifest and file over plain HTTP under the fetch test
// switch, pub.test resolved by a test DNS server; down makes every answer a 503.
func servePublisher(t *testing.T) (files map[string][]byte, down *atomic.Bool) {
	files = map[string][]byte{}
	down = &atomic.Bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		switch {
		case down.Load():
			http.Error(w, "down", http.StatusServiceUnavailable)
		case !ok:
			http.NotFound(w, r)
		default:
			_, _ = w.Write(b)
		}
	}))
	t.Cleanup(srv.Close)
	d := dnstest.Start(t)
	d.SetAddrs("pub.test", "127.0.0.1")
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	t.Setenv("SVC_DNS_SERVER", d.Addr)
	t.Setenv("SVC_VERIFY_INSECURE", "true")
	t.Setenv("SVC_VERIFY_HTTP_PORT", port)
	return files, down
}

// TestDediVerifyLifecycle runs every case of the published lifecycle.json through
// svc dedi verify, at the vectors' evaluation time; what was accepted before comes from a
// first run with the same --state.
func TestDediVerifyLifecycle(t *testing.T) {
	raw, err := os.ReadFile(vectors + "lifecycle.json")
	if err != nil {
		t.Fatal(err)
	}
	var vec struct {
		EvaluationTime string `json:"evaluation_time"`
		Cases          []struct {
			ID                 string   `json:"id"`
			Kind               string   `json:"kind"`
			NextUpdate         string   `json:"next_update"`
			RegistryState      string   `json:"registry_state"`
			ObservedUpdatedAt  string   `json:"observed_updated_at"`
			CandidateUpdatedAt string   `json:"candidate_updated_at"`
			PreviousKeys       []string `json:"previous_keys"`
			CurrentKeys        []string `json:"current_keys"`
			FileKey            string   `json:"file_key"`
			CachedNextUpdate   string   `json:"cached_next_update"`
			Expected           string   `json:"expected"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &vec); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		code int
		word string
	}{
		"accept": {0, "authentic"}, "accept-cached": {0, "authentic"}, "reject-stale": {1, "stale"},
		"reject-inactive": {1, "inactive"}, "reject-rollback": {1, "rollback"}, "reject-removed-key": {1, "not_authenticated"},
		"reject-unavailable-authority": {1, "unavailable_authority"},
	}
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	if len(vec.Cases) != 11 {
		t.Fatalf("%d cases", len(vec.Cases))
	}
	for _, c := range vec.Cases {
		t.Run(c.ID, func(t *testing.T) {
			w, ok := want[c.Expected]
			if !ok {
				t.Fatalf("unknown expectation %q", c.Expected)
			}
			dir := t.TempDir()
			state := filepath.Join(dir, "state.json")
			p := newDediPublisher(t)
			args := []string{"--at", vec.EvaluationTime, "--state", state}
			accept := func(q *dediPublisher, extra ...string) {
				t.Helper()
				fp, mp, _, _ := q.write(t, t.TempDir())
				a := append([]string{"dedi", "verify", fp, "--manifest", mp, "--state", state}, extra...)
				if code, out, errs := svc(t, a...); code != 0 {
					t.Fatalf("accepting the earlier copy: %d %s %s", code, out, errs)
				}
			}
			switch c.Kind {
			case "manifest":
				p.next = at(c.NextUpdate)
			case "file":
				p.file.NextUpdate, p.file.Registry.State = at(c.NextUpdate), c.RegistryState
			case "manifest-sequence":
				old := newDediPublisher(t)
				old.updated = at(c.ObservedUpdatedAt)
				accept(old, "--at", vec.EvaluationTime)
				p.updated = at(c.CandidateUpdatedAt)
			case "key-state":
				prev := newDediPublisher(t)
				prev.fileKey = dediKey(c.FileKey)
				prev.manifestKey, prev.manifestKeys = dediKey(c.PreviousKeys[0]), nil
				for _, k := range c.PreviousKeys {
					prev.manifestKeys = append(prev.manifestKeys, dediKey(k).Public())
				}
				accept(prev, "--at", vec.EvaluationTime)
				p.fileKey = dediKey(c.FileKey)
				p.manifestKey, p.manifestKeys = dediKey(c.CurrentKeys[len(c.CurrentKeys)-1]), nil
				for _, k := range c.CurrentKeys {
					p.manifestKeys = append(p.manifestKeys, dediKey(k).Public())
				}
			case "refresh":
				files, down := servePublisher(t)
				p.next = at(c.CachedNextUpdate)
				_, _, file, manifest := p.write(t, dir)
				files["/dedi/dedi.keys.json"], files["/.well-known/dedi.index.json"] = file, manifest
				fp := filepath.Join(dir, "file.json")
				if code, out, errs := svc(t, "dedi", "verify", fp, "--fetch", "--state", state, "--at", "2026-08-20T12:00:00Z"); code != 0 {
					t.Fatalf("the first fetch: %d %s %s", code, out, errs)
				}
				down.Store(true) // the refresh fails
				code, out, errs := svc(t, append([]string{"dedi", "verify", fp, "--fetch"}, args...)...)
				if code != w.code || strings.TrimSpace(out) != w.word {
					t.Fatalf("exit %d, %q (%s); want %d %s", code, out, errs, w.code, w.word)
				}
				return
			default:
				t.Fatalf("unknown kind %q", c.Kind)
			}
			fp, mp, _, _ := p.write(t, dir)
			code, out, errs := svc(t, append([]string{"dedi", "verify", fp, "--manifest", mp}, args...)...)
			if code != w.code || strings.TrimSpace(out) != w.word {
				t.Fatalf("exit %d, %q (%s); want %d %s", code, out, errs, w.code, w.word)
			}
		})
	}
}

func TestDediVerifyFetch(t *testing.T) {
	files, _ := servePublisher(t)
	p := newDediPublisher(t)
	dir := t.TempDir()
	fp, _, file, manifest := p.write(t, dir)
	files["/dedi/dedi.keys.json"], files["/.well-known/dedi.index.json"] = file, manifest
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"a saved file", []string{fp, "--fetch", "--at", "2026-08-22T00:00:00Z"}, 0, "authentic"},
		{"a file URL", []string{"https://pub.test/dedi/dedi.keys.json", "--fetch", "--at", "2026-08-22T00:00:00Z"}, 0, "authentic"},
		{"a missing file URL", []string{"https://pub.test/dedi/none.json", "--fetch", "--at", "2026-08-22T00:00:00Z"}, 1, "invalid"},
		{"stale", []string{fp, "--fetch", "--at", "2026-09-02T00:00:00Z"}, 1, "stale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := svc(t, append([]string{"dedi", "verify"}, tc.args...)...)
			if code != tc.code || strings.TrimSpace(out) != tc.out {
				t.Fatalf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tc.code, out, tc.out, errs)
			}
		})
	}
	// The manifest lists the file by the digest of other bytes.
	files["/.well-known/dedi.index.json"] = []byte(strings.Replace(string(manifest), dedi.Digest(file), dedi.Digest(append(file, ' ')), 1))
	if code, out, _ := svc(t, "dedi", "verify", fp, "--fetch", "--at", "2026-08-22T00:00:00Z"); code != 1 || strings.TrimSpace(out) != "not_authenticated" {
		t.Fatalf("a manifest changed after signing: %d %q", code, out)
	}
	p.updated = p.updated.Add(time.Hour)
	_, _, _, m2 := p.write(t, t.TempDir())
	files["/.well-known/dedi.index.json"] = m2
	_ = os.WriteFile(fp, append(file, '\n'), 0o644) // the same document in other bytes than those listed
	if code, out, _ := svc(t, "dedi", "verify", fp, "--fetch", "--at", "2026-08-22T00:00:00Z"); code != 1 || strings.TrimSpace(out) != "digest_mismatch" {
		t.Fatalf("digest: %d %q", code, out)
	}
}

func TestDediKeyCreate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "k.jwk")
	code, pub, errs := svc(t, "dedi", "key", "create", "--kid", "k-2026", "--out", out)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(out)
	priv, err := dedi.ParsePrivateJWK(b)
	if err != nil {
		t.Fatal(err)
	}
	k, err := dedi.ParsePublicJWK([]byte(pub))
	if err != nil || !k.Same(priv.Public()) || k.Kid != "k-2026" || strings.Contains(pub, `"d"`) {
		t.Fatalf("public JWK %q: %v", pub, err)
	}
	if code, _, _ := svc(t, "dedi", "key", "create", "--kid", "k", "--out", out); code != 1 {
		t.Fatalf("an existing file was overwritten (exit %d)", code)
	}
	if code, _, _ := svc(t, "dedi", "key", "create", "--out", filepath.Join(t.TempDir(), "x")); code != 2 {
		t.Fatalf("no kid: exit %d", code)
	}
	if code, _, _ := svc(t, "dedi"); code != 2 {
		t.Fatalf("dedi alone: exit %d", code)
	}
}

// BenchmarkDediVerify200k: svc dedi verify (in process) of a signed 200,000-record file
// against its manifest; cpu-s/op is the CPU time (user and system) per run, which on a shared
// machine says more than the wall time.
func BenchmarkDediVerify200k(b *testing.B) {
	p := newDediPublisher(b)
	p.file.Registry.Schema = map[string]any{"type": "object", "required": []any{"id", "public_key"},
		"properties": map[string]any{"id": map[string]any{"type": "string"}, "public_key": map[string]any{"type": "string"}}}
	p.file.Records = make([]dedi.Record, 200000)
	for i := range p.file.Records {
		name := "service-" + strconv.Itoa(i)
		p.file.Records[i] = dedi.Record{Name: name, Details: map[string]any{"id": name, "public_key": "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "n": float64(i)}}
	}
	dir := b.TempDir()
	fp, mp, file, _ := p.write(b, dir)
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for i := 0; i < b.N; i++ {
		var out, errb strings.Builder
		if code := run(context.Background(), []string{"dedi", "verify", fp, "--manifest", mp, "--at", "2026-08-22T00:00:00Z"}, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s %s", code, out.String(), errb.String())
		}
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// TestDediVerifyBadInput: what svc dedi verify refuses, each with its word.
func TestDediVerifyBadInput(t *testing.T) {
	dir := t.TempDir()
	p := newDediPublisher(t)
	fp, mp, file, _ := p.write(t, dir)
	run := func(args ...string) (int, string) {
		t.Helper()
		code, out, _ := svc(t, append([]string{"dedi", "verify"}, args...)...)
		return code, strings.TrimSpace(out)
	}
	at := []string{"--at", "2026-08-22T00:00:00Z"}

	// A 65 MiB file is refused by the cap.
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, append(file, make([]byte, 65<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run(append([]string{big, "--manifest", mp}, at...)...); code != 1 || out != "invalid" {
		t.Fatalf("65 MiB file: %d %s", code, out)
	}
	// A manifest listing 100,000 files is refused by the cap: the file is not authenticated.
	var b strings.Builder
	b.WriteString(`{"dedi_version":"0.1","domain":"pub.test","files":[`)
	for i := 0; i < 100000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"registry":"r` + strconv.Itoa(i) + `","url":"https://pub.test/r.json","digest":"sha-256:0000000000000000000000000000000000000000000000000000000000000000"}`)
	}
	b.WriteString(`]}`)
	huge := filepath.Join(dir, "huge-manifest.json")
	if err := os.WriteFile(huge, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run(append([]string{fp, "--manifest", huge}, at...)...); code != 1 || out != "not_authenticated" {
		t.Fatalf("100,000 files: %d %s", code, out)
	}
	// A replayed older file: accepted at updated_at T, then the copy of T-1h is a rollback.
	state := filepath.Join(dir, "state.json")
	if code, out := run(append([]string{fp, "--manifest", mp, "--state", state}, at...)...); code != 0 {
		t.Fatalf("accepting: %s", out)
	}
	old := newDediPublisher(t)
	old.file.Registry.UpdatedAt = old.file.Registry.UpdatedAt.Add(-time.Hour)
	ofp, omp, _, _ := old.write(t, t.TempDir())
	if code, out := run(append([]string{ofp, "--manifest", omp, "--state", state}, at...)...); code != 1 || out != "rollback" {
		t.Fatalf("replayed older file: %d %s", code, out)
	}
	if code, out := run(append([]string{ofp, "--manifest", omp}, at...)...); code != 0 {
		t.Fatalf("the same older file without the state: %d %s", code, out)
	}
	// Malformed JSON, and a state file that is not one.
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, file[:len(file)/2], 0o644)
	if code, out := run(append([]string{bad, "--manifest", mp}, at...)...); code != 1 || out != "invalid" {
		t.Fatalf("malformed: %d %s", code, out)
	}
	if code, _ := run(append([]string{fp, "--manifest", mp, "--state", bad}, at...)...); code != 1 {
		t.Fatalf("a broken state file: exit %d", code)
	}
}
