package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/fetch"
)

// parseInterleaved parses flags given before, between and after the positional arguments
// (svc dedi verify FILE --manifest M), and wants exactly positional of them.
func parseInterleaved(fs *flag.FlagSet, args []string, positional int) ([]string, error) {
	var pos []string
	for {
		if err := parseCommandFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != positional {
		return nil, fmt.Errorf("%w: %s takes %d argument(s), got %q", errUsage, fs.Name(), positional, pos)
	}
	return pos, nil
}

// fetchOptions are the fetch rules of svc serve's domain verification, from the same
// variables: SVC_DNS_SERVER, SVC_VERIFY_HTTP_PORT and SVC_VERIFY_INSECURE (tests only).
func fetchOptions() (fetch.Options, error) {
	port, err := envInt("SVC_VERIFY_HTTP_PORT", 443)
	if err != nil {
		return fetch.Options{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	insecure, err := envBool("SVC_VERIFY_INSECURE", false)
	if err != nil {
		return fetch.Options{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	return fetch.Options{DNSServer: envOr("SVC_DNS_SERVER", ""), Port: port, Insecure: insecure}, nil
}

// cmdDediVerify checks a DeDi file: svc dedi verify FILE (--manifest M [--digests D] | --fetch)
// [--at T].
// It prints the outcome word alone on stdout, the reason on stderr, and exits 0 only for
// authentic.
func cmdDediVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dedi verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	manifestFile := fs.String("manifest", "", "the publisher's manifest, saved (taken as served from https://{its domain}/.well-known/dedi.index.json)")
	fetchIt := fs.Bool("fetch", false, "fetch the manifest from https://{publisher.domain}/.well-known/dedi.index.json (and FILE when it is an https URL)")
	at := fs.String("at", "", "evaluate freshness at this RFC 3339 time (default now)")
	digestsFile := fs.String("digests", "", "the publisher's digests document, saved, when its manifest names one (with --manifest; --fetch fetches it)")
	stateFile := fs.String("state", "", "what was accepted before (created when missing): refuse rollbacks, and stand in for a manifest --fetch cannot get while it is fresh")
	pos, err := parseInterleaved(fs, args, 1)
	if err != nil {
		return err
	}
	if (*manifestFile == "") == !*fetchIt {
		return fmt.Errorf("%w: dedi verify needs exactly one of --manifest FILE and --fetch", errUsage)
	}
	if *digestsFile != "" && *fetchIt {
		return fmt.Errorf("%w: --digests goes with --manifest (--fetch fetches the digests document the manifest names)", errUsage)
	}
	now := time.Now()
	if *at != "" {
		if now, err = time.Parse(time.RFC3339Nano, *at); err != nil {
			return fmt.Errorf("%w: --at %q is not an RFC 3339 time", errUsage, *at)
		}
	}
	in := dedi.Input{Now: now}
	var f *fetch.Fetcher
	if *fetchIt {
		opts, err := fetchOptions()
		if err != nil {
			return err
		}
		f = fetch.New(opts)
		in.Limits = f.Limits()
		in.Schemas = dedi.NewSchemas(f, 0, 0, nil)
	}
	name := pos[0]
	if f != nil && strings.HasPrefix(name, "https://") {
		res, err := f.File(ctx, name, "", "")
		if err != nil {
			return dediOutcome(stdout, stderr, dedi.Result{Outcome: dedi.Invalid, Reason: "the file cannot be fetched: " + err.Error()})
		}
		in.File = res.Body
	} else if in.File, err = readCapped(name, dedi.DefaultMaxFileBytes); err != nil {
		return err
	}
	st, err := loadVerifyState(*stateFile)
	if err != nil {
		return err
	}
	if *manifestFile != "" {
		if in.Manifest, err = readCapped(*manifestFile, dedi.DefaultMaxManifestBytes); err != nil {
			return err
		}
		var head struct {
			Domain string `json:"domain"`
		}
		_ = json.Unmarshal(in.Manifest, &head)
		in.ManifestURL = dedi.WellKnownURL(strings.ToLower(head.Domain))
		if *digestsFile != "" {
			if in.Digests, err = readCapped(*digestsFile, dedi.DefaultMaxManifestBytes); err != nil {
				return err
			}
		}
	} else {
		parsed, perr := dedi.ParseFile(in.File, in.Limits)
		if perr != nil {
			return dediOutcome(stdout, stderr, dedi.Result{Outcome: dedi.OutcomeOf(perr), Reason: perr.(*dedi.Error).Reason})
		}
		res, ferr := f.Manifest(ctx, parsed.Publisher.Domain, "", "")
		if ferr != nil {
			fmt.Fprintf(stderr, "the manifest cannot be fetched: %v\n", ferr)
		} else {
			in.Manifest, in.ManifestURL = res.Body, res.URL
			in.Digests = fetchDigests(ctx, f, in.Manifest, stderr)
		}
	}
	if *stateFile != "" {
		st.accepted(&in)
	}
	res := dedi.Verify(ctx, in)
	if f != nil && res.Outcome == dedi.DigestMismatch && res.DigestFrom == dedi.FromDigests {
		// The publisher may have updated between the two fetches: the digests document once more.
		in.Digests = fetchDigests(ctx, f, in.Manifest, stderr)
		res = dedi.Verify(ctx, in)
	}
	if res.Outcome == dedi.Authentic && *stateFile != "" {
		if err := st.accept(*stateFile, in, res); err != nil {
			return err
		}
	}
	return dediOutcome(stdout, stderr, res)
}

// fetchDigests fetches the digests document a fetched manifest names (nil when it names none or
// it cannot be had: then the verification says digests_unavailable, unless --state has one).
func fetchDigests(ctx context.Context, f *fetch.Fetcher, manifest []byte, stderr io.Writer) []byte {
	m, err := dedi.ParseManifest(manifest, f.Limits())
	if err != nil || m.DigestsURL == "" {
		return nil
	}
	res, err := f.Digests(ctx, m.DigestsURL, "", "")
	if err != nil {
		fmt.Fprintf(stderr, "the digests document cannot be fetched: %v\n", err)
		return nil
	}
	return res.Body
}

// verifyState is what svc dedi verify --state keeps between runs: the last accepted manifest
// and digests document of each domain, as received, and the updated_at of each accepted file.
type verifyState struct {
	Manifests map[string]json.RawMessage `json:"manifests"`         // by domain
	Digests   map[string]json.RawMessage `json:"digests,omitempty"` // by domain
	Files     map[string]time.Time       `json:"files"`             // by "domain/registry"
}

func loadVerifyState(name string) (*verifyState, error) {
	st := &verifyState{Manifests: map[string]json.RawMessage{}, Digests: map[string]json.RawMessage{}, Files: map[string]time.Time{}}
	if name == "" {
		return st, nil
	}
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("%s: not a state file of svc dedi verify: %v", name, err)
	}
	return st, nil
}

// accepted fills in what was accepted before from the publisher the file names.
func (st *verifyState) accepted(in *dedi.Input) {
	var head struct {
		Publisher struct {
			Domain string `json:"domain"`
		} `json:"publisher"`
		Registry struct {
			Name string `json:"name"`
		} `json:"registry"`
	}
	if json.Unmarshal(in.File, &head) != nil {
		return
	}
	domain := strings.ToLower(head.Publisher.Domain)
	if raw, ok := st.Manifests[domain]; ok {
		in.Accepted.Manifest, _ = dedi.ParseManifest(raw, dedi.Limits{})
	}
	if raw, ok := st.Digests[domain]; ok {
		in.Accepted.Digests, _ = dedi.ParseDigests(raw, dedi.Limits{})
	}
	in.Accepted.FileUpdatedAt = st.Files[domain+"/"+head.Registry.Name]
}

// accept records an authentic file and the manifest it was checked against.
func (st *verifyState) accept(name string, in dedi.Input, res dedi.Result) error {
	if !res.Cached {
		st.Manifests[res.Manifest.Domain] = json.RawMessage(in.Manifest)
	}
	if res.Digests != nil && !res.DigestsCached {
		if st.Digests == nil {
			st.Digests = map[string]json.RawMessage{}
		}
		st.Digests[res.Manifest.Domain] = json.RawMessage(in.Digests)
	}
	st.Files[res.File.Publisher.Domain+"/"+res.File.Registry.Name] = res.File.Registry.UpdatedAt
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(name, append(b, '\n'))
}

// dediOutcome prints the outcome word on stdout and what it is about on stderr; anything but
// authentic is exit status 1.
func dediOutcome(stdout, stderr io.Writer, res dedi.Result) error {
	fmt.Fprintln(stdout, res.Outcome)
	if res.Outcome != dedi.Authentic {
		fmt.Fprintln(stderr, res.Reason)
		return errMismatch
	}
	f, m := res.File, res.Manifest
	fresh := earliest(f.NextUpdate, m.NextUpdate)
	if res.Digests != nil {
		fresh = earliest(fresh, res.Digests.NextUpdate)
	}
	fmt.Fprintf(stderr, "%s/%s: %d record(s), signed by %s (listed by the manifest of %s), fresh until %s\n",
		f.Namespace, f.Registry.Name, f.RecordCount(), f.Publisher.Key.Kid, m.Domain, fresh.UTC().Format(time.RFC3339))
	fmt.Fprintf(stderr, "dedi_version %s (manifest %s); digest: %s\n", f.Version, m.Version, digestText(res))
	return nil
}

// digestText says what the file's bytes were checked against.
func digestText(res dedi.Result) string {
	switch res.DigestFrom {
	case dedi.FromDigests:
		return "as the digests document lists (signed by " + res.Digests.Proof.VerificationMethod + ")"
	case dedi.FromManifest:
		return "as the manifest lists"
	case dedi.FromNone:
		return "none listed: the file rests on its signature and domain binding"
	}
	return "inline in the manifest"
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// readCapped reads at most max+1 bytes of a file: enough for the verifier to refuse one over
// the cap without reading all of it. A regular file is read into a buffer of its size.
func readCapped(name string, max int64) ([]byte, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	size := int64(512)
	if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() {
		size = min(fi.Size(), max) + 1
	}
	var b bytes.Buffer
	b.Grow(int(size))
	_, err = b.ReadFrom(io.LimitReader(fh, max+1))
	return b.Bytes(), err
}

// cmdDediKeyCreate writes a new private Ed25519 JWK (mode 0600; an existing file is refused)
// and prints its public JWK alone on stdout.
func cmdDediKeyCreate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dedi key create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kid := fs.String("kid", "", "the key's id, as proofs will name it (required)")
	out := fs.String("out", "", "the file to create for the private JWK (required; an existing file is refused)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *kid == "" || *out == "" {
		return fmt.Errorf("%w: dedi key create needs --kid and --out", errUsage)
	}
	k, err := dedi.GenerateKey(*kid)
	if err != nil {
		return err
	}
	fh, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := fh.Write(k.MarshalJWK()); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Close(); err != nil {
		return err
	}
	pub, _ := json.Marshal(k.Public())
	fmt.Fprintln(stdout, string(pub))
	return nil
}
