package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

// logKeyFileName is the signer key `svc serve` creates beside an embedded database that has
// no SVC_LOG_KEY_FILE.
const logKeyFileName = "svc-log.key"

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
// restored database must), and says what the operator does next.
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
	queued, err := s.RestartLog(ctx, origin)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "the log restarted as %s with %d versions queued\n", origin, queued)
	fmt.Fprintf(stderr, "next: svc log key create --origin %s --out FILE; start every instance with SVC_LOG_ORIGIN=%s and SVC_LOG_KEY_FILE=FILE; publish the verifier key it prints\n", origin, origin)
	return nil
}

// resolveLogKey returns the transparency log's signer key for `svc serve`: the file of
// SVC_LOG_KEY_FILE; without it on the embedded database svc-log.key beside the database file
// (created on first start, its verifier key logged); on Postgres it refuses, since every
// instance must sign as the one log. The key's name must be the configured origin.
func resolveLogKey(cfg Config, dialect string, log *slog.Logger) (translog.Key, error) {
	var k translog.Key
	var err error
	switch {
	case cfg.LogKeyFile != "":
		k, err = translog.ReadKeyFile(cfg.LogKeyFile)
	case dialect == store.DialectSQLite:
		path := filepath.Join(filepath.Dir(sqlitePath(cfg.DatabaseURL)), logKeyFileName)
		var created bool
		k, created, err = translog.EnsureKeyFile(path, cfg.LogOrigin)
		if err == nil && created {
			log.Info("transparency log key created", "file", path, "verifier_key", k.VerifierKey)
		}
	default:
		return k, errors.New("the transparency log needs SVC_LOG_KEY_FILE on Postgres, the same key for every instance (create one with: svc log key create --origin " +
			cfg.LogOrigin + " --out FILE)")
	}
	if err != nil {
		return k, err
	}
	if k.Signer.Name() != cfg.LogOrigin {
		return k, fmt.Errorf("the transparency log key is for origin %q, but the origin is %q (SVC_LOG_ORIGIN)", k.Signer.Name(), cfg.LogOrigin)
	}
	return k, nil
}

// sqlitePath is the file of a sqlite:// database URL.
func sqlitePath(databaseURL string) string {
	p := strings.TrimPrefix(databaseURL, "sqlite://")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p
}
