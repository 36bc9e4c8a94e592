// Command svc runs the trust directory service and its operator commands.
//
//	svc serve                       run the service (migrates first)
//	svc migrate                     apply migrations and exit
//	svc key create --email E        create the user if new; print a new API key alone on stdout
//	svc key revoke --key K          revoke an API key
//	svc user disable --email E      disable a user (its keys stop working)
//	svc user add-key --email E --multibase z6Mk...
//	                                register an Ed25519 public key on the user's profile
//	svc domain allow D              add D (or *.D) to the global registry of verifiable domains
//	svc domain disallow D           remove it
//	svc import --url U --key K --namespace NS --registry R FILE
//	                                import NDJSON add-record bodies through add-records
//	svc verify --kind K [--log-key VKEY --inclusion FILE|--url URL] FILE
//	                                check a saved lookup response offline (exit 0 or 1),
//	                                and that its version is in the signed transparency log
//	svc log key create --origin O --out FILE
//	                                write a transparency-log signer key; print its verifier key
//	svc log monitor --url URL --log-key VKEY --state FILE [--key KEY]
//	                                check the log's new checkpoint and leaves against the last one
//	                                (exit 1: inconsistent, 2: could not read it)
//	svc dedi verify FILE (--manifest M | --fetch) [--at T]
//	                                verify a DeDi file; print its outcome word (exit 0: authentic)
//	svc dedi key create --kid K --out FILE
//	                                write a private Ed25519 JWK; print its public JWK
//	svc dedi export --url URL --namespace NS --key FILE --base-url U --valid-for D --out DIR
//	                                write a namespace as signed DeDi files and a manifest
//	svc version                     print the version (also --version)
//
// "svc <command> -h" prints a command's help and flags.
// Every command reads SVC_DATABASE_URL (default sqlite://svc.db) or --database-url.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: svc <command> [flags]

commands:
  serve                                   run the service (applies migrations first)
  migrate                                 apply migrations and exit
  key create --email E                    print a new API key for E (user created if new)
  key revoke --key K                      revoke an API key
  user disable --email E                  disable a user
  user add-key --email E --multibase Z    register an Ed25519 public key (multibase z6Mk...)
  domain allow D                          allow D (or *.D) in the global registry
  domain disallow D                       remove D from the global registry
  import --url U --key K --namespace NS --registry R FILE
                                          add the NDJSON add-record bodies of FILE (- for stdin)
                                          through add-records, in whole batches
  verify --kind K FILE                    recompute a saved lookup response's digest offline
                                          (K: namespace, registry or record; FILE - for stdin);
                                          exit 0 when it matches, 1 when not
  verify --kind K --log-key VKEY --inclusion FILE|--url URL FILE
                                          also check the version is in a checkpoint signed by VKEY
  log key create --origin O --out FILE    write a new transparency-log signer key to FILE (mode 0600)
                                          and print its verifier key alone on stdout
  log monitor --url URL --log-key VKEY --state FILE [--key KEY]
                                          check the log's new checkpoint (signature, consistency
                                          with the one in FILE) and new leaves; then store it
                                          (exit 1: inconsistent; 2: the log could not be read)
  log restart --origin O --yes            start a new, empty log under origin O (after a restore)
  dedi verify FILE (--manifest M | --fetch) [--at RFC3339]
                                          verify a DeDi file against its publisher's manifest;
                                          print the outcome word (exit 0 only for authentic)
  dedi key create --kid K --out FILE      write a private Ed25519 JWK (mode 0600); print the public JWK
  dedi export --url URL --namespace NS --key FILE --base-url URL --valid-for D --out DIR
                                          write the namespace's live records as signed DeDi files
                                          and the manifest .well-known/dedi.index.json
  dedi publisher add|remove DOMAIN        crawl (or stop crawling) a DeDi publisher's files
  dedi list add|remove URL                read (or stop reading) a discovery list (domains.txt)
  dedi crawl [DOMAIN]                     read the lists and crawl every publisher (or DOMAIN) once
  version                                 print the version (also: svc --version)

