package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// version is the release this binary was built from; the Makefile sets it with
// -ldflags "-X main.version=...". When empty, the module version recorded by the Go
// toolchain (go install ...@v1.2.3) or the VCS revision is used.
var version = ""

// versionString returns the version line that `svc version` prints.
func versionString() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if v == "" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if v == "" {
		v = "devel"
		if ok {
			var rev, modified string
			for _, s := range info.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value
				}
			}
			if len(rev) > 12 {
				rev = rev[:12]
			}
			if rev != "" {
				v += "+" + rev
				if modified == "true" {
					v += ".dirty"
				}
			}
		}
	}
	goVersion := "unknown"
	if ok {
		goVersion = info.GoVersion
	}
	return fmt.Sprintf("svc %s (%s)", v, goVersion)
}

// commandHelp is the synopsis and description of each command, keyed by its flag set's name.
var commandHelp = map[string]struct{ synopsis, text string }{
	"serve": {"[flags]", `Applies the database migrations, then serves the API until SIGINT or SIGTERM; in-flight
requests then get --shutdown-timeout to finish. Every flag can also be set by the environment
variable named in brackets; a flag wins over its variable.`},
	"migrate": {"[--database-url URL]", `Applies the database migrations that are not applied yet, prints the schema version and exits.`},
	"key create": {"--email EMAIL [--database-url URL]", `Creates the user when the email is new, then prints a new API key for it, alone on stdout.
The key is shown only once; the database keeps its hash.`},
	"key revoke":   {"--key KEY [--database-url URL]", `Revokes an API key: requests with it are refused from then on.`},
	"user disable": {"--email EMAIL [--database-url URL]", `Disables a user: none of its API keys work any more.`},
	"user add-key": {"--email EMAIL --multibase z6Mk... [--database-url URL]", `Registers an Ed25519 public key (multibase, z6Mk...) on the user's profile, so that it
appears in the user's did.json document.`},
	"domain allow": {"[--database-url URL] DOMAIN", `Adds DOMAIN to the global registry of domains that namespaces may verify. "*.example.com"
allows every subdomain of example.com (but not example.com itself).`},
	"domain disallow": {"[--database-url URL] DOMAIN", `Removes DOMAIN (or *.DOMAIN) from the global registry of verifiable domains.`},
	"import": {"--url URL --key KEY --namespace NS --registry NAME [--batch N] FILE", `Reads NDJSON from FILE (- for stdin), one add-record body per line, and sends it through
add-records in whole batches, retrying on 429 and 5xx. A rerun skips records that already
exist; a bad line stops the import with its line number (only the batches before it are written).`},
	"log key create": {"--origin ORIGIN --out FILE", `Creates FILE (mode 0600; an existing file is refused) holding a new Ed25519 signer key for
the transparency log of that origin, and prints its verifier key alone on stdout. Give the file
to every instance as SVC_LOG_KEY_FILE and the verifier key to the log's readers.`},
	"verify": {"[--kind namespace|registry|record] [(--log-key VKEY [--witness-key WKEY... --witness-quorum Q] | --policy POLICY) (--inclusion PROOF | --proof TLOGPROOF | --url URL | --current ...)] FILE", `Recomputes the digest of a saved lookup response (FILE, - for stdin) offline, trusting only
the proof package. With --log-key it also checks that the lookup's version is in the
transparency log: the inclusion proof (GET /svc/log/inclusion/{version}, saved in PROOF or
fetched from the service at URL) must carry a checkpoint signed by VKEY, its leaf must be the
leaf of the lookup (kind, ids, version, version_count, digest), and its audit path must lead to
the checkpoint's root hash. --proof TLOGPROOF takes a saved C2SP tlog-proof (GET
/svc/log/proof/{version}) instead; without FILE, svc verify --proof checks the proof alone and
prints the leaf it proves. --policy POLICY (a C2SP tlog-policy: GET /svc/log/policy, or the
operator's) stands for --log-key, --witness-key and --witness-quorum. With --current
[--max-age D] it checks that the version is the entry's latest logged one, from the state
answer of --state FILE, of the service at --url, or carried by a lookup made with
prove=current, and prints current, superseded, absent, stale_checkpoint, bad_proof or fork.
Exit status 0 when it verifies (current), 1 with a one-line reason when it does not.`},
	"log restart": {"--origin ORIGIN --yes [--database-url URL]", `Starts a new, empty transparency log under ORIGIN in place of the database's log, as a
database restored from a backup must (extending its old log would fork it). Removes the old
log's tiles, bundles and checkpoints, queues every public version again in creation order, and
records ORIGIN, so that instances still holding the old key refuse to extend the new log.
Stop every instance first; start them again with SVC_LOG_ORIGIN=ORIGIN and a signer key for
it (svc log key create), and publish the new verifier key. --yes confirms the removal.`},
	"log monitor": {"--url URL --log-key VKEY --state FILE [--key KEY] [--retries N] [--max-wait D]", `Follows the transparency log of the service at URL. Fetches its checkpoint and checks the
signature with VKEY, checks with a consistency proof that the checkpoint kept in FILE is a
prefix of it, reads the new leaves from the entry bundles and checks that each is a canonical
leaf and that the version_count of each entry grows by exactly one per logged version; then
stores the new checkpoint (and each entry's last version_count, 17 bytes an entry) in FILE,
which the first run creates. A request answered 429, 502, 503 or 504, or not answered, is
retried after its Retry-After (else 1 s, 2 s, 4 s...), each wait at most --max-wait; --key sends
an API key, so that the key's own rate limit applies. Exit status 0 when all holds; 1 with
"FAILED:" naming the first inconsistency; 2 with "ERROR:" and the reason when the log could not
be read (or FILE could not be read or written): nothing was concluded. FILE is left as it was
unless the run passes.`},
	"dedi verify": {"FILE (--manifest MANIFEST [--digests DIGESTS] | --fetch) [--at RFC3339] [--state STATE]", `Verifies a DeDi file (docs/dedi-files.md): its shape, its signature by its embedded key, that
the publisher's manifest is authentic and lists the file's key and registry, that its bytes have
the digest the publisher commits to (the digests document's, which takes precedence, or the
manifest's), that all are fresh at --at (default now), that the registry is live and that every
record conforms to the registry's schema. Prints the outcome word alone on stdout (authentic,
invalid, bad_signature, not_authenticated, digest_mismatch, stale, inactive, rollback,
schema_unavailable, unavailable_authority, unsupported_key or a digests_* word) and the reason
on stderr; exit status 0 only for authentic. --manifest takes a saved manifest as served from
its own domain's well-known URL, and --digests the saved digests document it names, if any;
--fetch gets both from https://{publisher.domain}/.well-known/dedi.index.json under the fetch
rules of domain verification (SVC_DNS_SERVER, SVC_VERIFY_HTTP_PORT, SVC_VERIFY_INSECURE), and
with --fetch FILE may be an https URL (the digests document is fetched once more when the file
does not have the digest it lists). Offline, a registry schema given by URL cannot be had
(schema_unavailable), except the seven core schemas, which are pinned in the binary. --state keeps, in STATE, the last accepted manifest of each domain and the
updated_at of each accepted file: an older manifest or file is then a rollback, and when --fetch
cannot get the manifest the kept one stands in until its next_update (then
unavailable_authority).`},
	"dedi key create": {"--kid KID --out FILE", `Creates FILE (mode 0600; an existing file is refused) holding a new private Ed25519 JWK named
KID, for signing DeDi files with svc dedi export, and prints its public JWK alone on stdout.
The private key never leaves this machine.`},
	"dedi export": {"--url URL --namespace NS --key FILE --base-url URL --valid-for DURATION --out DIR [--domain D] [--inline-max N] [--extra-key PUBLIC_JWK_FILE]... [--digests [--manifest-valid-for DURATION]]", `Reads a namespace through the service's public API at --url (anonymously: only what anyone
may read) and writes, signed locally with the private JWK of --key, one DeDi file per registry,
DIR/dedi.<registry>.json, holding the registry's live records, and the manifest
DIR/.well-known/dedi.index.json listing them by URL (--base-url + dedi.<registry>.json) and
SHA-256. The publisher domain, also the files' namespace, is --domain or the host of
--base-url. A registry of at most --inline-max records is embedded in the manifest instead
(0, the default, never). Both expire --valid-for after now. Exporting again into the same DIR
keeps a registry's updated_at (and the manifest's) when its content did not change, so that
only next_update moves. --extra-key lists further public keys in the manifest (a key
rotation's overlap). With --digests, the files' digests go into a signed digests document,
DIR/dedi.digests.json (at --base-url + dedi.digests.json), that the manifest names instead of
listing them: a content change then re-signs that document and the changed files only, and the
manifest keeps its bytes until its keys or registries change or half of --manifest-valid-for
(default --valid-for) is left; an unchanged file keeps its bytes until half of --valid-for is
left. Serve DIR's dedi.*.json files at --base-url and DIR/.well-known/dedi.index.json at
https://{domain}/.well-known/dedi.index.json.`},
	"dedi publisher add": {"DOMAIN [--database-url URL]", `Adds DOMAIN to the DeDi publishers this server crawls (docs/dedi-files.md, "The server's side"):
svc serve fetches https://DOMAIN/.well-known/dedi.index.json and the files it lists, verifies
them end to end and serves them as the read-only namespace DOMAIN. A domain that a local
namespace has verified is not ingested (its crawl reports conflict).`},
	"dedi publisher remove": {"DOMAIN [--database-url URL]", `Stops crawling DOMAIN and forgets its fetched documents. The namespace indexed from it stays,
read-only, with every version it has.`},
	"dedi list add": {"URL [--database-url URL]", `Adds a discovery list (domains.txt, https only): one publisher domain or list URL per line,
followed to a depth of 3; the publishers it names are added as the crawler reads it.`},
	"dedi list remove": {"URL [--database-url URL]", `Removes a discovery list (the publishers it added stay).`},
	"dedi crawl": {"[DOMAIN] [--database-url URL]", `Reads the discovery lists, then crawls every publisher (or only DOMAIN) once, now, under the
fetch rules of domain verification (SVC_DNS_SERVER, SVC_VERIFY_HTTP_PORT, SVC_VERIFY_INSECURE)
and the server's bounds (SVC_DEDI_CRAWL_BUDGET, SVC_DEDI_MAX_FILES), naming the server's DID
(SVC_DID_HOST, else localhost and the port of SVC_ADDR, as svc serve does) as the creator of
what it indexes. It prints each publisher's status and outcome and each file's outcome and
state; a file refused is its outcome, not a failure of the command.`},
}

