package trqp_test

import (
	"testing"

	"github.com/svc-directory/svc/trqp"
)

func TestAuthorityRef(t *testing.T) {
	for in, want := range map[string]string{
		"https://Board.Example":          "board.example",
		"https://board.example/":         "board.example",
		"did:web:board.example":          "board.example",
		"did:svc:5HueCGU8rMjxEXxiPuD5BD": "did:svc:5HueCGU8rMjxEXxiPuD5BD",
		"https://board.example/egf":      "",
		"https://board.example:8443":     "",
		"https://u@board.example":        "",
		"https://board.example?x=1":      "",
		"http://board.example":           "",
		"did:web:board.example:users:1":  "",
		"did:web:":                       "",
		"urn:x":                          "",
		"":                               "",
	} {
		if got := trqp.AuthorityRef(in); got != want {
			t.Errorf("AuthorityRef(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, ok := range []string{"2026-04-01T00:00:00Z", "2026-04-01T00:00:00.123Z"} {
		if _, err := trqp.ParseTime(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"2026-04-01", "2026-04-01T00:00:00+00:00", "2026-04-01T00:00:00", "now", ""} {
		if _, err := trqp.ParseTime(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
