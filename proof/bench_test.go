package proof

import "testing"

func benchRecord() RecordFields {
	return RecordFields{
		NamespaceID: kaNamespaceID, RegistryID: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6", RegistryName: "employees",
		RecordName: "alice", Description: "Alice Example, engineering",
		Details: map[string]any{
			"name":    map[string]any{"first": "Alice", "last": "Example", "display": "Alice Q. Example"},
			"email":   "alice.example@example.com",
			"phones":  []any{"+1 555 0100", "+1 555 0101"},
			"address": map[string]any{"street": "1 Main Street", "city": "Zürich", "zip": "8001", "country": "CH"},
			"tags":    []any{"employee", "engineering", "grade-7", "remote", "on-call"},
			"since":   "2021-04-01T00:00:00.000Z", "level": 7.0, "active": true, "manager": nil,
			"projects": []any{map[string]any{"id": "p-1", "role": "lead"}, map[string]any{"id": "p-2", "role": "member"}},
			"notes":    "Speaks German, French and English; prefers <email> & chat.",
		},
		Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6f", VersionCount: 3, State: "live", Genesis: kaGenesis,
		CreatedBy: kaCreator, Meta: map[string]any{"source": "hr-import", "batch": 42.0}, TTL: 600,
	}
}

func BenchmarkCanonicalizeRecord(b *testing.B) {
	obj := benchRecord().Object()
	buf := make([]byte, 0, 2048)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var err error
		if buf, err = AppendCanonical(buf[:0], obj); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkDigestRecord(b *testing.B) {
	f := benchRecord()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f.Digest(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseJSON(b *testing.B) {
	data, _ := Canonicalize(benchRecord().Object())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseJSON(data, 64); err != nil {
			b.Fatal(err)
		}
	}
}
