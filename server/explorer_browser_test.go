package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/witnesstest"
)

// browser starts Debian's chromium (skipped where it is missing, unless CI=true) through chromedp.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := requireTool(t, "chromium")
	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel3)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("chromium: %v", err)
	}
	return ctx
}

// artifacts is where the screenshots go: $SVC_TEST_ARTIFACTS/explorer, or the test's temporary
// directory when that is unset.
func artifacts(t *testing.T) string {
	dir := t.TempDir()
	if a := os.Getenv("SVC_TEST_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "explorer")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// follow clicks the element and waits for the next page to load at a path with the prefix.
func follow(t *testing.T, ctx context.Context, selector, pathPrefix string) {
	t.Helper()
	// The click runs after Evaluate returns: a navigation under it would end the evaluation.
	eval[bool](t, ctx, `(() => { const a = document.querySelector(`+jsString(selector)+`); if (!a) return false; setTimeout(() => a.click(), 0); return true; })()`)
	waitFor(t, ctx, `location.pathname.startsWith(`+jsString(pathPrefix)+`) && document.readyState === "complete"`)
}

// waitFor evaluates the condition until it holds, across navigations (which end a Poll).
func waitFor(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond)); err == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	t.Fatalf("at %s: %s does not hold", loc, cond)
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// verifyInBrowser presses the verify button and answers the summary and the steps' text.
func verifyInBrowser(t *testing.T, ctx context.Context) (string, string) {
	t.Helper()
	eval[bool](t, ctx, `(document.getElementById("verify-button").click(), true)`)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`/^(Verified|Not verified)/.test(document.getElementById("verify-summary").textContent)`,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("the verification did not finish: %v", err)
	}
	return eval[string](t, ctx, `document.getElementById("verify-summary").textContent`),
		eval[string](t, ctx, `document.getElementById("verify-steps").innerText`)
}

// shoot saves a full-page PNG at the width and checks that it is not blank and that the page
// fits the width (no horizontal scrolling).
func shoot(t *testing.T, ctx context.Context, dir, name string, width int64) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
		t.Fatal(err)
	}
	if w := eval[int](t, ctx, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(document.documentElement.scrollWidth))))`); w > int(width) {
		wide := eval[string](t, ctx, `Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > `+
			strconv.FormatInt(width, 10)+`).slice(-3).map(e => e.tagName + "." + e.className + ": " + e.textContent.slice(0, 40)).join(" | ")`)
		t.Errorf("%s at %d px: the page is %d px wide: %s", name, width, w, wide)
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	colours := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("%s at %d px looks blank (%d colours)", name, width, len(colours))
	}
	file := filepath.Join(dir, name+"-"+map[int64]string{1280: "1280", 375: "375"}[width]+".png")
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// axeCheck runs axe-core (the repository's node_modules, make node-tools) on the page: no
// serious or critical violation.
func axeCheck(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("axe-core is required in CI (make node-tools): %v", err)
		}
		t.Skipf("SKIPPING: axe-core is not installed (make node-tools): %v", err)
	}
	eval[bool](t, ctx, string(src)+";true")
	out := eval[string](t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(
		r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => v.id + ": " + v.help + " (" + v.nodes.length + ")")))`)
	if out != "[]" {
		t.Errorf("%s: axe-core finds serious or critical violations: %s", name, out)
	}
}

