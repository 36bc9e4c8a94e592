package server_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestAnyNameInChromium: the hostile names' pages in Debian's chromium (issue 42 §3). From the
// registry's page, each record's link is followed by clicking: the browser lands on the name's
// encoded address, the page's heading reads as the name with its invisible characters and
// bidirectional controls as visible escapes, no element came out of a name, and no script ran
// (no dialog opened). The registry page flags the look-alikes, and is screenshot.
func TestAnyNameInChromium(t *testing.T) {
	ctx := browser(t)
	h := newHarness(t, "sqlite")
	names := []string{"<img src=x onerror=alert(1)>", "../../etc/passwd", "a/b?c#d", " spaced ", "ad\u202emin", "\u0430dmin", "admin", "100%41", "zero\u200bwidth"}
	originHostedNames(t, h.store, names)
	site := httptest.NewServer(h.srv.Echo())
	t.Cleanup(site.Close)
	regPath := "/explore/n/pub.example/" + url.PathEscape(hostileRegistry)
	var dialogs atomic.Int32
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
		}
	}); err != nil {
		t.Fatal(err)
	}
	dir := artifacts(t)
	for i, name := range names {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(site.URL+regPath)); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			shoot(t, ctx, dir, "anyname-registry", 1280)
			if n := eval[int](t, ctx, `document.querySelectorAll(".flag-looks").length`); n != 2 {
				t.Errorf("the registry page flags %d look-alikes, want 2", n)
			}
		}
		want := "/explore/n/pub.example/" + url.PathEscape(hostileRegistry) + "/" + url.PathEscape(name)
		follow(t, ctx, `a[href="`+strings.ReplaceAll(want, `"`, `\"`)+`"]`, "/explore/n/pub.example/")
		if got := eval[string](t, ctx, `location.pathname`); got != want {
			t.Errorf("%q: the link led to %s, want %s", name, got, want)
		}
		if got, vis := eval[string](t, ctx, `document.querySelector("h1").innerText`), visibleForm(name); got != vis {
			t.Errorf("%q: the heading reads %q, want %q", name, got, vis)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("main img, main svg, main script").length`); n != 0 {
			t.Errorf("%q: %d elements came out of the name", name, n)
		}
		if name == "ad\u202emin" {
			shoot(t, ctx, dir, "anyname-rlo", 375)
		}
	}
	if n := dialogs.Load(); n != 0 {
		t.Errorf("%d script dialogs opened", n)
	}
}

// visibleForm is a name as the pages write it: the invisible characters and bidirectional
// controls of these names, and a plain space at an end, as escapes.
func visibleForm(name string) string {
	r := strings.NewReplacer("\u202e", `\u202e`, "\u200b", `\u200b`)
	s := r.Replace(name)
	if strings.HasPrefix(s, " ") {
		s = `\u0020` + s[1:]
	}
	if strings.HasSuffix(s, " ") {
		s = s[:len(s)-1] + `\u0020`
	}
	return s
}
