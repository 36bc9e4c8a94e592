package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

// svc log key create writes the signer key (mode 0600) and prints only the verifier key,
// which checks what the signer signs; it refuses to overwrite a key.
func TestLogKeyCreate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "log.key")
	code, stdout, errs := svc(t, "log", "key", "create", "--origin", "dir.example/svc/log", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	vkey := strings.TrimSuffix(stdout, "\n")
	v, err := note.NewVerifier(vkey)
	if err != nil || strings.Contains(vkey, "\n") || v.Name() != "dir.example/svc/log" {
		t.Fatalf("stdout %q is not the verifier key alone: %v", stdout, err)
	}
	k, err := translog.ReadKeyFile(out)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := note.Sign(&note.Note{Text: "hello\n"}, k.Signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(signed, note.VerifierList(v)); err != nil {
		t.Fatalf("the printed key does not verify the signer's notes: %v", err)
	}
	if code, _, _ := svc(t, "log", "key", "create", "--origin", "dir.example/svc/log", "--out", out); code == 0 {
		t.Fatal("an existing key file was overwritten")
	}
	for _, bad := range [][]string{{"log", "key", "create", "--out", out + "2"}, {"log", "key", "create", "--origin", "a b", "--out", out + "3"}, {"log"}, {"log", "key"}} {
		if code, _, _ := svc(t, bad...); code != 2 {
			t.Errorf("svc %q: exit %d, want 2", bad, code)
		}
	}
	for _, h := range [][]string{{"log", "key", "create", "-h"}, {"log", "-h"}, {"help", "log", "key", "create"}} {
		if code, o, e := svc(t, h...); code != 0 || !strings.Contains(o+e, "usage: svc log key create") {
			t.Errorf("svc %q: %d %q", h, code, o+e)
		}
	}
}

// serve's key: the file named, read before any database is opened; none on Postgres without
// a file; a key of another origin is refused; beside an embedded database a key named after
// the database file, made on first start and kept.
func TestServeLogKey(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	dir := t.TempDir()
	cfg := Config{DatabaseURL: "sqlite://" + filepath.Join(dir, "svc.db"), LogOrigin: defaultLogOrigin("localhost%3A8080")}
	if cfg.LogOrigin != "localhost:8080/svc/log" {
		t.Fatalf("default origin %q", cfg.LogOrigin)
	}
	if _, ok, err := configuredLogKey(cfg); ok || err != nil {
		t.Fatalf("embedded without a file: %v %v; want the key left to embeddedLogKey", ok, err)
	}
	st, err := store.Open(context.Background(), cfg.DatabaseURL, nil, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	k1, err := embeddedLogKey(context.Background(), cfg, st, log)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "svc.db.log.key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key beside the database: %v %v", fi, err)
	}
	k2, err := embeddedLogKey(context.Background(), cfg, st, log)
	if err != nil || k2.VerifierKey != k1.VerifierKey {
		t.Fatalf("second start: %v, key %q then %q", err, k1.VerifierKey, k2.VerifierKey)
	}
	if _, _, err := configuredLogKey(Config{DatabaseURL: "postgres://x", LogOrigin: cfg.LogOrigin}); err == nil ||
		!strings.Contains(err.Error(), "SVC_LOG_KEY_FILE") {
		t.Fatalf("Postgres without a key: %v", err)
	}
	cfg.LogKeyFile = filepath.Join(dir, "svc.db.log.key")
	cfg.DatabaseURL = "postgres://x"
	if k, ok, err := configuredLogKey(cfg); err != nil || !ok || k.VerifierKey != k1.VerifierKey {
		t.Fatalf("Postgres with the key file: %v", err)
	}
	cfg.LogOrigin = "other.example/svc/log"
	if _, _, err := configuredLogKey(cfg); err == nil || !strings.Contains(err.Error(), "origin") {
		t.Fatalf("a key of another origin: %v", err)
	}
}

