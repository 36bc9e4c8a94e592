package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// accepted is a publisher whose first files were crawled and accepted.
type accepted struct {
	s       *store.Store
	o       *origin
	c       *clock
	p       *publisher
	first   map[string][]byte // the documents of the first publication
	record  directory.Record  // keys/a as accepted
	fileRaw []byte
}

func newAccepted(t *testing.T, s *store.Store) *accepted {
	t.Helper()
	c := &clock{t: t0}
	o := newOrigin(t)
	p := newPublisher(t, o, "pub.test", c.Now())
	p.registry("keys", rec("a", map[string]any{"id": "a"}), rec("b", map[string]any{"id": "b"}))
	a := &accepted{s: s, o: o, c: c, p: p, first: p.publish(t, c.Now())}
	if _, err := s.AddDediPublisher(t.Context(), "pub.test"); err != nil {
		t.Fatal(err)
	}
	if rep := mustCrawl(t, newService(s, o, c), "pub.test"); rep.Files["keys"].State != store.OriginLive {
		t.Fatalf("first crawl: %s", describe(rep))
	}
	var err error
	if a.record, err = s.GetRecord(t.Context(), "pub.test", "keys", "a", directory.VersionSel{}); err != nil {
		t.Fatal(err)
	}
	a.fileRaw = fileState(t, s, "pub.test", "keys").Bytes
	c.Add(time.Minute)
	return a
}

// kept checks that nothing accepted before was lost: the same file bytes, the same version of
// keys/a.
func (a *accepted) kept(t *testing.T) {
	t.Helper()
	if f := fileState(t, a.s, "pub.test", "keys"); !bytes.Equal(f.Bytes, a.fileRaw) {
		t.Error("the accepted file's bytes were replaced")
	}
	r, err := a.s.GetRecord(t.Context(), "pub.test", "keys", "a", directory.VersionSel{})
	if err != nil || r.Version != a.record.Version {
		t.Errorf("keys/a changed: %+v, %v", r.Version, err)
	}
}

const filePath = "/dedi/dedi.keys.json"

