package store

import "testing"

func TestIndexWord(t *testing.T) {
	for in, want := range map[string]string{".12345@example": "12345", "hopper": "hopper", "zürich-nord": "zürich", "a.b": "",
		"100%": "100", "grade-2 senior": "senior", "x1y2 abcdef": "x1y2"} {
		if got := indexWord(in); got != want {
			t.Errorf("indexWord(%q) = %q, want %q", in, got, want)
		}
	}
}
