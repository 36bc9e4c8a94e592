package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/gen/client"
)

// cmdDediExport writes a namespace as signed DeDi files and their manifest (see the help of
// "dedi export" in help.go).
func cmdDediExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return exportWith(ctx, args, stdout, stderr, time.Now)
}

// exporter holds one run of svc dedi export.
type exporter struct {
	api       *client.ClientWithResponses
	ns        string
	key       dedi.PrivateKey
	extraKeys []dedi.Key
	baseURL   string // ends with "/"
	domain    string
	validFor  time.Duration
	dir       string
	inlineMax int
	now       time.Time
	stdout    io.Writer
	stderr    io.Writer
	previous  *dedi.Manifest // the manifest of the last export into dir, if any
	// previousContent is manifestContent of previous, taken before the files are replaced.
	previousContent string
	// digests: the files' digests go into a signed digests document (dedi.digests.json) that
	// the manifest names (digests.go); manifestValidFor is the manifest's freshness then.
	digests          bool
	manifestValidFor time.Duration
	previousDigests  *dedi.Digests
	fileDigests      map[string]string // registry → digest of the file written, for the digests document
}

// exportWith is cmdDediExport with the clock now.
func exportWith(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	fs := flag.NewFlagSet("dedi export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("url", envOr("SVC_URL", "http://localhost:8080"), "the service's base URL [SVC_URL]")
	ns := fs.String("namespace", "", "namespace id or verified domain (required)")
	keyFile := fs.String("key", "", "the private JWK to sign with (svc dedi key create; required)")
	fileBase := fs.String("base-url", "", "the https URL the files will be served under, e.g. https://example.org/dedi/ (required)")
	validFor := fs.Duration("valid-for", 0, "how long the files and the manifest stay fresh (next_update = now + this; required)")
	out := fs.String("out", "", "the directory to write (required)")
	domain := fs.String("domain", "", "the publisher domain and namespace of the files (default: the host of --base-url)")
	inlineMax := fs.Int("inline-max", 0, "embed a registry of at most this many records in the manifest (0: never)")
	withDigests := fs.Bool("digests", false, "write the files' digests into a signed digests document (dedi.digests.json) that the manifest names")
	manifestValidFor := fs.Duration("manifest-valid-for", 0, "with --digests: how long the manifest stays fresh (default --valid-for)")
	var extra []string
	fs.Func("extra-key", "a public JWK file whose key the manifest also lists (repeat for more)", func(s string) error {
		extra = append(extra, s)
		return nil
	})
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *ns == "" || *keyFile == "" || *fileBase == "" || *validFor <= 0 || *out == "" || *inlineMax < 0 || *manifestValidFor < 0 {
		return fmt.Errorf("%w: dedi export needs --namespace, --key, --base-url, a positive --valid-for, --out and an --inline-max of 0 or more", errUsage)
	}
	if *manifestValidFor > 0 && !*withDigests {
		return fmt.Errorf("%w: --manifest-valid-for goes with --digests", errUsage)
	}
	if *manifestValidFor == 0 {
		*manifestValidFor = *validFor
	}
	base, err := url.Parse(*fileBase)
	if err != nil || base.Scheme != "https" || base.Host == "" || base.User != nil || base.RawQuery != "" || base.Fragment != "" {
		return fmt.Errorf("%w: --base-url %q must be an https URL without credentials, query or fragment", errUsage, *fileBase)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	if *domain == "" {
		*domain = base.Hostname()
	}
	d, err := domainverify.NormalizeDomain(*domain)
	if err != nil {
		return fmt.Errorf("%w: --domain: %v", errUsage, err)
	}
	raw, err := os.ReadFile(*keyFile)
	if err != nil {
		return err
	}
	key, err := dedi.ParsePrivateJWK(raw)
	if err != nil {
		return fmt.Errorf("%s: %v", *keyFile, err)
	}
	e := &exporter{ns: *ns, key: key, baseURL: base.String(), domain: d, validFor: *validFor, dir: *out,
		inlineMax: *inlineMax, now: now().UTC().Truncate(time.Second), stdout: stdout, stderr: stderr,
		digests: *withDigests, manifestValidFor: *manifestValidFor, fileDigests: map[string]string{}}
	for _, name := range extra {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		k, err := dedi.ParsePublicJWK(b)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		e.extraKeys = append(e.extraKeys, k)
	}
	if e.api, err = client.NewClientWithResponses(strings.TrimRight(*baseURL, "/"), client.WithHTTPClient(&http.Client{Timeout: 2 * time.Minute})); err != nil {
		return err
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, ".well-known", "dedi.index.json")); err == nil {
		if e.previous, _ = dedi.ParseManifest(b, dedi.Limits{}); e.previous != nil {
			e.previousContent = manifestContent(e.previous, e.dir)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, digestsName)); err == nil {
		e.previousDigests, _ = dedi.ParseDigests(b, dedi.Limits{})
	}
	return e.run(ctx)
}

func (e *exporter) run(ctx context.Context) error {
	nsRes, err := e.api.LookupNamespaceWithResponse(ctx, e.ns, nil)
	if err != nil {
		return err
	}
	if nsRes.JSON200 == nil {
		return fmt.Errorf("namespace %s: HTTP %d %s", e.ns, nsRes.StatusCode(), message(nsRes.Body))
	}
	regs, err := e.registries(ctx)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(e.dir, ".well-known"), 0o755); err != nil {
		return err
	}
	next := e.now.Add(e.validFor)
	m := &dedi.Manifest{Domain: e.domain, Name: nsRes.JSON200.Data.Name, Description: nsRes.JSON200.Data.Description,
		Keys: append([]dedi.Key{e.key.Public()}, e.extraKeys...), NextUpdate: next}
	if e.digests {
		m.DigestsURL, m.NextUpdate = e.baseURL+digestsName, e.now.Add(e.manifestValidFor)
		if slices.ContainsFunc(regs, func(r client.RegistryListEntry) bool { return "dedi."+r.RegistryName+".json" == digestsName }) {
			return fmt.Errorf("registry digests would be written over the digests document %s: export it without --digests", digestsName)
		}
	}
	for _, r := range regs {
		entry, err := e.exportRegistry(ctx, r, next)
		if errors.Is(err, errSkipped) {
			continue
		}
		if err != nil {
			return fmt.Errorf("registry %s: %w", r.RegistryName, err)
		}
		m.Files = append(m.Files, entry)
	}
	m.UpdatedAt = e.now
	if e.previous != nil && e.previousContent == manifestContent(m, e.dir) {
		m.UpdatedAt = e.previous.UpdatedAt
	}
	if e.digests {
		if err := e.writeDigests(next); err != nil {
			return err
		}
		if e.keepManifest(m) {
			fmt.Fprintf(e.stdout, ".well-known/dedi.index.json: %d file(s), unchanged (next_update %s)\n",
				len(m.Files), e.previous.NextUpdate.Format(time.RFC3339))
			return nil
		}
	}
	b, err := dedi.SignManifest(m, e.key)
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(e.dir, ".well-known", "dedi.index.json"), b); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, ".well-known/dedi.index.json: %d file(s), updated_at %s, next_update %s\n",
		len(m.Files), m.UpdatedAt.Format(time.RFC3339), m.NextUpdate.Format(time.RFC3339))
	return nil
}

