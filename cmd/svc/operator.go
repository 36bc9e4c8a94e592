package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/mr-tron/base58"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/store"
)

// openStore opens and migrates the database for an operator command.
func openStore(ctx context.Context, dbURL string, log *slog.Logger) (*store.Store, error) {
	s, err := store.Open(ctx, dbURL, log, store.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := s.Migrate(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// newFlags builds a command's flag set with the shared --database-url flag.
func newFlags(name string, stderr io.Writer, dbURL *string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	registerDatabaseFlag(fs, dbURL)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string, positional int) error {
	if err := parseCommandFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != positional {
		return fmt.Errorf("%w: %s takes %d argument(s), got %q", errUsage, fs.Name(), positional, fs.Args())
	}
	return nil
}

func cmdMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var dbURL string
	fs := newFlags("migrate", stderr, &dbURL)
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	s, err := store.Open(ctx, dbURL, newLogger(stderr, "info"), store.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	n, err := s.Migrate(ctx)
	if err != nil {
		return err
	}
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %d migration(s); schema version %d\n", n, v)
	return nil
}

func cmdKeyCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var dbURL, email string
	fs := newFlags("key create", stderr, &dbURL)
	fs.StringVar(&email, "email", "", "the user's email (required)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if email == "" {
		return fmt.Errorf("%w: key create needs --email", errUsage)
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "warn"))
	if err != nil {
		return err
	}
	defer s.Close()
	key, _, err := s.CreateAPIKey(ctx, email)
	if err != nil {
		return err
	}
	// The key alone on stdout, so that scripts can capture it.
	fmt.Fprintln(stdout, key)
	return nil
}

func cmdKeyRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var dbURL, key string
	fs := newFlags("key revoke", stderr, &dbURL)
	fs.StringVar(&key, "key", "", "the API key to revoke (required)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if key == "" {
		return fmt.Errorf("%w: key revoke needs --key", errUsage)
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "warn"))
	if err != nil {
		return err
	}
	defer s.Close()
	switch err := s.RevokeAPIKey(ctx, key); {
	case errors.Is(err, store.ErrMalformedKey):
		return fmt.Errorf("that is not an API key (svc_ followed by 43 characters)")
	case errors.Is(err, directory.ErrNotFound):
		return fmt.Errorf("no live API key matches (unknown or already revoked)")
	case err != nil:
		return err
	}
	fmt.Fprintln(stdout, "revoked")
	return nil
}

func cmdUserDisable(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var dbURL, email string
	fs := newFlags("user disable", stderr, &dbURL)
	fs.StringVar(&email, "email", "", "the user's email (required)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if email == "" {
		return fmt.Errorf("%w: user disable needs --email", errUsage)
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "warn"))
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.SetUserDisabled(ctx, email, true); err != nil {
		if errors.Is(err, directory.ErrNotFound) {
			return fmt.Errorf("no user with email %s", email)
		}
		return err
	}
	fmt.Fprintln(stdout, "disabled")
	return nil
}

// ed25519Multicodec is the multicodec prefix of an Ed25519 public key (0xed, varint-encoded).
var ed25519Multicodec = []byte{0xed, 0x01}

// checkEd25519Multibase accepts "z" + base58btc(0xed01 || 32-byte key), the Multikey form.
func checkEd25519Multibase(s string) error {
	if len(s) < 2 || s[0] != 'z' {
		return fmt.Errorf("multibase key must start with 'z' (base58btc), as z6Mk… does")
	}
	raw, err := base58.Decode(s[1:])
	if err != nil {
		return fmt.Errorf("multibase key is not base58btc: %v", err)
	}
	if len(raw) != 34 || raw[0] != ed25519Multicodec[0] || raw[1] != ed25519Multicodec[1] {
		return fmt.Errorf("multibase key is not an Ed25519 public key (want multicodec 0xed01 and 32 key bytes)")
	}
	return nil
}

func cmdUserAddKey(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var dbURL, email, mb string
	fs := newFlags("user add-key", stderr, &dbURL)
	fs.StringVar(&email, "email", "", "the user's email (required)")
	fs.StringVar(&mb, "multibase", "", "Ed25519 public key in multibase form, z6Mk... (required)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if email == "" || mb == "" {
		return fmt.Errorf("%w: user add-key needs --email and --multibase", errUsage)
	}
	if err := checkEd25519Multibase(mb); err != nil {
		return err
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "warn"))
	if err != nil {
		return err
	}
	defer s.Close()
	switch err := s.AddProfileKey(ctx, email, mb); {
	case errors.Is(err, directory.ErrNotFound):
		return fmt.Errorf("no user with email %s", email)
	case errors.Is(err, directory.ErrConflict):
		return fmt.Errorf("that key is already registered for %s", email)
	case err != nil:
		return err
	}
	fmt.Fprintln(stdout, "added")
	return nil
}

func cmdDomain(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	var dbURL string
	fs := newFlags("domain "+verb, stderr, &dbURL)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	pattern, err := domainverify.NormalizeAllowPattern(fs.Arg(0))
	if err != nil {
		return err
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "warn"))
	if err != nil {
		return err
	}
	defer s.Close()
	if verb == "allow" {
		if err := s.AllowDomain(ctx, pattern); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "allowed %s\n", pattern)
		return nil
	}
	if err := s.DisallowDomain(ctx, pattern); err != nil {
		if errors.Is(err, directory.ErrNotFound) {
			return fmt.Errorf("%s is not in the global registry", pattern)
		}
		return err
	}
	fmt.Fprintf(stdout, "disallowed %s\n", pattern)
	return nil
}
