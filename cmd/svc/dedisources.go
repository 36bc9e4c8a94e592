package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/svc-directory/svc/dedi/discovery"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/domainverify"
)

// cmdDediPublisher adds or removes a publisher the server crawls: svc dedi publisher add|remove
// DOMAIN.
func cmdDediPublisher(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	var dbURL string
	fs := newFlags("dedi publisher "+verb, stderr, &dbURL)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	domain, err := domainverify.NormalizeDomain(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "warn"))
	if err != nil {
		return err
	}
	defer s.Close()
	if verb == "add" {
		added, err := s.AddDediPublisher(ctx, domain)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s %s\n", map[bool]string{true: "added", false: "already a publisher:"}[added], domain)
		return nil
	}
	removed, err := s.RemoveDediPublisher(ctx, domain)
	if err != nil {
		return err
	}
	if !removed {
		return fmt.Errorf("%s is not a publisher", domain)
	}
	fmt.Fprintf(stdout, "removed %s (its namespace and versions stay, read-only)\n", domain)
	return nil
}

// cmdDediList adds or removes a discovery list: svc dedi list add|remove URL.
func cmdDediList(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	var dbURL string
	fs := newFlags("dedi list "+verb, stderr, &dbURL)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	u, err := discovery.NormalizeListURL(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	s, err := openStore(ctx, dbURL, newLogger(stderr, "warn"))
	if err != nil {
		return err
	}
	defer s.Close()
	if verb == "add" {
		added, err := s.AddDediList(ctx, u)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s %s\n", map[bool]string{true: "added", false: "already a list:"}[added], u)
		return nil
	}
	removed, err := s.RemoveDediList(ctx, u)
	if err != nil {
		return err
	}
	if !removed {
		return fmt.Errorf("%s is not a discovery list", u)
	}
	fmt.Fprintf(stdout, "removed %s\n", u)
	return nil
}

// cmdDediCrawl crawls once: the discovery lists (adding the publishers they name), then every
// publisher (svc dedi crawl [DOMAIN]: only that one).
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
	log := newLogger(stderr, "warn")
	s, err := openStore(ctx, dbURL, log)
	if err != nil {
		return err
	}
	defer s.Close()
	f := fetch.New(opts)
	svc := ingest.New(ingest.Config{Store: s, Fetcher: f, Logger: log, Now: time.Now})
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
	for _, d := range domains {
		rep, err := svc.Crawl(ctx, d)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		fmt.Fprintf(stdout, "%s %s requests=%d new_versions=%d\n", d, rep.Outcome, rep.Requests, rep.NewVersions)
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
	return nil
}