// errSkipped marks a registry anyone may not query: it is not published.
var errSkipped = errors.New("skipped")

// registries lists every registry of the namespace, by name.
func (e *exporter) registries(ctx context.Context) ([]client.RegistryListEntry, error) {
	var out []client.RegistryListEntry
	sort := client.QueryRegistriesParamsSortName
	for page := int64(1); ; page++ {
		size := int64(100)
		res, err := e.api.QueryRegistriesWithResponse(ctx, e.ns, &client.QueryRegistriesParams{Sort: &sort, Page: &page, PageSize: &size})
		if err != nil {
			return nil, err
		}
		if res.JSON200 == nil {
			return nil, fmt.Errorf("registries of %s: HTTP %d %s", e.ns, res.StatusCode(), message(res.Body))
		}
		out = append(out, res.JSON200.Data.Registries...)
		if page >= res.JSON200.Data.TotalPages {
			return out, nil
		}
	}
}

// liveRecords lists the records of a registry that read as live, by name.
func (e *exporter) liveRecords(ctx context.Context, registry string) ([]dedi.Record, error) {
	var out []dedi.Record
	sort, state := client.QueryRecordsParamsSortName, client.RecordEffectiveStateLive
	for page := int64(1); ; page++ {
		size := int64(100)
		res, err := e.api.QueryRecordsWithResponse(ctx, e.ns, registry, &client.QueryRecordsParams{Sort: &sort, State: &state, Page: &page, PageSize: &size})
		if err != nil {
			return nil, err
		}
		if res.StatusCode() == http.StatusForbidden {
			return nil, errSkipped
		}
		if res.JSON200 == nil {
			return nil, fmt.Errorf("HTTP %d %s", res.StatusCode(), message(res.Body))
		}
		for _, r := range res.JSON200.Data.Records {
			out = append(out, dedi.Record{Name: r.RecordName, Details: r.Details, Description: r.Description, Meta: nonEmpty(r.Meta)})
		}
		if page >= res.JSON200.Data.TotalPages {
			return out, nil
		}
	}
}

