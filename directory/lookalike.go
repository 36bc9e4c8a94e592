package directory

import (
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
)

// Names that look alike. An origin-hosted namespace's names may hold any character
// (names.go), so two of them can look the same to a person and be different names: `admin`
// and `аdmin` (Cyrillic а). The pages (docs/explorer.md) warn of a name that mixes scripts and
// flag the names of one registry that are confusable with each other, by the two tests of
// Unicode's security mechanisms (UTS #39): the confusable skeleton and the script of each
// character.

// Skeleton is the UTS #39 skeleton of a name: two names are confusable when their skeletons
// are equal. It is computed with the data of Unicode's confusables.txt (version 13, through
// github.com/mtibben/confusables: NFD, each character mapped to its prototype, NFD again).
// Case is kept: `Admin` and `admin` are told apart by it, as a reader tells them apart.
func Skeleton(name string) string { return confusables.Skeleton(name) }

// Confusable groups names by their skeleton and returns, for each name that another name of
// names is confusable with, those other names (sorted); names unlike any other are absent.
func Confusable(names []string) map[string][]string {
	bySkel := map[string][]string{}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		s := Skeleton(n)
		bySkel[s] = append(bySkel[s], n)
	}
	out := map[string][]string{}
	for _, group := range bySkel {
		if len(group) < 2 {
			continue
		}
		sort.Strings(group)
		for _, n := range group {
			for _, o := range group {
				if o != n {
					out[n] = append(out[n], o)
				}
			}
		}
	}
	return out
}

// augmented are the scripts a character of a script counts as, after UTS #39's augmented
// script sets: Han is also written in Japanese (with kana), Korean (with Hangul) and
// Chinese with Bopomofo, so that 日本語のテキスト or 한국어漢字 is one script, not a mix.
var augmented = map[string][]string{
	"Han":      {"Han", "Japanese", "Korean", "Bopomofo"},
	"Hiragana": {"Japanese"},
	"Katakana": {"Japanese"},
	"Hangul":   {"Korean"},
	"Bopomofo": {"Bopomofo"},
}

// scriptNames lists Go's script tables in a stable order.
var scriptNames = func() []string {
	out := make([]string, 0, len(unicode.Scripts))
	for name := range unicode.Scripts {
		if name != "Common" && name != "Inherited" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}()

// scriptOf is the script of r: "" for characters of every script (Common, Inherited: digits,
// punctuation, combining marks) and for unassigned ones.
func scriptOf(r rune) string {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' {
			return "Latin"
		}
		return ""
	}
	for _, name := range scriptNames {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return ""
}

// MixedScripts returns the scripts of a name that mixes them (UTS #39's single-script test,
// with the augmented sets of Han), sorted; nil when the name is of one script (or of none:
// digits and punctuation alone). `аdmin` mixes Cyrillic and Latin.
func MixedScripts(name string) []string {
	var scripts []string // as written, for the message
	var common map[string]bool
	for _, r := range name {
		s := scriptOf(r)
		if s == "" {
			continue
		}
		if !slices.Contains(scripts, s) {
			scripts = append(scripts, s)
		}
		sets := augmented[s]
		if sets == nil {
			sets = []string{s}
		}
		if common == nil {
			common = map[string]bool{}
			for _, a := range sets {
				common[a] = true
			}
			continue
		}
		next := map[string]bool{}
		for _, a := range sets {
			if common[a] {
				next[a] = true
			}
		}
		common = next
	}
	if common == nil || len(common) > 0 {
		return nil
	}
	sort.Strings(scripts)
	return scripts
}
