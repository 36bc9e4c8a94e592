package server

import (
	"testing"

	"github.com/svc-directory/svc/gen"
)

// BenchmarkRenderRecordLookup is the encoding of one record lookup's answer, which every
// uncached lookup pays (make bench reports its time and allocations).
func BenchmarkRenderRecordLookup(b *testing.B) {
	details := map[string]any{"address": map[string]any{"city": "München", "street": "22 Main Street", "zip": "70673"},
		"email": "Frances.Turing.3@example.com", "name": map[string]any{"first": "Frances", "last": "Turing"},
		"number": 3.0, "tags": []any{"employee", "ops", "grade-7"}}
	const ts = "2026-11-26T20:00:00.123Z"
	body := gen.RecordLookupResponse{Message: "Record found", Data: gen.Record{
		Namespace: "acme", NamespaceId: "did:svc:M3w4EarQMdSF2X97cKVCNm", RegistryId: "0193f0c2-5a4e-7b9a-8c1d-2e3f4a5b6c7d",
		RegistryName: "r0", RegistryState: gen.RegistryStateLive, RecordId: "0193f0c2-5a4e-7b9a-8c1d-2e3f4a5b6c7e",
		RecordName: "person-0000003", Digest: "blake2b-256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
		Schema: gen.JSONObject{"type": "object"}, Details: gen.JSONObject(details), Meta: gen.JSONObject{},
		Version: "0193f0c2-5a4e-7b9a-8c1d-2e3f4a5b6c7f", VersionCount: 1, CreatedAt: ts, UpdatedAt: ts,
		Genesis: ts, CreatedBy: "did:svc:M3w4EarQMdSF2X97cKVCNm", State: gen.RecordStateLive,
		EffectiveState: gen.RecordEffectiveStateLive, Ttl: 3600,
		Proof: gen.Proof{Type: "svc-2026", NamespaceDid: "did:svc:M3w4EarQMdSF2X97cKVCNm",
			CreatorDid: "did:svc:M3w4EarQMdSF2X97cKVCNm", Digest: "blake2b-256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"},
	}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := render(body, body.Data.Digest, 3600); err != nil {
			b.Fatal(err)
		}
	}
}
