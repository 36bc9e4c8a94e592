package explorer

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/svc-directory/svc/directory"
)

// How the pages show a name (or any text a publisher wrote): an origin-hosted namespace's
// names may hold any character (docs/dedi-files.md, "Names"), so a page shows each one a
// reader could not see, or that would reorder what is around it, as a visible escape; warns of
// a name that mixes scripts; and flags the names of one list that look alike
// (directory.MixedScripts, directory.Confusable).

// escapeName is the character's name a visible escape carries in its title.
var escapeName = map[rune]string{
	0x061C: "ARABIC LETTER MARK", 0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
	0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE", 0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
	0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER", 0x2060: "WORD JOINER",
	0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0x00AD: "SOFT HYPHEN", 0x034F: "COMBINING GRAPHEME JOINER",
	0x00A0: "NO-BREAK SPACE", 0x0020: "SPACE", 0x0009: "CHARACTER TABULATION", 0x000A: "LINE FEED", 0x000D: "CARRIAGE RETURN",
	0x3164: "HANGUL FILLER", 0x115F: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER", 0xFFA0: "HALFWIDTH HANGUL FILLER",
}

// bidiControl reports the characters that change the direction of the text around them.
func bidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || 0x202A <= r && r <= 0x202E || 0x2066 <= r && r <= 0x2069
}

// invisible reports the characters a reader cannot see (or cannot tell from a space): controls,
// format characters (zero-width ones, bidirectional controls, tags), Unicode's other default
// ignorable code points (fillers, variation selectors, the combining grapheme joiner), and
// every space but the plain one.
func invisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return true
	case r != ' ' && unicode.Is(unicode.Zs, r):
		return true
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5, r == 0x3164, r == 0xFFA0,
		0x180B <= r && r <= 0x180F, 0xFE00 <= r && r <= 0xFE0F, 0xE0000 <= r && r <= 0xE0FFF:
		return true
	}
	return false
}

// escapeAt reports whether the rune at byte i of s is shown as an escape: an invisible or
// bidirectional character, or a plain space at either end or beside another space (where a
// page would not show it).
func escapeAt(s string, i int, r rune) bool {
	if r == ' ' {
		return i == 0 || i == len(s)-1 || s[i-1] == ' ' || s[i+1] == ' '
	}
	return r == utf8.RuneError || bidiControl(r) || invisible(r)
}

// escapeText is the visible escape of r, as Go's %+q writes it: \u202e, \U000e0041.
func escapeText(r rune) string {
	if r > 0xFFFF {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

func escapeTitle(r rune) string {
	name := escapeName[r]
	kind := "an invisible character"
	switch {
	case bidiControl(r):
		kind = "a bidirectional control"
	case r == ' ':
		kind = "a space at an end of the text or beside another"
	case unicode.Is(unicode.Zs, r):
		kind = "a space other than the plain one"
	case unicode.Is(unicode.Cc, r):
		kind = "a control character"
	}
	if name != "" {
		return fmt.Sprintf("U+%04X %s: %s, shown as its escape", r, name, kind)
	}
	return fmt.Sprintf("U+%04X: %s, shown as its escape", r, kind)
}

// visible is text for a page (template func "vis"): HTML-escaped, each character escapeAt
// tells as a visible escape in a marked span, whose title names it. A value that is not a
// string is shown as the pages show any value (str).
func visible(v any) template.HTML {
	s := str(v)
	var b strings.Builder
	start := 0
	for i, r := range s {
		if !escapeAt(s, i, r) {
			continue
		}
		b.WriteString(html.EscapeString(s[start:i]))
		b.WriteString(`<span class="esc" title="`)
		b.WriteString(html.EscapeString(escapeTitle(r)))
		b.WriteString(`">`)
		b.WriteString(escapeText(r))
		b.WriteString(`</span>`)
		_, n := utf8.DecodeRuneInString(s[i:])
		start = i + n
	}
	b.WriteString(html.EscapeString(s[start:]))
	return template.HTML(b.String()) // every piece of s went through html.EscapeString
}

// visibleText is visible as plain text (template func "vist"): for the page's title, where no
// markup goes.
func visibleText(v any) string {
	s := str(v)
	var b strings.Builder
	for i, r := range s {
		if escapeAt(s, i, r) {
			b.WriteString(escapeText(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// nameFlags is what a page says of one name of a list beside it.
type nameFlags struct {
	Scripts []string // the scripts it mixes (none: one script)
	Looks   []string // the other names of the list it is confusable with
}

func (f nameFlags) Any() bool { return len(f.Scripts) > 0 || len(f.Looks) > 0 }

// listFlags flags the names of one list (the records or registries a page shows): the names
// that mix scripts, and those confusable with another name of the list. Names without a flag
// are absent.
func listFlags(names []string) map[string]nameFlags {
	out := map[string]nameFlags{}
	looks := directory.Confusable(names)
	for _, n := range names {
		f := nameFlags{Scripts: directory.MixedScripts(n), Looks: looks[n]}
		if f.Any() {
			out[n] = f
		}
	}
	return out
}

// flagsOf is the flags of name in m (template func "flags"), none when it has none.
func flagsOf(m map[string]nameFlags, name any) nameFlags { return m[str(name)] }

// namesOf is the names of a list of API objects under key.
func namesOf(items []map[string]any, key string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, str(it[key]))
	}
	return out
}
