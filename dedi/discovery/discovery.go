// Package discovery reads DeDi discovery lists (domains.txt): one publisher domain or the
// https URL of another list per line, "#" comments, and an optional first line
// "# head: <value>" that changes whenever the entries do. Parse is pure; Walk follows the
// lists named by lists through a small fetcher interface, to a bounded depth, visiting no list
// and reporting no domain twice.
package discovery

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/svc-directory/svc/domainverify"
)

// List is a parsed discovery list.
type List struct {
	Head    string   // the value of a first "# head:" line; "" when there is none
	Domains []string // publisher domains, normalized (lowercase, punycode), each once, in order
	Lists   []string // https URLs of further lists, each once, in order
	Errors  []string // lines that are neither, e.g. `line 7: "http://x/l.txt" is not https`
}

// MaxErrors bounds the errors a list reports.
const MaxErrors = 20

// Parse reads a discovery list. Blank lines and lines starting with "#" are skipped; the
// first non-blank line may be "# head: <value>". Every other line is an https URL (a list) or
// a domain; anything else is an error of that line, and the rest is still read.
func Parse(text []byte) List {
	var l List
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	first := true
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if line == "" {
			continue
		}
		isFirst := first
		first = false
		if strings.HasPrefix(line, "#") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line[1:]), "head:"); ok && isFirst {
				l.Head = strings.TrimSpace(rest)
			}
			continue
		}
		entry, isList, err := parseEntry(line)
		if err != nil {
			if len(l.Errors) < MaxErrors {
				l.Errors = append(l.Errors, fmt.Sprintf("line %d: %v", n, err))
			}
			continue
		}
		if seen[entry] {
			continue
		}
		seen[entry] = true
		if isList {
			l.Lists = append(l.Lists, entry)
		} else {
			l.Domains = append(l.Domains, entry)
		}
	}
	if err := sc.Err(); err != nil && len(l.Errors) < MaxErrors {
		l.Errors = append(l.Errors, err.Error())
	}
	return l
}

// parseEntry reads one entry: an https URL (a list, in normalized form) or a domain.
func parseEntry(s string) (string, bool, error) {
	if i := strings.Index(s, "://"); i >= 0 {
		u, err := NormalizeListURL(s)
		return u, true, err
	}
	d, err := domainverify.NormalizeDomain(s)
	if err != nil {
		return "", false, fmt.Errorf("%q is neither a domain nor an https URL", short(s))
	}
	return d, false, nil
}

// NormalizeListURL checks that s is an absolute https URL without credentials and returns it
// with a lowercase host and no fragment (the form lists are told apart by).
func NormalizeListURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a URL", short(s))
	}
	if u.Scheme != "https" {
		return "", fmt.Errorf("%q is not https", short(s))
	}
	if u.User != nil {
		return "", fmt.Errorf("%q has credentials", short(s))
	}
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	return u.String(), nil
}

func short(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// Fetcher fetches a list's text (dedi/fetch.Fetcher does, under the fetch rules).
type Fetcher interface {
	FetchList(ctx context.Context, url string) ([]byte, error)
}

// Options bound a walk.
type Options struct {
	// MaxDepth is how many levels of lists named by lists are followed below the roots
	// (depth 0); default 3.
	MaxDepth int
	// MaxLists bounds the lists fetched in one walk; default 1000.
	MaxLists int
	// Heads are the heads last seen, by list URL: a list whose head is the same has not
	// changed, and its domains are not reported again (the lists it names are still read:
	// each has its own head).
	Heads map[string]string
}

// Visit is one list of a walk.
type Visit struct {
	URL       string
	Depth     int
	Head      string
	Unchanged bool     // its head is the one last seen
	Domains   []string // the domains it lists (also when unchanged)
	Errors    []string // its bad lines
	Err       error    // it could not be fetched, or was not followed (too deep, too many, seen)
}

// Result is what a walk found.
type Result struct {
	// Domains are the domains of the lists that changed, each once, in the order found.
	Domains []string
	// Lists are the lists met, in the order met, including those not followed and why.
	Lists []Visit
}

// Walk reads the root lists and the lists they name, breadth first, to MaxDepth levels below
// the roots, each list once (a list that names itself, or one seen before, is recorded with
// Err and not fetched again) and at most MaxLists of them.
func Walk(ctx context.Context, f Fetcher, roots []string, o Options) Result {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 3
	}
	if o.MaxLists <= 0 {
		o.MaxLists = 1000
	}
	type item struct {
		url   string
		depth int
	}
	var res Result
	visited := map[string]bool{}
	domains := map[string]bool{}
	var queue []item
	for _, r := range roots {
		u, err := NormalizeListURL(r)
		if err != nil {
			res.Lists = append(res.Lists, Visit{URL: r, Err: err})
			continue
		}
		queue = append(queue, item{u, 0})
	}
	fetched := 0
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		v := Visit{URL: it.url, Depth: it.depth}
		switch {
		case visited[it.url]:
			v.Err = fmt.Errorf("already visited in this walk")
		case it.depth > o.MaxDepth:
			v.Err = fmt.Errorf("deeper than %d levels of lists", o.MaxDepth)
		case fetched >= o.MaxLists:
			v.Err = fmt.Errorf("more than %d lists in one walk", o.MaxLists)
		}
		if v.Err != nil {
			res.Lists = append(res.Lists, v)
			continue
		}
		visited[it.url] = true
		fetched++
		text, err := f.FetchList(ctx, it.url)
		if err != nil {
			v.Err = err
			res.Lists = append(res.Lists, v)
			continue
		}
		l := Parse(text)
		v.Head, v.Domains, v.Errors = l.Head, l.Domains, l.Errors
		v.Unchanged = l.Head != "" && o.Heads[it.url] == l.Head
		if !v.Unchanged {
			for _, d := range l.Domains {
				if !domains[d] {
					domains[d] = true
					res.Domains = append(res.Domains, d)
				}
			}
		}
		for _, child := range l.Lists {
			queue = append(queue, item{child, it.depth + 1})
		}
		res.Lists = append(res.Lists, v)
	}
	return res
}