// witnessedExplorerSite is explorerSite with a test witness (translog/witnesstest) configured
// as svc serve configures SVC_LOG_WITNESSES for the explorer (its key, a quorum of 1), which
// has cosigned the log's checkpoint, and with the state index on as svc serve runs it for a log
// with witnesses (the integrator commits state leaves, the serving index follows the cosigned
// checkpoint); it answers the witness too, and advance: integrate what was written, have the
// witness cosign, and move the serving index.
func witnessedExplorerSite(t *testing.T) (*harness, string, *witnesstest.Witness, func()) {
	t.Helper()
	ctx := context.Background()
	lk, vkey := newLogKey(t)
	w := witnesstest.New(t, "witness.example", vkey)
	var ss *translog.StateServer
	h := newHarnessWith(t, "sqlite", func(c *server.Config) {
		ss = translog.NewStateServer(translog.NewReader(c.Store), c.Store, c.Store.LogCosigned, nil)
		c.LogVerifierKey, c.LogWitnessKeys, c.LogWitnessQuorum, c.LogState = vkey, []string{w.VerifierKey}, 1, ss
	})
	id := publish(t, h, h.key("owner@example.com"))
	g := translog.NewIntegrator(h.store, lk, nil, nil).WithStateIndex()
	wt, err := translog.NewWitnesser(h.store, vkey, []translog.WitnessConfig{{Key: w.VerifierKey, URL: w.URL}}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	advance := func() {
		t.Helper()
		if _, err := g.IntegrateOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := wt.WitnessOnce(ctx); err != nil || n != 1 {
			t.Fatalf("the witness did not cosign: %d %v", n, err)
		}
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	advance()
	return h, id, w, advance
}

// tamperingProxy serves upstream's answers, its pages with old replaced by new.
func tamperingProxy(t *testing.T, upstream, old, new string) *httptest.Server {
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			body = bytes.ReplaceAll(body, []byte(old), []byte(new))
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

// TestExplorerInChromium drives Debian's Chromium through the explorer of a log with a test
// witness: it searches for the namespace and follows it to a record by clicking, loads every
// page kind, screenshots each at 1280 and 375 px (into $SVC_TEST_ARTIFACTS/explorer, else a
// temporary directory), runs axe-core on each, presses "Verify in this browser" on each entry
// page and reads "Verified" with every step passed, the witness's cosignature included. Then,
// through proxies, it reads which step fails: step 1 on a page with one detail altered, step 5
// on a page naming a witness key that never cosigned. No alert may open: hostile names and
// details stay text.
func TestExplorerInChromium(t *testing.T) {
	ctx := browser(t)
	h, id, witness, advance := witnessedExplorerSite(t)
	srv := httptest.NewServer(h.srv.Echo())
	defer srv.Close()
	dir := artifacts(t)
	t.Logf("screenshots in %s", dir)
	dialogs := make(chan string, 4)
	if err := chromedp.Listen(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			select {
			case dialogs <- d.Message:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}

	// Search → namespace → registry → record, by clicking.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasSuffix(loc, "/explore") {
		t.Fatalf("/ in a browser went to %s", loc)
	}
	// Keyboard: the first Tab reaches the skip link, Enter on it moves to the content; typing
	// into the labelled search box and Enter submits.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.activeElement.className + "|" + document.activeElement.textContent`); got != "skip|Skip to the content" {
		t.Errorf("the first Tab reaches %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector("label[for=q]").textContent`); !strings.Contains(got, "Find a namespace") {
		t.Errorf("the search box's label: %q", got)
	}
	eval[bool](t, ctx, `(document.getElementById("q").value = "acme", setTimeout(() => document.querySelector("form.search button").click(), 0), true)`)
	waitFor(t, ctx, `location.search.includes("q=acme") && document.readyState === "complete"`)
	ns := "/explore/n/" + url.PathEscape(id)
	follow(t, ctx, `.results a[href="`+ns+`"]`, ns)
	follow(t, ctx, `a[href="`+ns+`/employees"]`, ns+"/employees")
	follow(t, ctx, `a[href="`+ns+`/employees/alice"]`, ns+"/employees/alice")
	if text := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(text, "alice@example.com") {
		t.Fatalf("the record page shows %q", text)
	}

	pages := []struct{ name, path string }{
		{"home", "/explore?q=acme"}, {"home-recent", "/explore"}, {"namespace", ns}, {"registry", ns + "/employees"},
		{"record", ns + "/employees/alice"}, {"log", "/explore/log"},
	}
	for _, p := range pages {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+p.path)); err != nil {
			t.Fatal(err)
		}
		if p.name == "namespace" || p.name == "registry" || p.name == "record" {
			summary, steps := verifyInBrowser(t, ctx)
			if !strings.HasPrefix(summary, "Verified") || strings.Contains(steps, "FAILED") {
				t.Errorf("%s: %s\n%s", p.name, summary, steps)
			}
			for _, step := range []string{"digest: passed", "inclusion proof and checkpoint: passed", "checkpoint signature: passed",
				"inclusion in the log: passed", "Step 5, witness cosignatures: passed. 1 of the configured witnesses cosigned",
				"Step 6, current: passed. current: this is the latest version as of checkpoint "} {
				if !strings.Contains(steps, step) {
					t.Errorf("%s: no %q in\n%s", p.name, step, steps)
				}
			}
		}
		shoot(t, ctx, dir, p.name, 1280)
		shoot(t, ctx, dir, p.name, 375)
		axeCheck(t, ctx, p.name)
	}

	// The tampered proxy: the record page with one detail altered.
	proxy := tamperingProxy(t, srv.URL, "alice@example.com", "mallory@example.com")
	if err := chromedp.Do(ctx, chromedp.Navigate(proxy.URL+ns+"/employees/alice")); err != nil {
		t.Fatal(err)
	}
	if text := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(text, "mallory@example.com") {
		t.Fatalf("the proxy did not alter the page: %q", text)
	}
	summary, steps := verifyInBrowser(t, ctx)
	if !strings.HasPrefix(summary, "Not verified: step 1, digest failed") || !strings.Contains(steps, "Step 1, digest: FAILED") {
		t.Errorf("the tampered page: %s\n%s", summary, steps)
	}
	shoot(t, ctx, dir, "record-tampered", 1280)

	// A page naming a witness key that never cosigned (the same name, another key; html/template
	// writes + as &#43; in the attribute) fails at the witness step, the steps before it passed.
	impostor := witnesstest.New(t, "witness.example")
	escaped := func(k string) string { return strings.ReplaceAll(k, "+", "&#43;") }
	wrong := tamperingProxy(t, srv.URL, escaped(witness.VerifierKey), escaped(impostor.VerifierKey))
	if err := chromedp.Do(ctx, chromedp.Navigate(wrong.URL+ns+"/employees/alice")); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.getElementById("svc-entry").dataset.witnesses`); got != impostor.VerifierKey {
		t.Fatalf("the proxy did not swap the witness key: %q", got)
	}
	summary, steps = verifyInBrowser(t, ctx)
	if !strings.HasPrefix(summary, "Not verified: step 5, witness cosignatures failed") || !strings.Contains(steps, "Step 5, witness cosignatures: FAILED") ||
		!strings.Contains(steps, "Step 4, inclusion in the log: passed") {
		t.Errorf("the page naming a wrong witness key: %s\n%s", summary, steps)
	}
	staleAnswerInChromium(t, ctx, h, srv.URL, ns+"/employees/alice", advance, dir)
	select {
	case d := <-dialogs:
		t.Errorf("a dialog opened: %s", d)
	default:
	}
}
