package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestSearchOddValuesAreLiteral: values that mean something to a full-text query syntax or to
// a regular expression (quotes, operators, column filters, NUL, invalid UTF-8) are searched
// for literally on both dialects, and never fail.
func TestSearchOddValuesAreLiteral(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns, err := s.CreateNamespace(ctx, newOwner(t, s), creator, directory.NamespaceInput{Name: "Odd Co"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom,
			Schema: map[string]any{"type": "object"}}); err != nil {
			t.Fatal(err)
		}
		values := []string{`say "hi" now`, `a""b`, `x* OR y`, `NEAR(a b)`, `search_text : "q"`, `{record_name}: ab`, `^(a|b)+$`,
			`50% _off_`, `\d\\`, "tab\there", "😀😀😀", "é́é"}
		var in []directory.RecordInput
		for i, v := range values {
			in = append(in, directory.RecordInput{RecordName: fmt.Sprintf("odd-%02d", i), Details: map[string]any{"v": v}})
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", creator, in); err != nil {
			t.Fatal(err)
		}
		for i, v := range values {
			res, err := s.Search(ctx, ns.NamespaceID, store.SearchOptions{Fields: []store.FieldFilter{{Path: "v", Value: v}}, Member: true, Page: 1, Size: 20})
			if err != nil {
				t.Fatalf("%q: %v", v, err)
			}
			if want := fmt.Sprintf("odd-%02d", i); len(res.Records) != 1 || res.Records[0].RecordName != want {
				t.Errorf("%q: found %d records, want %s alone", v, len(res.Records), want)
			}
		}
		for _, v := range []string{"\x00\x00\x00", "ab\x00cd", "\xff\xfe\xfd", "\xffabc", `"""`, "   ", "\u0301\u0301\u0301"} {
			for _, f := range []store.SearchOptions{{Fields: []store.FieldFilter{{Path: "v", Value: v}}}, {RecordName: v}} {
				f.Member, f.Page, f.Size = true, 1, 20
				res, err := s.Search(ctx, ns.NamespaceID, f)
				// Postgres refuses NUL and invalid UTF-8 in text as ErrInvalid (the server refuses
				// them before).
				if err != nil && !errors.Is(err, directory.ErrInvalid) {
					t.Fatalf("%q: %v", v, err)
				}
				if err == nil && s.Dialect() == store.DialectSQLite && len(res.Records) != 0 {
					t.Errorf("%q finds %d records", v, len(res.Records))
				}
			}
		}
	})
}
