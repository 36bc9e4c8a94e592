package proof

import "testing"

// benchRecord is a realistic record: about 1 KiB of details with nested names, emails,
// an address, phones, tags and projects.
func benchRecord() RecordFields {
	return RecordFields{
		NamespaceID: kaNamespaceID, RegistryID: kaRegistryID, RegistryName: "employees",
		RecordName: "alice.example", Description: "Alice Example, platform engineering (Zürich office)",
		Details: map[string]any{
			"name":    map[string]any{"first": "Alice", "middle": "Quinn", "last": "Example", "display": "Alice Q. Example", "preferred": "Ali"},
			"emails":  []any{"alice.example@example.com", "a.example@corp.example.org", "alice@personal.example.net"},
			"phones":  []any{map[string]any{"type": "work", "number": "+41 44 555 01 00"}, map[string]any{"type": "mobile", "number": "+41 79 555 01 01"}},
			"address": map[string]any{"street": "Bahnhofstrasse 1", "city": "Zürich", "zip": "8001", "region": "ZH", "country": "CH"},
			"tags":    []any{"employee", "engineering", "platform", "grade-7", "remote-friendly", "on-call", "mentor"},
			"since":   "2021-04-01T00:00:00.000Z", "level": 7.0, "salary_band": "E7", "fte": 0.8, "active": true, "manager": nil,
			"projects": []any{
				map[string]any{"id": "p-1042", "name": "Directory proofs", "role": "lead", "share": 0.5},
				map[string]any{"id": "p-2077", "name": "Anchor log", "role": "member", "share": 0.3},
			},
			"languages": []any{"de", "fr", "en", "it"},
			"notes":     "Speaks German, French and English; prefers <email> & chat. Out of office 2026-12-24 – 2027-01-02.",
			"badge":     map[string]any{"id": 40211.0, "issued": "2021-04-01", "zones": []any{"A", "B", "lab-3"}},
		},
		Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6f", VersionCount: 3, State: "live", Genesis: kaGenesis,
		CreatedBy: kaCreator, Meta: map[string]any{"source": "hr-import", "batch": 42.0, "imported_at": "2026-11-22T07:59:58.120Z"}, TTL: 600,
	}
}

func BenchmarkCanonicalizeRecord(b *testing.B) {
	obj := benchRecord().Object()
	buf, err := Canonicalize(obj)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = AppendCanonical(buf[:0], obj); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDigestRecord(b *testing.B) {
	f := benchRecord()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Digest(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDigestRecordObject(b *testing.B) {
	f := benchRecord()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Digest(f.Object()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseJSONRecord(b *testing.B) {
	data, err := Canonicalize(benchRecord().Object())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseJSON(data, 64); err != nil {
			b.Fatal(err)
		}
	}
}
