package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

func TestOfflineVerify(t *testing.T) {
	st := storetest.Open(t, store.DialectSQLite)
	srv, err := server.NewServer(server.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	e := srv.Echo()
	key, _, _ := st.CreateAPIKey(context.Background(), "a@example.com")
	call := func(method, path, body string) []byte {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
		}
		return rec.Body.Bytes()
	}
	var created struct {
		Data struct {
			NamespaceID string `json:"namespace_id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(call("POST", "/svc/create-namespace", `{"name":"n","description":"d"}`), &created)
	ns := created.Data.NamespaceID
	call("POST", "/svc/"+ns+"/create-registry", `{"registry_name":"r","schema":{"type":"object"}}`)
	call("POST", "/svc/"+ns+"/r/add-record", `{"record_name":"x","details":{"a":[1,"ü"]}}`)
	dir := t.TempDir()
	save := func(name string, body []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := map[string]string{
		"namespace": save("ns.json", call("GET", "/svc/lookup/"+ns, "")),
		"registry":  save("reg.json", call("GET", "/svc/lookup/"+ns+"/r", "")),
		"record":    save("rec.json", call("GET", "/svc/lookup/"+ns+"/r/x", "")),
	}
	for kind, f := range files {
		code, out, errs := svc(t, "verify", "--kind", kind, f)
		if code != 0 || !strings.HasPrefix(out, "OK: "+kind) {
			t.Fatalf("%s: exit %d %q %q", kind, code, out, errs)
		}
	}
	raw, _ := os.ReadFile(files["record"])
	tampered := save("bad.json", []byte(strings.Replace(string(raw), `"ü"`, `"u"`, 1)))
	if code, out, _ := svc(t, "verify", "--kind", "record", tampered); code != 1 || !strings.Contains(out, "recomputed digest") {
		t.Fatalf("tampered: exit %d %q", code, out)
	}
	if code, out, _ := svc(t, "verify", "--kind", "registry", files["record"]); code != 1 || !strings.Contains(out, "not a registry proof") {
		t.Fatalf("wrong kind: exit %d %q", code, out)
	}
	if code, _, _ := svc(t, "verify", "--kind", "record", save("junk.json", []byte("{nope"))); code != 1 {
		t.Fatalf("junk: exit %d", code)
	}
	if code, _, _ := svc(t, "verify", "--kind", "thing", files["record"]); code != 2 {
		t.Fatalf("bad kind: exit %d", code)
	}
	if code, _, _ := svc(t, "verify", "--kind", "record", filepath.Join(dir, "missing.json")); code != 1 {
		t.Fatalf("missing file: exit %d", code)
	}
}
