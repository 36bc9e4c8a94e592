package directory

import "testing"

func TestFieldMatches(t *testing.T) {
	text := SearchText(map[string]any{"a": map[string]any{"b": "Zürich"}, "tags": []any{"X", 2.5, map[string]any{"n": "inner"}}, "t": true})
	for _, tc := range []struct {
		path, needle string
		want         bool
	}{
		{"a.b", "zür", true}, {"a.b", "x", false}, {"tags", "x", true}, {"tags", "2.5", true}, {"tags", "inner", false},
		{"tags.n", "inner", false}, {"t", "true", true}, {"a", "zür", false}, {"a.b", "zürich", true},
	} {
		if got := FieldMatches(text, tc.path, tc.needle); got != tc.want {
			t.Errorf("FieldMatches(%q, %q) = %v", tc.path, tc.needle, got)
		}
	}
}

func TestSearchTextCaseFolds(t *testing.T) {
	text := SearchText(map[string]any{"Straße": "ΣΊΣΥΦΟΣ", "b": []any{"ǅ", "ﬁle"}})
	for _, tc := range []struct {
		path, value string
	}{
		{"STRASSE", "σίσυφος"}, {"strasse", "ΣΊΣΥΦΟΣ"}, {"straße", "ΊΣΥΦΟς"}, {"b", "ǆ"}, {"b", "Ǆ"}, {"b", "FILE"},
	} {
		if !FieldMatches(text, Fold(tc.path), FoldNeedle(tc.value)) {
			t.Errorf("%q ~ %q does not match %q", tc.path, tc.value, text)
		}
	}
	if got := FoldNeedle("A\x1eB\x1fC"); got != "a b c" {
		t.Errorf("foldNeedle blanks the separators: %q", got)
	}
}