func nonEmpty(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// fileState is the DeDi state of a registry: live and archived (read-only, still in force)
// are live; inactive and revoked are inactive (a revoked registry's records all read as
// revoked, so its file has none).
func fileState(s client.RegistryState) string {
	if s == "live" || s == "archived" {
		return "live"
	}
	return "inactive"
}

// exportRegistry writes one registry's file (or makes its inline entry) and returns its
// manifest entry. updated_at stays that of the last export when the content is the same.
func (e *exporter) exportRegistry(ctx context.Context, r client.RegistryListEntry, next time.Time) (dedi.Entry, error) {
	recs, err := e.liveRecords(ctx, r.RegistryName)
	if errors.Is(err, errSkipped) {
		fmt.Fprintf(e.stderr, "registry %s is not published: its records are not public (query_allowed is false)\n", r.RegistryName)
		return dedi.Entry{}, err
	}
	if err != nil {
		return dedi.Entry{}, err
	}
	inline := e.inlineMax > 0 && len(recs) <= e.inlineMax
	name := "dedi." + r.RegistryName + ".json"
	f := &dedi.File{SourceURL: e.baseURL + name, NextUpdate: next, Publisher: dedi.Publisher{Domain: e.domain}, Namespace: e.domain,
		Registry: dedi.Registry{Name: r.RegistryName, Schema: map[string]any(r.Schema), State: fileState(r.State), UpdatedAt: e.now,
			Description: r.Description, Meta: nonEmpty(r.Meta)}, Records: recs}
	if inline {
		f.SourceURL = dedi.WellKnownURL(e.domain)
	}
	if c := dedi.CoreSchemaMatching(f.Registry.Schema); c != nil {
		f.Registry.Schema = c.URL() // a core schema: named by its pinned URL, as the draft wants
	}
	prev, prevBytes := e.previousFile(r.RegistryName)
	same := prev != nil && fileContent(prev) == fileContent(f)
	if same {
		f.Registry.UpdatedAt = prev.Registry.UpdatedAt
	}
	if e.keepFile(inline, same, prev, f) {
		// Unchanged and still fresh for half its validity: its bytes stay (no re-signing).
		if err := writeAtomic(filepath.Join(e.dir, name), prevBytes); err != nil {
			return dedi.Entry{}, err
		}
		e.fileDigests[r.RegistryName] = dedi.Digest(prevBytes)
		fmt.Fprintf(e.stdout, "%s: %d record(s), unchanged since %s, kept (next_update %s)\n", name, len(recs),
			f.Registry.UpdatedAt.Format(time.RFC3339), prev.NextUpdate.Format(time.RFC3339))
		return dedi.Entry{Registry: r.RegistryName, URL: f.SourceURL}, nil
	}
	b, err := dedi.SignFile(f, e.key)
	if err != nil {
		return dedi.Entry{}, err
	}
	changed := "changed"
	if !f.Registry.UpdatedAt.Equal(e.now) {
		changed = "unchanged since " + f.Registry.UpdatedAt.Format(time.RFC3339)
	}
	if inline {
		g, err := dedi.ParseFile(b, dedi.Limits{MaxFileBytes: 1 << 40})
		if err != nil {
			return dedi.Entry{}, err
		}
		canon, err := g.Canonical()
		if err != nil {
			return dedi.Entry{}, err
		}
		fmt.Fprintf(e.stdout, "%s: %d record(s), inline in the manifest, %s\n", r.RegistryName, len(recs), changed)
		return dedi.Entry{Registry: r.RegistryName, Inline: canon}, nil
	}
	if err := writeAtomic(filepath.Join(e.dir, name), b); err != nil {
		return dedi.Entry{}, err
	}
	fmt.Fprintf(e.stdout, "%s: %d record(s), %s\n", name, len(recs), changed)
	if e.digests {
		e.fileDigests[r.RegistryName] = dedi.Digest(b)
		return dedi.Entry{Registry: r.RegistryName, URL: f.SourceURL}, nil
	}
	return dedi.Entry{Registry: r.RegistryName, URL: f.SourceURL, Digest: dedi.Digest(b)}, nil
}

// writeAtomic replaces name with b, so that a server reading the directory never sees half a
// file.
func writeAtomic(name string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-"+filepath.Base(name)+"-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}