Run "svc <command> -h" (or "svc help <command>") for the help and flags of a command.
`

// errUsage marks mistakes in the command line (exit status 2).
var errUsage = errors.New("usage")

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, err)
		return 2
	case errors.Is(err, errMismatch):
		return 1
	case errors.Is(err, errNotChecked):
		return 2
	default:
		fmt.Fprintln(stderr, "svc:", err)
		return 1
	}
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: a command is required", errUsage)
	}
	cmd, rest := args[0], args[1:]
	sub := ""
	if len(rest) > 0 {
		sub = rest[0]
	}
	switch {
	case cmd == "serve":
		return cmdServe(ctx, rest, stderr)
	case cmd == "migrate":
		return cmdMigrate(ctx, rest, stdout, stderr)
	case cmd == "key" && sub == "create":
		return cmdKeyCreate(ctx, rest[1:], stdout, stderr)
	case cmd == "key" && sub == "revoke":
		return cmdKeyRevoke(ctx, rest[1:], stdout, stderr)
	case cmd == "user" && sub == "disable":
		return cmdUserDisable(ctx, rest[1:], stdout, stderr)
	case cmd == "user" && sub == "add-key":
		return cmdUserAddKey(ctx, rest[1:], stdout, stderr)
	case cmd == "domain" && (sub == "allow" || sub == "disallow"):
		return cmdDomain(ctx, sub, rest[1:], stdout, stderr)
	case cmd == "log" && sub == "key" && len(rest) > 1 && rest[1] == "create":
		return cmdLogKeyCreate(rest[2:], stdout, stderr)
	case cmd == "log" && sub == "monitor":
		return cmdLogMonitor(ctx, rest[1:], stdout, stderr)
	case cmd == "log" && sub == "restart":
		return cmdLogRestart(ctx, rest[1:], stdout, stderr)
	case cmd == "log" && (sub == "" || isHelp(sub) || sub == "key"):
		printGroupHelp(stderr, cmd)
		if sub == "" || sub == "key" && (len(rest) == 1 || !isHelp(rest[1])) {
			return fmt.Errorf("%w: log needs a subcommand", errUsage)
		}
		return flag.ErrHelp
	case cmd == "dedi" && sub == "verify":
		return cmdDediVerify(ctx, rest[1:], stdout, stderr)
	case cmd == "dedi" && sub == "key" && len(rest) > 1 && rest[1] == "create":
		return cmdDediKeyCreate(rest[2:], stdout, stderr)
	case cmd == "dedi" && sub == "export":
		return cmdDediExport(ctx, rest[1:], stdout, stderr)
	case cmd == "dedi" && (sub == "publisher" || sub == "list") && len(rest) > 1 && (rest[1] == "add" || rest[1] == "remove"):
		if sub == "list" {
			return cmdDediList(ctx, rest[1], rest[2:], stdout, stderr)
		}
		return cmdDediPublisher(ctx, rest[1], rest[2:], stdout, stderr)
	case cmd == "dedi" && sub == "crawl":
		return cmdDediCrawl(ctx, rest[1:], stdout, stderr)
	case cmd == "dedi" && (sub == "" || isHelp(sub) || sub == "key" || sub == "publisher" || sub == "list"):
		printGroupHelp(stderr, cmd)
		if sub == "" || sub != "" && !isHelp(sub) && (len(rest) == 1 || !isHelp(rest[1])) {
			return fmt.Errorf("%w: dedi needs a subcommand", errUsage)
		}
		return flag.ErrHelp
	case cmd == "verify":
		return cmdVerify(ctx, rest, os.Stdin, stdout, stderr)
	case cmd == "import":
		return cmdImport(ctx, rest, os.Stdin, stdout, stderr)
	case cmd == "version" || cmd == "--version" || cmd == "-version":
		if len(rest) > 0 && !isHelp(rest[0]) {
			return fmt.Errorf("%w: version takes no arguments", errUsage)
		}
		if len(rest) > 0 {
			fmt.Fprintln(stdout, "usage: svc version\n\nPrints the version of this binary and the Go release that built it.")
			return nil
		}
		fmt.Fprintln(stdout, versionString())
		return nil
	case (cmd == "key" || cmd == "user" || cmd == "domain") && (sub == "" || isHelp(sub)):
		printGroupHelp(stderr, cmd)
		if sub == "" {
			return fmt.Errorf("%w: %s needs a subcommand", errUsage, cmd)
		}
		return flag.ErrHelp
	case cmd == "help" && len(rest) > 0:
		return dispatch(ctx, append(append([]string{}, rest...), "-h"), stdout, stderr)
	case isHelp(cmd):
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("%w: unknown command %q\n%s", errUsage, joinArgs(args, 2), hint)
}

// hint is the line that follows a usage error which the usage would not explain better.
const hint = `Run "svc help" for the list of commands, "svc <command> -h" for a command's flags.`

func joinArgs(args []string, n int) string {
	if len(args) < n {
		n = len(args)
	}
	s := ""
	for i, a := range args[:n] {
		if i > 0 {
			s += " "
		}
		s += a
	}
	return s
}
