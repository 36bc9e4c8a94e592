package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// click presses the element with the mouse (no script of the page's) and waits for the next
// page to load at a path with the prefix.
func click(t *testing.T, ctx context.Context, selector, pathPrefix string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(selector))); err != nil {
		t.Fatalf("click %s: %v", selector, err)
	}
	waitFor(t, ctx, `location.pathname.startsWith(`+jsString(pathPrefix)+`) && document.readyState === "complete"`)
}

// typeInto types text into the field, as a person would.
func typeInto(t *testing.T, ctx context.Context, selector, text string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(selector), text)); err != nil {
		t.Fatalf("type into %s: %v", selector, err)
	}
}

// scripts turns the page's JavaScript off or on (Emulation.setScriptExecutionDisabled).
func scripts(on bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on})
		return err
	})
}

// verifyDegrades checks an entry page without JavaScript: the page explains, visibly, that
// verification needs it, and shows no button to press.
func verifyDegrades(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	got := eval[string](t, ctx, `(() => {
		const note = document.getElementById("verify-needs-script"), button = document.getElementById("verify-button");
		if (!note) return "no explanation";
		const r = note.getBoundingClientRect();
		if (r.width === 0 || r.height === 0 || getComputedStyle(note).visibility !== "visible") return "the explanation is not visible";
		if (!button) return "no button element";
		if (getComputedStyle(button).display !== "none") return "a button is shown";
		return note.innerText;
	})()`)
	if !strings.Contains(got, "needs JavaScript") {
		t.Errorf("%s without JavaScript: %s", name, got)
	}
}

// TestExplorerWithoutJavaScript browses the explorer in Chromium with JavaScript off
// (emulation.SetScriptExecutionDisabled; the test's own evaluations still run): a person opens
// /, searches for the namespace, follows it to the registry, pages the registry, searches it by
// record name and by a details field, follows to a record and to the log, by mouse and
// keyboard alone. On each entry page the verify button degrades to a visible explanation.
func TestExplorerWithoutJavaScript(t *testing.T) {
	ctx := browser(t)
	h, id := explorerSite(t, "sqlite")
	var recs []string
	for i := range 60 {
		recs = append(recs, fmt.Sprintf(`{"record_name":"p%02d","details":{"email":"p%02d@example.com"}}`, i, i))
	}
	h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-records", h.key("owner@example.com"), `{"records":[`+strings.Join(recs, ",")+`]}`)
	srv := httptest.NewServer(h.srv.Echo())
	defer srv.Close()
	if err := chromedp.Do(ctx, scripts(false), chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	text := func() string { return eval[string](t, ctx, `document.body.innerText`) }
	if loc := eval[string](t, ctx, `location.pathname`); loc != "/explore" {
		t.Fatalf("/ in a browser went to %s", loc)
	}

	// Search for the namespace: type, press Enter (the form submits itself).
	typeInto(t, ctx, "#q", "acme\r")
	waitFor(t, ctx, `location.search.includes("q=acme") && document.readyState === "complete"`)
	if !strings.Contains(text(), "1 namespace found") {
		t.Fatalf("the search: %s", text())
	}
	ns := "/explore/n/" + url.PathEscape(id)
	click(t, ctx, `.results a[href="`+ns+`"]`, ns)
	verifyDegrades(t, ctx, "namespace")

	// The registry, its pages, its search.
	click(t, ctx, `a[href="`+ns+`/employees"]`, ns+"/employees")
	verifyDegrades(t, ctx, "registry")
	if got := text(); !strings.Contains(got, "Records (62)") || !strings.Contains(got, "Page 1 of 2") {
		t.Fatalf("the registry page: %s", got)
	}
	click(t, ctx, `a[rel="next"]`, ns+"/employees")
	waitFor(t, ctx, `location.search.includes("page=2")`)
	if got := eval[int](t, ctx, `document.querySelectorAll("tbody tr").length`); got != 12 || !strings.Contains(text(), "Page 2 of 2") {
		t.Errorf("page 2 of the registry: %d rows, %s", got, text())
	}
	click(t, ctx, `a[rel="prev"]`, ns+"/employees")
	waitFor(t, ctx, `location.search.includes("page=1")`)
	typeInto(t, ctx, "#field", "email")
	typeInto(t, ctx, "#value", "p42@")
	click(t, ctx, `form.filters button[type="submit"]`, ns+"/employees")
	waitFor(t, ctx, `location.search.includes("field=email")`)
	if got := eval[string](t, ctx, `Array.from(document.querySelectorAll("tbody tr td:first-child")).map(td => td.innerText).join(",")`); got != "p42" {
		t.Errorf("the details search shows %q", got)
	}
	click(t, ctx, `a[href="`+ns+`/employees"]`, ns+"/employees") // "Show all records"
	typeInto(t, ctx, "#name", "ali\r")
	waitFor(t, ctx, `location.search.includes("name=ali") && document.readyState === "complete"`)

	// The record, and the log.
	click(t, ctx, `a[href="`+ns+`/employees/alice"]`, ns+"/employees/alice")
	if !strings.Contains(text(), "alice@example.com") {
		t.Fatalf("the record page: %s", text())
	}
	verifyDegrades(t, ctx, "record")
	click(t, ctx, `header a[href="/explore/log"]`, "/explore/log")
	if got := text(); !strings.Contains(got, "Tree size") || !strings.Contains(got, "Verifier key") {
		t.Errorf("the log page: %s", got)
	}
	// JavaScript was off throughout: with it, the script would have replaced the explanation.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+ns+"/employees/alice"), scripts(true), chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.readyState === "complete" && !document.getElementById("verify-needs-script") && !document.getElementById("verify-button").hidden`)
}
