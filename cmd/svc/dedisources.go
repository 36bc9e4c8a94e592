package main

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/svc-directory/svc/dedi/discovery"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/store"
)

// dediSource is a kind of source the server crawls from, which svc dedi adds and removes:
// publishers (svc dedi publisher add|remove DOMAIN) and discovery lists (svc dedi list
// add|remove URL).
type dediSource struct {
	what      string // "publisher", "list"
	normalize func(string) (string, error)
	add       func(*store.Store, context.Context, string) (bool, error)
	remove    func(*store.Store, context.Context, string) (bool, error)
	already   string // the word for one that is there already
	notOne    string // the error for removing one that is not there
	removed   string // what stays after a removal
}

var (
	dediPublishers = dediSource{what: "publisher", normalize: domainverify.NormalizeDomain,
		add: (*store.Store).AddDediPublisher, remove: (*store.Store).RemoveDediPublisher,
		already: "already a publisher:", notOne: "is not a publisher", removed: " (its namespace and versions stay, read-only)"}
	dediLists = dediSource{what: "list", normalize: discovery.NormalizeListURL,
		add: (*store.Store).AddDediList, remove: (*store.Store).RemoveDediList,
		already: "already a list:", notOne: "is not a discovery list"}
)

// cmdDediPublisher adds or removes a publisher the server crawls.
func cmdDediPublisher(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	return dediPublishers.run(ctx, verb, args, stdout, stderr)
}

// cmdDediList adds or removes a discovery list.
func cmdDediList(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	return dediLists.run(ctx, verb, args, stdout, stderr)
}

// run adds (verb add) or removes (remove) the source its one argument names.
func (k dediSource) run(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	var dbURL string
	fs := newFlags("dedi "+k.what+" "+verb, stderr, &dbURL)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	name, err := k.normalize(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "warn"))
	if err != nil {
		return err
	}
	defer s.Close()
	if verb == "add" {
		added, err := k.add(s, ctx, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s %s\n", map[bool]string{true: "added", false: k.already}[added], name)
		return nil
	}
	removed, err := k.remove(s, ctx, name)
	if err != nil {
		return err
	}
	if !removed {
		return fmt.Errorf("%s %s", name, k.notOne)
	}
	fmt.Fprintf(stdout, "removed %s%s\n", name, k.removed)
	return nil
}

// cmdDediCrawl crawls once: the discovery lists (adding the publishers they name), then every
// publisher (svc dedi crawl [DOMAIN]: only that one), SVC_DEDI_CRAWL_CONCURRENCY at once; the
// reports are printed in the order of the domains.
func cmdDediCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var dbURL string
	fs := newFlags("dedi crawl", stderr, &dbURL)
	if err := parseCommandFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("%w: dedi crawl takes at most one domain", errUsage)
	}
	opts, err := fetchOptions()
	if err != nil {
		return err
	}
	// The server's settings (SVC_*): its DID, the creator of what is indexed, whichever
	// command crawls, and the bounds of a crawl.
	cfg, err := parseServeConfig(nil, io.Discard)
	if err != nil {
		return err
	}
	if err := cfg.settleDIDHostOffline(); err != nil {
		return err
	}
	log := newLogger(stderr, "warn")
	s, err := openStore(ctx, dbURL, log)
	if err != nil {
		return err
	}
	defer s.Close()
	f := fetch.New(opts)
	svc := ingest.New(cfg.crawler(s, f, log))
	domains := []string{fs.Arg(0)}
	if fs.NArg() == 0 {
		if err := ingest.ReadLists(ctx, s, f, log); err != nil {
			return err
		}
		pubs, err := s.DediPublishers(ctx)
		if err != nil {
			return err
		}
		domains = domains[:0]
		for _, p := range pubs {
			domains = append(domains, p.Domain)
		}
	}
	sort.Strings(domains)
	reps, errs := svc.CrawlEach(ctx, domains) // SVC_DEDI_CRAWL_CONCURRENCY at once
	var failed error
	for i, d := range domains {
		rep := reps[i]
		if err := errs[i]; err != nil {
			fmt.Fprintf(stdout, "%s error: %v\n", d, err)
			if failed == nil {
				failed = fmt.Errorf("%s: %w", d, err)
			}
			continue
		}
		digests := ""
		if rep.Digests != "" {
			digests = " digests=" + rep.Digests // the digests document's outcome, when the manifest names one
		}
		fmt.Fprintf(stdout, "%s %s %s requests=%d new_versions=%d%s\n", d, rep.Status, rep.Outcome, rep.Requests, rep.NewVersions, digests)
		names := make([]string, 0, len(rep.Files))
		for n := range rep.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fr := rep.Files[n]
			fmt.Fprintf(stdout, "  %s %s state=%s new_versions=%d %s\n", n, fr.Outcome, fr.State, fr.NewVersions, fr.Reason)
		}
	}
	return failed // only a failure of the store, not a publisher's refused document
}
