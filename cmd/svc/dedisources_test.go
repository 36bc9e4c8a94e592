package main

import (
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
)

// TestDediSourceCommands: svc dedi publisher add|remove and svc dedi list add|remove, with
// their refusals (exit 2 for a bad domain or a non-https list, nothing written).
func TestDediSourceCommands(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			db := "--database-url=" + storetest.URL(t, d)
			tests := []struct {
				args     []string
				wantCode int
				wantOut  string
			}{
				{[]string{"dedi", "publisher", "add", db, "Pub.Example."}, 0, "added pub.example"},
				{[]string{"dedi", "publisher", "add", db, "pub.example"}, 0, "already a publisher: pub.example"},
				{[]string{"dedi", "publisher", "add", db, "not a domain"}, 2, ""},
				{[]string{"dedi", "publisher", "add", db, "https://pub.example/"}, 2, ""},
				{[]string{"dedi", "publisher", "remove", db, "pub.example"}, 0, "removed pub.example"},
				{[]string{"dedi", "publisher", "remove", db, "pub.example"}, 1, ""},
				{[]string{"dedi", "list", "add", db, "https://lists.example/domains.txt"}, 0, "added https://lists.example/domains.txt"},
				{[]string{"dedi", "list", "add", db, "http://lists.example/domains.txt"}, 2, ""},
				{[]string{"dedi", "list", "remove", db, "https://lists.example/domains.txt"}, 0, "removed"},
				{[]string{"dedi", "list", "remove", db, "https://lists.example/domains.txt"}, 1, ""},
				{[]string{"dedi", "publisher"}, 2, ""},
				{[]string{"dedi", "publisher", "add", "-h"}, 0, ""},
			}
			for _, tc := range tests {
				code, out, errs := svc(t, tc.args...)
				if code != tc.wantCode || !strings.Contains(out, tc.wantOut) {
					t.Errorf("svc %v: %d %q %q; want %d %q", tc.args, code, out, errs, tc.wantCode, tc.wantOut)
				}
			}
			code, out, errs := svc(t, "dedi", "crawl", db)
			if code != 0 || out != "" {
				t.Errorf("crawl with no publishers: %d %q %q", code, out, errs)
			}
		})
	}
}
