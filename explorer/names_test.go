package explorer

import (
	"strings"
	"testing"
)

// TestVisibleEscapes: the characters a reader cannot see, or that reorder the text around
// them, are shown as escapes (in a marked span, named in its title); markup is text; plain
// names are unchanged; and the plain-text form (the page's title) escapes the same ones.
func TestVisibleEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"admin":                        "admin",
		"<img src=x onerror=alert(1)>": "<img src=x onerror=alert(1)>",
		"a/b?c#d":                      "a/b?c#d",
		"a b":                          "a b",
		" spaced ":                     `\u0020spaced\u0020`,
		"a  b":                         `a\u0020\u0020b`,
		"ad\u202emin":                  `ad\u202emin`,
		"adm\u200bin":                  `adm\u200bin`,
		"\ufeffbom":                    `\ufeffbom`,
		"a\u00a0b":                     `a\u00a0b`,
		"tag\U000E0041":                `tag\U000e0041`,
		"a\tb\n":                       `a\u0009b\u000a`,
		"\u0430dmin":                   "\u0430dmin", // visible: flagged as mixing scripts instead
		"日本語":                          "日本語",
	} {
		got := string(visible(in))
		plain := strings.NewReplacer(`&lt;`, `<`, `&gt;`, `>`).Replace(stripSpans(got))
		if plain != want {
			t.Errorf("visible(%+q) = %s, reads %q, want %q", in, got, plain, want)
		}
		if vt := visibleText(in); vt != want {
			t.Errorf("visibleText(%+q) = %q, want %q", in, vt, want)
		}
		if strings.ContainsAny(stripSpans(got), "<>\u202e\u200b\ufeff\u00a0\t\n") {
			t.Errorf("visible(%+q) leaves a raw character: %q", in, got)
		}
	}
	if got := string(visible("x\u202ey")); got != `x<span class="esc" title="U+202E RIGHT-TO-LEFT OVERRIDE: a bidirectional control, shown as its escape">\u202e</span>y` {
		t.Errorf("the escape's markup: %s", got)
	}
}

// stripSpans removes the escapes' span tags, leaving their text.
func stripSpans(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "<span")
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i:], ">")
		s = s[i+j+1:]
		k := strings.Index(s, "</span>")
		b.WriteString(s[:k])
		s = s[k+len("</span>"):]
	}
	b.WriteString(s)
	return b.String()
}

// TestListFlags: in one list, each of a pair of look-alikes names the other, a name that
// mixes scripts says which, and other names carry nothing.
func TestListFlags(t *testing.T) {
	f := listFlags([]string{"admin", "\u0430dmin", "user", "../../etc/passwd"})
	if len(f) != 2 || f["admin"].Looks[0] != "\u0430dmin" || f["\u0430dmin"].Looks[0] != "admin" ||
		strings.Join(f["\u0430dmin"].Scripts, ",") != "Cyrillic,Latin" || len(f["admin"].Scripts) != 0 {
		t.Fatalf("flags: %+v", f)
	}
}