// groupHelp lists the subcommands of the commands that have them.
var groupHelp = map[string]string{
	"key":    "usage: svc key create --email EMAIL | svc key revoke --key KEY\n",
	"user":   "usage: svc user disable --email EMAIL | svc user add-key --email EMAIL --multibase z6Mk...\n",
	"domain": "usage: svc domain allow DOMAIN | svc domain disallow DOMAIN\n",
	"dedi":   "usage: svc dedi verify FILE (--manifest M [--digests D] | --fetch) [--at T] | svc dedi key create --kid K --out FILE | svc dedi export --url URL --namespace NS --key FILE --base-url URL --valid-for D --out DIR | svc dedi publisher add|remove DOMAIN | svc dedi list add|remove URL | svc dedi crawl [DOMAIN]\n",
	"log":    "usage: svc log key create --origin ORIGIN --out FILE | svc log monitor --url URL --log-key VKEY --state FILE [--key KEY] | svc log restart --origin ORIGIN --yes\n",
}

// describe gives fs the help text of its command; -h and --help print it.
func describe(fs *flag.FlagSet) {
	h, ok := commandHelp[fs.Name()]
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: svc %s %s\n", fs.Name(), h.synopsis)
		if ok {
			fmt.Fprintf(w, "\n%s\n", h.text)
		}
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
}

// parseCommandFlags parses args with fs. A request for help (-h, --help) comes back as
// flag.ErrHelp, after the help text went to fs.Output(); other mistakes are errUsage.
func parseCommandFlags(fs *flag.FlagSet, args []string) error {
	describe(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flag.ErrHelp
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch strings.TrimLeft(arg, "-") {
	case "h", "help":
		return true
	}
	return false
}

// printGroupHelp prints the subcommands of key, user or domain.
func printGroupHelp(w io.Writer, cmd string) {
	fmt.Fprint(w, groupHelp[cmd])
	fmt.Fprintf(w, "Run \"svc %s <subcommand> -h\" for the flags of a subcommand.\n", cmd)
}
