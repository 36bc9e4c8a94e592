package directory_test

import (
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
)

// The decision of a declared registry (docs/trqp.md, Polarity): every registry state, record
// state, valid_till, drafts, and an origin-hosted registry's file stale or withdrawn.
func TestDecideTRQP(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	pos := directory.TRQPDeclaration{Entity: directory.TRQPRecordName}
	neg := directory.TRQPDeclaration{Entity: "details.did", Negative: true}
	rec := func(state string, till *time.Time) *directory.Record {
		return &directory.Record{State: state, ValidTill: till}
	}
	for _, tc := range []struct {
		name        string
		d           directory.TRQPDeclaration
		reg, origin string
		rec         *directory.Record
		yes         bool
		message     string
	}{
		{"live", pos, "live", "", rec("live", nil), true, "listed and live"},
		{"valid_till ahead", pos, "live", "", rec("live", &future), true, "listed and live"},
		{"valid_till past", pos, "live", "", rec("live", &past), false, "the record is expired"},
		{"suspended", pos, "live", "", rec("suspended", nil), false, "the record is suspended"},
		{"revoked", pos, "live", "", rec("revoked", nil), false, "the record is revoked"},
		{"draft", pos, "live", "", rec("draft", nil), false, "not listed"},
		{"not listed", pos, "live", "", nil, false, "not listed"},
		{"inactive registry", pos, "inactive", "", rec("live", nil), false, "the registry is inactive"},
		{"archived registry", pos, "archived", "", rec("live", nil), false, "the registry is archived"},
		{"revoked registry", pos, "revoked", "", rec("live", nil), false, "the registry is revoked"},
		{"origin live", pos, "live", "live", rec("live", nil), true, "listed and live"},
		{"origin stale", pos, "live", "stale", rec("live", nil), false, "the registry's publisher file is stale"},
		{"origin withdrawn", pos, "live", "withdrawn", rec("live", nil), false, "the registry's publisher file is withdrawn"},
		{"negative listed", neg, "live", "", rec("live", nil), false, "listed as revoked"},
		{"negative listing revoked", neg, "live", "", rec("revoked", nil), true, "the listing is revoked"},
		{"negative listing expired", neg, "live", "", rec("live", &past), true, "the listing is expired"},
		{"negative not listed", neg, "live", "", nil, true, "not listed"},
		{"negative draft", neg, "live", "", rec("draft", nil), true, "not listed"},
		{"negative origin stale", neg, "live", "stale", nil, false, "the registry's publisher file is stale"},
		{"negative revoked registry", neg, "revoked", "", nil, false, "the registry is revoked"},
	} {
		got := directory.DecideTRQP(tc.d, tc.reg, tc.origin, tc.rec, now)
		if got.Yes != tc.yes || got.Message != tc.message {
			t.Errorf("%s: %v %q, want %v %q", tc.name, got.Yes, got.Message, tc.yes, tc.message)
		}
	}
}

func TestParseRegistryTRQP(t *testing.T) {
	d, err := directory.ParseRegistryTRQP(map[string]any{"trqp": map[string]any{
		"authorizations": []any{map[string]any{"action": "issue", "resource": "lic"}},
		"polarity":       "negative", "entity": "details.subject.did"}})
	if err != nil || !d.Negative || len(d.Authorizations) != 1 || len(d.DetailsPath()) != 2 || d.DetailsPath()[1] != "did" {
		t.Fatalf("%+v %v", d, err)
	}
	if d, err := directory.ParseRegistryTRQP(map[string]any{"other": 1}); d != nil || err != nil {
		t.Fatalf("no declaration: %+v %v", d, err)
	}
	other := &directory.TRQPDeclaration{Authorizations: []directory.TRQPPair{{"issue", "lic"}}}
	if err := directory.TRQPConflict(d, map[string]*directory.TRQPDeclaration{"b": other}); !directory.IsConflict(err) {
		t.Fatalf("conflict: %v", err)
	}
	if err := directory.TRQPConflict(d, map[string]*directory.TRQPDeclaration{"b": {Recognitions: other.Authorizations}}); err != nil {
		t.Fatalf("a recognition pair is no conflict with an authorization pair: %v", err)
	}
}
