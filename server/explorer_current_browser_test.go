package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// stalePagesProxy is a cache in front of upstream that keeps the first copy of every page
// (text/html) it served and serves it ever after, as a stale instance, cache or mirror would;
// everything else (the API the verify button reads, the script) it passes through.
func stalePagesProxy(t *testing.T, upstream string) *httptest.Server {
	var mu sync.Mutex
	pages := map[string][]byte{}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		kept, ok := pages[r.URL.RequestURI()]
		mu.Unlock()
		if ok {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(kept)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, upstream+r.URL.RequestURI(), nil)
		req.Header = r.Header.Clone()
		req.Header.Del("Accept-Encoding")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") && res.StatusCode == http.StatusOK {
			mu.Lock()
			pages[r.URL.RequestURI()] = bytes.Clone(body)
			mu.Unlock()
		}
		for k, v := range res.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(res.StatusCode)
		_, _ = w.Write(body)
	}))
	t.Cleanup(proxy.Close)
	return proxy
}

// staleAnswerInChromium: the stale-answer attack in the browser. A cache keeps the record's
// page as it was; the record is then updated (logged, cosigned, and the serving index moved).
// The cached page still shows the first version, whose digest, inclusion proof and checkpoint
// all verify (steps 1 to 5 pass), but step 6, computed in the browser by the SDK's check of the
// state answer, finds it superseded and names the newer version. The page of the first version
// on the live site says "superseded by version 2 of 2", and its button agrees.
func staleAnswerInChromium(t *testing.T, ctx context.Context, h *harness, upstream, recordPath string, advance func(), dir string) {
	t.Helper()
	cache := stalePagesProxy(t, upstream)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(cache.URL+recordPath)); err != nil {
		t.Fatal(err)
	}
	if summary, steps := verifyInBrowser(t, ctx); !strings.HasPrefix(summary, "Verified") || !strings.Contains(summary, "it is the latest version as of checkpoint") ||
		!strings.Contains(steps, "cosigned ") {
		t.Fatalf("the record before its update: %s\n%s", summary, steps)
	}
	v1 := eval[string](t, ctx, `JSON.parse(document.getElementById("svc-entry").dataset.lookup).data.version`)
	ns, _ := strings.CutPrefix(recordPath, "/explore/n/")
	nsID, _, _ := strings.Cut(ns, "/")
	nsID, _ = url.PathUnescape(nsID)
	h.must(http.StatusOK, "POST", "/svc/"+nsID+"/employees/alice/update-record", h.key("owner@example.com"), `{"details":{"email":"alice@example.org"}}`)
	advance()
	v2 := h.must(http.StatusOK, "GET", "/svc/lookup/"+nsID+"/employees/alice", "", nil).data()["version"].(string)

	// The cached page: the first version, as it was.
	if err := chromedp.Do(ctx, chromedp.Navigate(cache.URL+recordPath)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `JSON.parse(document.getElementById("svc-entry").dataset.lookup).data.version`); got != v1 {
		t.Fatalf("the cache did not keep the page: version %s", got)
	}
	summary, steps := verifyInBrowser(t, ctx)
	for _, want := range []string{"Step 4, inclusion in the log: passed", "Step 5, witness cosignatures: passed", "Step 6, current: FAILED. superseded: version 2 (" + v2 + ")"} {
		if !strings.Contains(steps, want) {
			t.Errorf("the stale page's steps lack %q:\n%s", want, steps)
		}
	}
	if !strings.HasPrefix(summary, "Not verified: step 6, current failed. A newer version exists: version 2 ("+v2+")") {
		t.Errorf("the stale page's summary: %s", summary)
	}
	shoot(t, ctx, dir, "record-stale", 1280)

	// The first version's own page on the live site says so, and its button agrees.
	if err := chromedp.Do(ctx, chromedp.Navigate(upstream+recordPath+"?version="+url.QueryEscape(v1))); err != nil {
		t.Fatal(err)
	}
	if text := eval[string](t, ctx, `document.getElementById("present").textContent`); !strings.Contains(text, "superseded by version 2 of 2") {
		t.Errorf("the first version's page says %q", text)
	}
	if summary, _ := verifyInBrowser(t, ctx); !strings.HasPrefix(summary, "Not verified: step 6, current failed. A newer version exists") {
		t.Errorf("the first version's page: %s", summary)
	}
	shoot(t, ctx, dir, "record-superseded", 1280)
	axeCheck(t, ctx, "record-superseded")
}
