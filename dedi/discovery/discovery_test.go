package discovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/domainverify/dnstest"
)

func TestParse(t *testing.T) {
	l := Parse([]byte("\n# head: 2026-07-10T00:00:00Z\nexample.org\n  Univ.EDU.  \n# a comment\ngleif.org\nexample.org\n" +
		"https://Lists.Example.net/domains.txt#x\nhttp://lists.example.net/plain.txt\nftp://x.example/l\nnot a domain\nlocalhost\n10.0.0.1\n" +
		"https://lists.example.net/domains.txt\n# head: not-first\n"))
	want := List{
		Head:    "2026-07-10T00:00:00Z",
		Domains: []string{"example.org", "univ.edu", "gleif.org"},
		Lists:   []string{"https://lists.example.net/domains.txt"},
		Errors: []string{
			`line 9: "http://lists.example.net/plain.txt" is not https`,
			`line 10: "ftp://x.example/l" is not https`,
			`line 11: "not a domain" is neither a domain nor an https URL`,
			`line 12: "localhost" is neither a domain nor an https URL`,
			`line 13: "10.0.0.1" is neither a domain nor an https URL`,
		},
	}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("got  %#v\nwant %#v", l, want)
	}
	if got := Parse([]byte("example.org\n# head: x\n")); got.Head != "" {
		t.Fatalf("a head that is not the first line: %q", got.Head)
	}
	if got := Parse(nil); got.Head != "" || got.Domains != nil || got.Lists != nil || got.Errors != nil {
		t.Fatalf("empty list: %#v", got)
	}
}

// lists is a Fetcher over texts by URL; it counts the fetches.
type lists struct {
	texts map[string]string
	calls map[string]int
}

func (l *lists) FetchList(_ context.Context, url string) ([]byte, error) {
	l.calls[url]++
	s, ok := l.texts[url]
	if !ok {
		return nil, errors.New("HTTP 404")
	}
	return []byte(s), nil
}

func TestWalk(t *testing.T) {
	const root = "https://l.example/root.txt"
	src := &lists{calls: map[string]int{}, texts: map[string]string{
		root:                          "# head: r1\na.example\n" + root + "\nhttps://l.example/b.txt\nhttps://l.example/missing.txt\n",
		"https://l.example/b.txt":     "b.example\na.example\nhttps://l.example/c.txt\n" + root + "\n",
		"https://l.example/c.txt":     "c.example\nhttps://l.example/d.txt\n",
		"https://l.example/d.txt":     "d.example\nhttps://l.example/e.txt\n",
		"https://l.example/e.txt":     "e.example\n",
		"https://l.example/other.txt": "x.example\n",
	}}
	res := Walk(context.Background(), src, []string{root}, Options{})
	if want := []string{"a.example", "b.example", "c.example", "d.example"}; !reflect.DeepEqual(res.Domains, want) {
		t.Fatalf("domains %v, want %v", res.Domains, want)
	}
	for u, n := range src.calls {
		if n != 1 {
			t.Errorf("%s fetched %d times", u, n)
		}
	}
	if src.calls["https://l.example/e.txt"] != 0 {
		t.Error("a list 4 levels below the root was fetched")
	}
	var notes []string
	for _, v := range res.Lists {
		if v.Err != nil {
			notes = append(notes, fmt.Sprintf("%s@%d: %v", strings.TrimPrefix(v.URL, "https://l.example/"), v.Depth, v.Err))
		}
	}
	want := []string{
		"root.txt@1: already visited in this walk", // the root names itself
		"missing.txt@1: HTTP 404",
		"root.txt@2: already visited in this walk",
		"e.txt@4: deeper than 3 levels of lists",
	}
	if !reflect.DeepEqual(notes, want) {
		t.Fatalf("notes %q\nwant %q", notes, want)
	}

	// The same head: the root's domains are not reported again (a.example comes from b.txt),
	// its lists are still read.
	src.calls = map[string]int{}
	res = Walk(context.Background(), src, []string{root}, Options{Heads: map[string]string{root: "r1"}})
	if want := []string{"b.example", "a.example", "c.example", "d.example"}; !reflect.DeepEqual(res.Domains, want) || !res.Lists[0].Unchanged {
		t.Fatalf("unchanged root: domains %v, visit %+v", res.Domains, res.Lists[0])
	}
	// Bounds: one level, one list.
	res = Walk(context.Background(), src, []string{root}, Options{MaxDepth: 1, MaxLists: 2})
	if want := []string{"a.example", "b.example"}; !reflect.DeepEqual(res.Domains, want) {
		t.Fatalf("bounded walk: %v", res.Domains)
	}
	// A root that is not https is not fetched.
	src.calls = map[string]int{}
	res = Walk(context.Background(), src, []string{"http://l.example/root.txt"}, Options{})
	if len(src.calls) != 0 || len(res.Lists) != 1 || res.Lists[0].Err == nil {
		t.Fatalf("http root: %+v", res)
	}
}

// TestWalkOverHTTP walks lists served by a real HTTP server under the fetcher's test switch,
// names resolved by a real DNS server; one list names itself.
func TestWalkOverHTTP(t *testing.T) {
	d := dnstest.Start(t)
	d.SetAddrs("lists.test", "127.0.0.1")
	mux := http.NewServeMux()
	mux.HandleFunc("/root.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "# head: 1\npub.example\nhttps://lists.test/root.txt\nhttps://lists.test/more.txt\n")
	})
	mux.HandleFunc("/more.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "other.example\nhttp://lists.test/plain.txt\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	f := fetch.New(fetch.Options{Insecure: true, Port: port, Resolver: domainverify.NewDNSResolver(d.Addr, 2*time.Second), Timeout: 5 * time.Second})
	res := Walk(context.Background(), f, []string{"https://lists.test/root.txt"}, Options{})
	if want := []string{"pub.example", "other.example"}; !reflect.DeepEqual(res.Domains, want) {
		t.Fatalf("domains %v (lists %+v)", res.Domains, res.Lists)
	}
	if len(res.Lists) != 3 || res.Lists[1].Err == nil || len(res.Lists[2].Errors) != 1 {
		t.Fatalf("lists %+v", res.Lists)
	}
}
