package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/logstore"
)

// logKeySuffix names the signer key `svc serve` creates beside an embedded database that has
// no SVC_LOG_KEY_FILE: the database file's name and this (svc.db.log.key).
const logKeySuffix = ".log.key"

// legacyLogKeyFileName is the one key file of a folder that earlier versions created beside
// every embedded database; a database whose log it signed keeps using it.
const legacyLogKeyFileName = "svc-log.key"

// defaultLogOrigin is the transparency log's origin when SVC_LOG_ORIGIN is not set: the DID
// host, decoded (localhost%3A8080 is localhost:8080), and /svc/log.
func defaultLogOrigin(didHost string) string {
	h, err := url.PathUnescape(didHost)
	if err != nil {
		h = didHost
	}
	return h + "/svc/log"
}

// cmdLogKeyCreate writes a new signer key (mode 0600) and prints its verifier key alone on
// stdout.
func cmdLogKeyCreate(args []string, stdout, stderr io.Writer) error {
	var origin, out string
	fs := flag.NewFlagSet("log key create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&origin, "origin", "", "the log's origin, e.g. directory.example.com/svc/log (required)")
	fs.StringVar(&out, "out", "", "the file to create for the signer key (required; an existing file is refused)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if origin == "" || out == "" {
		return fmt.Errorf("%w: log key create needs --origin and --out", errUsage)
	}
	if _, _, err := translog.GenerateKey(origin); err != nil {
		return fmt.Errorf("%w: log key create: %v", errUsage, err)
	}
	k, err := translog.WriteKeyFile(out, origin)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, k.VerifierKey)
	return nil
}

// cmdLogRestart starts a new log under a new origin in place of the database's log (a
// restored database must, and so must one whose log was found rolled back by a failover: the
// restart removes that marker), and says what the operator does next.
func cmdLogRestart(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var dbURL, origin string
	var yes bool
	fs := newFlags("log restart", stderr, &dbURL)
	fs.StringVar(&origin, "origin", "", "the new log's origin, e.g. directory.example.com/svc/log/2 (required)")
	fs.BoolVar(&yes, "yes", false, "confirm that the database's log is to be removed (required)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if origin == "" || !yes {
		return fmt.Errorf("%w: log restart needs --origin and --yes (it removes the database's log)", errUsage)
	}
	if _, _, err := translog.GenerateKey(origin); err != nil {
		return fmt.Errorf("%w: log restart: %v", errUsage, err)
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "info"))
	if err != nil {
		return err
	}
	defer s.Close()
	old, err := s.LogState(ctx)
	if err != nil {
		return err
	}
	queued, err := s.RestartLog(ctx, origin)
	if err != nil {
		return err
	}
	if r := old.RolledBack; r.Marked() {
		fmt.Fprintf(stdout, "the old log was found rolled back (%d leaves, behind a checkpoint of %d; %s, %s): its marker is removed\n",
			r.Size, r.Behind, r.Found, r.At.Format(time.RFC3339))
	}
	fmt.Fprintf(stdout, "the log restarted as %s with %d versions queued\n", origin, queued)
	fmt.Fprintf(stderr, "next: svc log key create --origin %s --out FILE; start every instance with SVC_LOG_ORIGIN=%s and SVC_LOG_KEY_FILE=FILE; publish the verifier key it prints\n", origin, origin)
	return nil
}

// configuredLogKey is the part of finding the transparency log's signer key that needs no
// database, so that `svc serve` refuses a wrong setup before it touches one: the file of
// SVC_LOG_KEY_FILE, read and checked against the origin (ok); on Postgres without it an error,
// since every instance must sign as the one log; on the embedded database without it nothing
// yet (embeddedLogKey finds the key once the database is open).
func configuredLogKey(cfg Config) (k translog.Key, ok bool, err error) {
	switch {
	case cfg.LogKeyFile != "":
		if k, err = translog.ReadKeyFile(cfg.LogKeyFile); err != nil {
			return k, false, err
		}
		return k, true, keptOrigin(k, cfg)
	case strings.HasPrefix(cfg.DatabaseURL, "sqlite://"):
		return k, false, nil
	}
	return k, false, errors.New("the transparency log needs SVC_LOG_KEY_FILE on Postgres, the same key for every instance (create one with: svc log key create --origin " +
		cfg.LogOrigin + " --out FILE)")
}

func checkKeyOrigin(k translog.Key, origin string) error {
	if k.Signer.Name() != origin {
		return fmt.Errorf("the transparency log key is for origin %q, but the origin is %q (SVC_LOG_ORIGIN)", k.Signer.Name(), origin)
	}
	return nil
}

// logStater reads the log's state (store.Store).
type logStater interface {
	LogState(ctx context.Context) (logstore.State, error)
}

// embeddedLogKey is the signer key of an embedded database without SVC_LOG_KEY_FILE: the file
// named after the database file, beside it (svc.db has svc.db.log.key), created on first start
// with its verifier key logged. Each database of a folder thus has a key of its own. A
// database started before keys were named so signed its log with the folder's svc-log.key:
// when its latest checkpoint is signed by that key and it has no key of its own yet, it keeps
// using svc-log.key where it is.
func embeddedLogKey(ctx context.Context, cfg Config, st logStater, log *slog.Logger) (translog.Key, error) {
	db := sqlitePath(cfg.DatabaseURL)
	path := db + logKeySuffix
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		legacy := filepath.Join(filepath.Dir(db), legacyLogKeyFileName)
		if k, err := translog.ReadKeyFile(legacy); err == nil {
			state, err := st.LogState(ctx)
			if err != nil {
				return translog.Key{}, err
			}
			if _, err := note.Open([]byte(state.Checkpoint), note.VerifierList(k.Verifier)); state.Checkpoint != "" && err == nil {
				log.Info("transparency log key: the database's log is signed with the key file of the folder", "file", legacy)
				return k, keptOrigin(k, cfg)
			}
		}
	}
	k, created, err := translog.EnsureKeyFile(path, cfg.LogOrigin)
	if err != nil {
		return k, err
	}
	if created {
		log.Info("transparency log key created", "file", path, "verifier_key", k.VerifierKey)
	}
	return k, keptOrigin(k, cfg)
}

// keptOrigin checks the log's key against the origin. The key names the origin its log signs
// as, and without SVC_LOG_ORIGIN the log keeps it (serve says so): the derived origin follows
// the port served, which an operator may change, and a database made before the origin
// followed the port (when it was always localhost:8080/svc/log) would otherwise refuse to
// start. An origin set with SVC_LOG_ORIGIN must be the key's.
func keptOrigin(k translog.Key, cfg Config) error {
	if cfg.logOriginDerived {
		return nil
	}
	return checkKeyOrigin(k, cfg.LogOrigin)
}

// sqlitePath is the file of a sqlite:// database URL.
func sqlitePath(databaseURL string) string {
	p := strings.TrimPrefix(databaseURL, "sqlite://")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p
}