// Two embedded databases in one folder, each with its own origin, both serve, each with a key
// of its own named after its file; a database whose log the folder's svc-log.key signed (made
// by an earlier version) keeps that key where it is, while a new database beside it does not
// take it.
func TestEmbeddedDatabasesOfOneFolderHaveTheirOwnKeys(t *testing.T) {
	dir := t.TempDir()
	serveOnce := func(db, origin string) *syncBuffer {
		t.Helper()
		srv := startServe(t, "sqlite://"+filepath.Join(dir, db), "--log-origin", origin)
		waitServing(t, srv)
		if code := srv.stop(); code != 0 {
			t.Fatalf("serve %s: exit %d\n%s", db, code, srv.logs.String())
		}
		return srv.logs
	}
	serveOnce("a.db", "a.example/svc/log")
	serveOnce("b.db", "b.example/svc/log")
	for db, origin := range map[string]string{"a.db": "a.example/svc/log", "b.db": "b.example/svc/log"} {
		k, err := translog.ReadKeyFile(filepath.Join(dir, db+".log.key"))
		if err != nil || k.Signer.Name() != origin {
			t.Fatalf("%s: key %v, %v; want one for %s", db, k.Signer, err, origin)
		}
	}

	// An earlier version's database: its log signed with svc-log.key of the folder.
	legacy := filepath.Join(dir, "svc-log.key")
	lk, err := translog.WriteKeyFile(legacy, "old.example/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, "sqlite://"+filepath.Join(dir, "old.db"), "--log-origin", "old.example/svc/log", "--log-key-file", legacy)
	waitServing(t, srv)
	srv.stop()
	logs := serveOnce("old.db", "old.example/svc/log")
	if _, err := os.Stat(filepath.Join(dir, "old.db.log.key")); err == nil || strings.Contains(logs.String(), "transparency log key created") {
		t.Fatalf("the earlier database did not keep svc-log.key:\n%s", logs.String())
	}
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(dir, "old.db"), nil, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, err := st.LogState(context.Background()); err != nil || s.Checkpoint == "" {
		t.Fatalf("old.db's log: %v %v", s, err)
	} else if _, err := note.Open([]byte(s.Checkpoint), note.VerifierList(lk.Verifier)); err != nil {
		t.Fatalf("old.db's checkpoint is not signed with svc-log.key after a restart: %v", err)
	}
	// A new database beside it, with the same origin, gets a key of its own, not svc-log.key.
	serveOnce("new.db", "old.example/svc/log")
	if k, err := translog.ReadKeyFile(filepath.Join(dir, "new.db.log.key")); err != nil || k.VerifierKey == lk.VerifierKey {
		t.Fatalf("new.db's key: %v; want its own", err)
	}
}

// waitServing waits for the "serving" line of a server started by startServe.
func waitServing(t *testing.T, srv *served) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(srv.logs.String(), `"serving"`) {
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up:\n%s", srv.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// svc serve signs the empty log at start, logs the verifier key of the key it created beside
// the embedded database, and puts a new version in a signed checkpoint within a second or two;
// on Postgres it refuses to start without SVC_LOG_KEY_FILE.
func TestServeRunsTheLog(t *testing.T) {
	dir := t.TempDir()
	dbURL := "sqlite://" + filepath.Join(dir, "svc.db")
	key := apiKey(t, dbURL)
	srv := startServe(t, dbURL)
	addr, logs := strings.TrimPrefix(srv.base, "http://"), srv.logs
	st, err := store.Open(context.Background(), dbURL, nil, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), `"serving"`) {
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	k, err := translog.ReadKeyFile(filepath.Join(dir, "svc.db.log.key"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), k.VerifierKey) {
		t.Fatalf("the verifier key is not in the logs:\n%s", logs.String())
	}
	size := func() int64 {
		t.Helper()
		s, err := st.LogState(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if s.Checkpoint == "" {
			t.Fatal("no checkpoint after start")
		}
		if _, err := note.Open([]byte(s.Checkpoint), note.VerifierList(k.Verifier)); err != nil {
			t.Fatalf("checkpoint: %v", err)
		}
		return s.Size
	}
	// The integrator keeps the state index: its first checkpoint holds the state leaf of the
	// empty index, and each later one ends in a state leaf (docs/state-index.md).
	if n := size(); n != 1 {
		t.Fatalf("log size %d before any write, want 1 (the state leaf of the empty index)", n)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/svc/create-namespace", strings.NewReader(`{"name":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(key))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create namespace: %v %v", resp, err)
	}
	resp.Body.Close()
	written := time.Now()
	for size() != 3 { // the version's leaf and the state leaf after it
		if time.Since(written) > 2*time.Second {
			t.Fatal("the new version is not in a checkpoint after 2 s")
		}
		time.Sleep(20 * time.Millisecond)
	}

	pg := storetest.URL(t, store.DialectPostgres)
	t.Setenv("SVC_LOG_KEY_FILE", "")
	code, _, errs := svc(t, "serve", "--addr", "127.0.0.1:0", "--database-url", pg)
	if code != 1 || !strings.Contains(errs, "SVC_LOG_KEY_FILE") {
		t.Fatalf("serve on Postgres without a log key: exit %d, %q", code, errs)
	}
}

// A database made when the log's origin was always localhost:8080/svc/log (its key in the
// folder's svc-log.key, or its own key file), served on another port without SVC_LOG_ORIGIN,
// starts and keeps signing as its key's origin; with an SVC_LOG_ORIGIN that is not the key's
// it still refuses to start.
func TestEmbeddedLogKeepsItsOriginWhenThePortChanges(t *testing.T) {
	for _, legacy := range []bool{true, false} {
		t.Run(fmt.Sprintf("legacy_key_%v", legacy), func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "svc.db")
			keyFile := db + ".log.key"
			if legacy {
				keyFile = filepath.Join(dir, "svc-log.key")
			}
			k, err := translog.WriteKeyFile(keyFile, "localhost:8080/svc/log")
			if err != nil {
				t.Fatal(err)
			}
			// The earlier version's first start: the log signed as localhost:8080/svc/log.
			srv := startServe(t, "sqlite://"+db, "--log-origin", "localhost:8080/svc/log", "--log-key-file", keyFile)
			waitServing(t, srv)
			srv.stop()

			srv = startServe(t, "sqlite://"+db) // another port, no SVC_LOG_ORIGIN
			waitServing(t, srv)
			if code := srv.stop(); code != 0 {
				t.Fatalf("serve on another port: exit %d\n%s", code, srv.logs.String())
			}
			if !strings.Contains(srv.logs.String(), "the log keeps its key's origin") {
				t.Fatalf("no word of the kept origin:\n%s", srv.logs.String())
			}
			st, err := store.Open(context.Background(), "sqlite://"+db, nil, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			s, err := st.LogState(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := note.Open([]byte(s.Checkpoint), note.VerifierList(k.Verifier)); err != nil {
				t.Fatalf("the checkpoint is not signed with the database's key as localhost:8080/svc/log: %v\n%s", err, s.Checkpoint)
			}

			srv = startServe(t, "sqlite://"+db, "--log-origin", "elsewhere.example/svc/log")
			deadline := time.Now().Add(15 * time.Second)
			for !strings.Contains(srv.logs.String(), "but the origin is") {
				if strings.Contains(srv.logs.String(), `"serving"`) || time.Now().After(deadline) {
					t.Fatalf("an explicit SVC_LOG_ORIGIN unlike the key's was not refused:\n%s", srv.logs.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if code := srv.stop(); code == 0 {
				t.Fatalf("refused, but exit 0:\n%s", srv.logs.String())
			}
		})
	}
}
