package domainverify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/domainverify/dnstest"
)

func TestDNSResolverAgainstARealServer(t *testing.T) {
	srv := dnstest.Start(t)
	srv.SetTXT("one.example", []string{"svc-verification=abc"})
	srv.SetTXT("multi.example", []string{"svc-verification=", "abc"}, []string{"v=spf1 -all"})
	srv.SetTXT("empty.example")
	var many [][]string
	for i := 0; i < 40; i++ {
		many = append(many, []string{fmt.Sprintf("record-%02d-%s", i, strings.Repeat("x", 150))})
	}
	srv.SetTXT("many.example", many...)
	srv.Set("nx.example", dnstest.NXDomain)
	srv.Set("fail.example", dnstest.ServFail)
	srv.Set("hang.example", dnstest.Hang)
	r := NewDNSResolver(srv.Addr, 300*time.Millisecond)
	tests := []struct {
		name    string
		want    []string
		wantErr error
	}{
		{"one.example", []string{"svc-verification=abc"}, nil},
		{"MULTI.example.", []string{"svc-verification=abc", "v=spf1 -all"}, nil},
		{"empty.example", nil, nil},
		{"nx.example", nil, ErrNXDomain},
		{"unknown.example", nil, ErrNXDomain},
		{"fail.example", nil, ErrServFail},
		{"hang.example", nil, ErrDNSTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.LookupTXT(context.Background(), tc.name)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("truncated over UDP, complete over TCP", func(t *testing.T) {
		before := srv.TCPQueries()
		got, err := r.LookupTXT(context.Background(), "many.example")
		if err != nil || len(got) != 40 {
			t.Fatalf("got %d records, %v; want 40", len(got), err)
		}
		if srv.TCPQueries() != before+1 {
			t.Fatal("the answer was not retried over TCP")
		}
	})
}

// fakeDNS and fakeFetcher fail the test on calls it did not expect.
type fakeDNS struct {
	t       *testing.T
	answers map[string][]string
	err     error
}

func (f *fakeDNS) LookupTXT(_ context.Context, name string) ([]string, error) {
	if f.answers == nil && f.err == nil {
		f.t.Fatalf("unexpected DNS lookup of %s", name)
	}
	return f.answers[name], f.err
}

type fakeFetcher struct {
	t    *testing.T
	body string
	err  error
	used bool
}

func (f *fakeFetcher) FetchWellKnown(_ context.Context, domain string) (FetchResult, error) {
	if !f.used {
		f.t.Fatalf("unexpected HTTP fetch for %s", domain)
	}
	return FetchResult{Status: 200, Body: []byte(f.body)}, f.err
}

func TestCheckerOrderAndDetail(t *testing.T) {
	const want = "svc-verification=token"
	tests := []struct {
		name       string
		dns        *fakeDNS
		http       *fakeFetcher
		ok         bool
		method     string
		mismatch   bool
		detailPart string
	}{
		{"DNS match wins without HTTP", &fakeDNS{answers: map[string][]string{"a.example": {"x", want}}}, &fakeFetcher{}, true, "dns", false, ""},
		{"DNS miss, HTTP match", &fakeDNS{answers: map[string][]string{"a.example": {"x"}}}, &fakeFetcher{used: true, body: want + "\r\nmore"}, true, "http", false, ""},
		{"DNS error, HTTP match", &fakeDNS{err: ErrNXDomain}, &fakeFetcher{used: true, body: "  " + want + "  \n"}, true, "http", false, ""},
		{"both miss", &fakeDNS{answers: map[string][]string{"a.example": {"x", "y"}}}, &fakeFetcher{used: true, body: "svc-verification=other"}, false, "", true, "found 2 TXT record(s), none matching"},
		{"HTTP error", &fakeDNS{err: ErrServFail}, &fakeFetcher{used: true, err: errors.New("refused: the domain resolves to a non-public address")}, false, "", false, "SERVFAIL"},
		{"prefix is not a match", &fakeDNS{answers: map[string][]string{"a.example": {want + "x"}}}, &fakeFetcher{used: true, body: want + "x"}, false, "", true, "did not match"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.dns.t, tc.http.t = t, t
			c := &Checker{DNS: tc.dns, HTTP: tc.http}
			res := c.Check(context.Background(), "a.example", want)
			if res.OK != tc.ok || res.Method != tc.method || res.HTTPMismatch != tc.mismatch || !strings.Contains(res.Detail, tc.detailPart) {
				t.Fatalf("result %+v", res)
			}
		})
	}
}

func TestNewTXTValue(t *testing.T) {
	a, err := NewTXTValue()
	b, _ := NewTXTValue()
	if err != nil || !strings.HasPrefix(a, TXTPrefix) || len(a) != len(TXTPrefix)+43 || a == b {
		t.Fatalf("values %q %q, %v", a, b, err)
	}
}
