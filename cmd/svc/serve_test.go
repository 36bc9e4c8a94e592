package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// svc serve checks its configuration and binds its port before it touches the database: on a
// busy port it neither creates the embedded database nor a key file, and on Postgres without
// SVC_LOG_KEY_FILE (and on a busy port) it migrates nothing.
func TestServeTouchesNoDatabaseBeforeItCanListen(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	t.Setenv("SVC_LOG_KEY_FILE", "")
	dir := t.TempDir()
	code, _, errs := svc(t, "serve", "--addr", busy.Addr().String(), "--database-url", "sqlite://"+filepath.Join(dir, "svc.db"))
	if code != 1 || !strings.Contains(errs, "address already in use") {
		t.Fatalf("serve on a busy port: exit %d, %q", code, errs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("serve on a busy port left %v in the database's folder", entries)
	}
	pg := storetest.URL(t, store.DialectPostgres)
	for _, args := range [][]string{
		{"--addr", "127.0.0.1:0"}, // no log key
		{"--addr", busy.Addr().String(), "--log-key-file", filepath.Join(dir, "none.key")}, // busy
	} {
		code, _, errs := svc(t, append([]string{"serve", "--database-url", pg}, args...)...)
		if code != 1 {
			t.Fatalf("serve %q on Postgres: exit %d, %q", args, code, errs)
		}
		storetest.Exec(t, pg, `DO $$ BEGIN IF EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema())
			THEN RAISE EXCEPTION 'serve migrated before it failed'; END IF; END $$`)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("serve left %v behind", entries)
	}
}

// Without SVC_DID_HOST the DID host is localhost and the port served, logged at start: the
// creator DIDs and the log origin name that port, not 8080.
func TestServeDerivesTheDIDHostFromTheAddress(t *testing.T) {
	t.Setenv("SVC_DID_HOST", "")
	t.Setenv("SVC_LOG_ORIGIN", "")
	t.Setenv("SVC_LOG_KEY_FILE", "")
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "svc.db")
	key := strings.TrimSpace(apiKey(t, dbURL))
	srv := startServe(t, dbURL)
	waitServing(t, srv)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.base, "http://"))
	host := "localhost%3A" + port
	var identities map[string]any
	for _, line := range strings.Split(srv.logs.String(), "\n") {
		if strings.Contains(line, `"msg":"identities"`) {
			_ = json.Unmarshal([]byte(line), &identities)
		}
	}
	if identities["did_host"] != host || identities["log_origin"] != "localhost:"+port+"/svc/log" ||
		!strings.Contains(identities["did_host_from"].(string), "listen address") {
		t.Fatalf("the identities logged at start: %v; want %s", identities, host)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.base+"/svc/create-namespace", strings.NewReader(`{"name":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ns struct {
		Data struct {
			CreatedBy string `json:"created_by"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&ns)
	resp.Body.Close()
	if err != nil || !strings.HasPrefix(ns.Data.CreatedBy, "did:web:"+host+":") {
		t.Fatalf("created_by %q (%v); want did:web:%s:...", ns.Data.CreatedBy, err, host)
	}
	resp, err = http.Get(srv.base + "/svc/log/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(cp), "localhost:"+port+"/svc/log\n") {
		t.Fatalf("checkpoint origin: %q", cp)
	}
}