// TestIngestBadInput: each bad document is refused with its outcome, and nothing accepted
// before is lost.
func TestIngestBadInput(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, a *accepted)
		fetcher func(*fetch.Options)
		outcome string // of the publisher (manifest) when file is ""
		file    string // of the keys file
	}{
		{name: "malformed JSON", setup: func(t *testing.T, a *accepted) { a.o.put("pub.test", filePath, []byte(`{"dedi_version":"0.1",`)) }, file: "invalid"},
		{name: "duplicate record names", setup: func(t *testing.T, a *accepted) {
			b := bytes.Replace(a.first["keys"], []byte(`"record_name": "b"`), []byte(`"record_name": "a"`), 1)
			if bytes.Equal(b, a.first["keys"]) {
				t.Fatal("the fixture did not change")
			}
			a.o.put("pub.test", filePath, b)
		}, file: "invalid"},
		{name: "wrong type", setup: func(t *testing.T, a *accepted) {
			a.o.put("pub.test", filePath, bytes.Replace(a.first["keys"], []byte(`"dedi-file"`), []byte(`"dedi-manifest"`), 1))
		}, file: "invalid"},
		// Served without a Content-Length (chunked), so that the fetcher reads up to its cap:
		// the deadline is the cap's, not the hanging origins' (64 MiB under the race detector on
		// a busy machine takes more than the harness's 3 s).
		{name: "65 MiB file", setup: func(t *testing.T, a *accepted) {
			big := append([]byte(`{"pad":"`), bytes.Repeat([]byte("x"), 65<<20)...)
			a.o.put("pub.test", filePath, append(big, `"}`...))
		}, fetcher: func(o *fetch.Options) { o.Timeout = 2 * time.Minute }, file: "invalid"},
		{name: "manifest listing 100000 files", setup: func(t *testing.T, a *accepted) {
			var sb strings.Builder
			sb.WriteString(`{"dedi_version":"0.1","type":"dedi-manifest","domain":"pub.test","keys":[],"files":[`)
			for i := range 100000 {
				if i > 0 {
					sb.WriteByte(',')
				}
				fmt.Fprintf(&sb, `{"registry":"r%d","url":"https://pub.test/%d.json","digest":"sha-256:%064d"}`, i, i, 0)
			}
			sb.WriteString(`]}`)
			a.o.put("pub.test", dedi.WellKnownPath, []byte(sb.String()))
		}, outcome: "invalid"},
		{name: "hanging origin", fetcher: func(o *fetch.Options) { o.Timeout, o.HeaderTimeout = 500*time.Millisecond, 300*time.Millisecond },
			setup: func(t *testing.T, a *accepted) {
				a.o.handle("pub.test", filePath, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			}, file: "unreachable"},
		{name: "slow origin", fetcher: func(o *fetch.Options) { o.Timeout, o.HeaderTimeout = 500*time.Millisecond, 300*time.Millisecond },
			setup: func(t *testing.T, a *accepted) {
				a.o.handle("pub.test", filePath, func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(http.StatusOK)
					for range 100 {
						if _, err := w.Write([]byte(" ")); err != nil {
							return
						}
						w.(http.Flusher).Flush()
						select {
						case <-r.Context().Done():
							return
						case <-time.After(50 * time.Millisecond):
						}
					}
				})
			}, file: "unreachable"},
		{name: "redirect loop", setup: func(t *testing.T, a *accepted) {
			a.o.handle("pub.test", filePath, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, filePath, http.StatusFound) })
		}, file: "unreachable"},
		{name: "manifest domain not its host", setup: func(t *testing.T, a *accepted) {
			m, _ := dedi.ParseManifest(a.first["manifest"], dedi.Limits{})
			m.Domain = "other.test"
			b, err := dedi.SignManifest(m, a.p.signer)
			if err != nil {
				t.Fatal(err)
			}
			a.o.put("pub.test", dedi.WellKnownPath, b)
		}, outcome: "not_authenticated"},
		{name: "file namespace not the manifest's domain", setup: func(t *testing.T, a *accepted) {
			a.p.files["keys"].Namespace = "other.test"
			a.p.publish(t, a.c.Now())
		}, file: "not_authenticated"},
		{name: "file publisher domain not the manifest's domain", setup: func(t *testing.T, a *accepted) {
			a.p.files["keys"].Publisher.Domain = "other.test"
			a.p.publish(t, a.c.Now())
		}, file: "not_authenticated"},
		{name: "replayed older manifest and file", setup: func(t *testing.T, a *accepted) {
			a.p.files["keys"].Records[0].Details = map[string]any{"id": "a", "v": 2.0}
			a.c.Add(time.Minute)
			a.p.publish(t, a.c.Now())
			mustCrawl(t, newService(a.s, a.o, a.c), "pub.test")
			a.record, _ = a.s.GetRecord(t.Context(), "pub.test", "keys", "a", directory.VersionSel{})
			a.fileRaw = fileState(t, a.s, "pub.test", "keys").Bytes
			a.o.put("pub.test", dedi.WellKnownPath, a.first["manifest"])
			a.o.put("pub.test", filePath, a.first["keys"])
		}, outcome: "rollback"},
		{name: "replayed older file in a newer manifest", setup: func(t *testing.T, a *accepted) {
			a.p.files["keys"].Records[0].Details = map[string]any{"id": "a", "v": 2.0}
			a.c.Add(time.Minute)
			a.p.publish(t, a.c.Now())
			mustCrawl(t, newService(a.s, a.o, a.c), "pub.test")
			a.record, _ = a.s.GetRecord(t.Context(), "pub.test", "keys", "a", directory.VersionSel{})
			a.fileRaw = fileState(t, a.s, "pub.test", "keys").Bytes
			a.c.Add(time.Minute)
			m := &dedi.Manifest{Domain: "pub.test", Keys: []dedi.Key{a.p.signer.Public()}, UpdatedAt: a.c.Now(), NextUpdate: a.c.Now().Add(time.Hour),
				Files: []dedi.Entry{{Registry: "keys", URL: "https://pub.test" + filePath, Digest: dedi.Digest(a.first["keys"])}}}
			b, err := dedi.SignManifest(m, a.p.signer)
			if err != nil {
				t.Fatal(err)
			}
			a.o.put("pub.test", dedi.WellKnownPath, b)
			a.o.put("pub.test", filePath, a.first["keys"])
		}, file: "rollback"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, s *store.Store) {
				if tc.name == "65 MiB file" && s.Dialect() == store.DialectPostgres {
					t.Skip("the fetcher's cap is the same on both dialects")
				}
				a := newAccepted(t, s)
				tc.setup(t, a)
				svc := newService(s, a.o, a.c)
				if tc.fetcher != nil {
					svc = newServiceWith(s, a.o, a.c, tc.fetcher)
				}
				rep, err := svc.Crawl(context.Background(), "pub.test")
				if err != nil {
					t.Fatal(err)
				}
				if tc.outcome != "" && rep.Outcome != tc.outcome {
					t.Errorf("manifest outcome %q, want %q (%s)", rep.Outcome, tc.outcome, rep.Reason)
				}
				if tc.file != "" && rep.Files["keys"].Outcome != tc.file {
					t.Errorf("file outcome %q, want %q (%s)", rep.Files["keys"].Outcome, tc.file, rep.Files["keys"].Reason)
				}
				a.kept(t)
			})
		})
	}
}
