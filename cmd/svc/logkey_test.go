package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

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

// serve's key: the file named; beside an embedded database a key made on first start and
// kept; none on Postgres without a file; a key of another origin is refused.
func TestResolveLogKey(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	dir := t.TempDir()
	cfg := Config{DatabaseURL: "sqlite://" + filepath.Join(dir, "svc.db"), LogOrigin: defaultLogOrigin("localhost%3A8080")}
	if cfg.LogOrigin != "localhost:8080/svc/log" {
		t.Fatalf("default origin %q", cfg.LogOrigin)
	}
	k1, err := resolveLogKey(cfg, store.DialectSQLite, log)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, logKeyFileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key beside the database: %v %v", fi, err)
	}
	k2, err := resolveLogKey(cfg, store.DialectSQLite, log)
	if err != nil || k2.VerifierKey != k1.VerifierKey {
		t.Fatalf("second start: %v, key %q then %q", err, k1.VerifierKey, k2.VerifierKey)
	}
	if _, err := resolveLogKey(Config{DatabaseURL: "postgres://x", LogOrigin: cfg.LogOrigin}, store.DialectPostgres, log); err == nil ||
		!strings.Contains(err.Error(), "SVC_LOG_KEY_FILE") {
		t.Fatalf("Postgres without a key: %v", err)
	}
	cfg.LogKeyFile = filepath.Join(dir, logKeyFileName)
	cfg.DatabaseURL = "postgres://x"
	if k, err := resolveLogKey(cfg, store.DialectPostgres, log); err != nil || k.VerifierKey != k1.VerifierKey {
		t.Fatalf("Postgres with the key file: %v", err)
	}
	cfg.LogOrigin = "other.example/svc/log"
	if _, err := resolveLogKey(cfg, store.DialectPostgres, log); err == nil || !strings.Contains(err.Error(), "origin") {
		t.Fatalf("a key of another origin: %v", err)
	}
}
