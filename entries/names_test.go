package entries_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestNativeNamesKeepTheirGrammar: a native namespace's writes take the native name rule from
// the domain (directory.CheckNativeName), whatever called them, while an origin-hosted
// namespace holds any DeDi name (dedi/ingest): a registry, a record and a record of a batch
// named outside the grammar are refused as invalid and nothing is written.
func TestNativeNamesKeepTheirGrammar(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newWorld(t, s, "names")
		for _, name := range []string{"<svg onload=alert(1)>", "\u0430dmin", " spaced ", "a/b", strings.Repeat("x", 129)} {
			_, err := w.svc.CreateRegistry(ctx, w.owner, w.nsID, directory.RegistryInput{RegistryName: name, Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}})
			if !errors.Is(err, directory.ErrInvalid) || !strings.Contains(err.Error(), "registry name") {
				t.Errorf("registry %q: %v", name, err)
			}
			if err := w.addRecord(w.owner, name); !errors.Is(err, directory.ErrInvalid) || !strings.Contains(err.Error(), "record name") {
				t.Errorf("record %q: %v", name, err)
			}
			_, err = w.svc.AddRecords(ctx, w.owner, w.nsID, "people", []directory.RecordInput{{RecordName: "fine"}, {RecordName: name}})
			if !errors.Is(err, directory.ErrInvalid) || !strings.Contains(err.Error(), "records[1]") {
				t.Errorf("batch with %q: %v", name, err)
			}
		}
		if _, err := s.GetRecord(ctx, w.nsID, "people", "fine", directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("a refused batch wrote a record: %v", err)
		}
		if err := w.addRecord(w.owner, "admin"); err != nil {
			t.Fatalf("a native name: %v", err)
		}
	})
}
