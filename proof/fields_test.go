package proof

import (
	"sort"
	"strings"
	"testing"
	"time"
)

const (
	kaNamespaceID = "did:svc:5HueCGU8rMjxEXxiPuD5BD"
	kaCreator     = "did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj"
	kaGenesis     = "2026-11-22T08:00:00.000Z"
)

// Known answers from the JavaScript reference. Reproduce with (in a prepared copy of
// shared/conformance, see `make conformance`): write each Object() below as one JSON line and
// run `node digest.mjs < lines.ndjson`.
func TestDigestFieldsKnownAnswers(t *testing.T) {
	tests := []struct {
		name   string
		fields interface {
			Object() map[string]any
			Digest() (string, error)
		}
		keys string
		want string
	}{
		{"namespace", NamespaceFields{NamespaceID: kaNamespaceID, Description: "Acme", Genesis: kaGenesis, CreatedBy: kaCreator,
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6d", VersionCount: 1},
			"created_by,description,genesis,namespace_id,version,version_count",
			"0x68a2381f85cc8f484e92167d8af6287022c7d512b6740b3b8517630aa7f00408"},
		{"registry (nil meta is {})", RegistryFields{NamespaceID: kaNamespaceID, RegistryName: "employees", Schema: map[string]any{"type": "object"},
			Tag: "custom", Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6e", VersionCount: 2, State: "inactive", Genesis: kaGenesis,
			CreatedBy: kaCreator, TTL: 600},
			"created_by,description,genesis,meta,namespace_id,registry_name,schema,state,tag,ttl,version,version_count",
			"0x7e25dbdbe67e328c698310ee7323bcc7e97e2128cc4a2c9e35e6db0a112877a3"},
		{"record", RecordFields{NamespaceID: kaNamespaceID, RegistryID: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6", RegistryName: "employees",
			RecordName: "alice", Description: "Alice", Details: map[string]any{"email": "alice@example.com", "tags": []any{"a", "b"}, "n": 1.5},
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6f", VersionCount: 3, State: "live", Genesis: kaGenesis, CreatedBy: kaCreator,
			Meta: map[string]any{"src": "hr"}, TTL: 300},
			"created_by,description,details,genesis,meta,namespace_id,record_name,registry_id,registry_name,state,ttl,version,version_count",
			"0x979eaf921b2187b969e350808bf94f37e4e2a3ab1a60f1c6279b66b55f1aa5ea"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var keys []string
			for k := range tc.fields.Object() {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if got := strings.Join(keys, ","); got != tc.keys {
				t.Fatalf("digest fields %s, want %s", got, tc.keys)
			}
			got, err := tc.fields.Digest()
			if err != nil || got != tc.want {
				t.Fatalf("digest %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestGenesisForms(t *testing.T) {
	hexForm := GenesisHex(kaGenesis)
	if hexForm != "0x323032362d31312d32325430383a30303a30302e3030305a" {
		t.Fatalf("GenesisHex = %s", hexForm)
	}
	for _, in := range []string{kaGenesis, hexForm} {
		got, err := GenesisFromEither(in)
		if err != nil || got != kaGenesis {
			t.Fatalf("GenesisFromEither(%s) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"0x", "0xzz", "0x123", "0xff"} {
		if _, err := GenesisFromEither(bad); err == nil {
			t.Fatalf("GenesisFromEither(%q) accepted", bad)
		}
	}
}

func TestProofTypes(t *testing.T) {
	if got := ProofType(KindRecord, 2026); got != "SvcRecordProof2026" {
		t.Fatal(got)
	}
	tests := []struct {
		in   string
		kind Kind
		year int
		ok   bool
	}{
		{"SvcNamespaceProof2025", KindNamespace, 2025, true},
		{"SvcRegistryProof2026", KindRegistry, 2026, true},
		{"SvcRecordProof2031", KindRecord, 2031, true},
		{"SvcRecordProof26", 0, 0, false},
		{"SvcRecordProof+026", 0, 0, false},
		{"SvcRecordProof20266", 0, 0, false},
		{"svcRecordProof2026", 0, 0, false},
		{"SvcThingProof2026", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			k, y, err := ParseProofType(tc.in)
			if (err == nil) != tc.ok || k != tc.kind || y != tc.year {
				t.Fatalf("got %v %d %v", k, y, err)
			}
		})
	}
	if KindRegistry.String() != "registry" {
		t.Fatal(KindRegistry.String())
	}
}

func TestTimeForms(t *testing.T) {
	ts := time.Date(2026, 11, 22, 8, 0, 0, 123456789, time.FixedZone("x", 3600))
	if got := FormatTime(ts); got != "2026-11-22T07:00:00.123Z" {
		t.Fatal(got)
	}
	for _, in := range []string{"2026-11-22T07:00:00.123Z", "2026-11-22T08:00:00.123+01:00"} {
		got, err := ParseTime(in)
		if err != nil || FormatTime(got) != "2026-11-22T07:00:00.123Z" {
			t.Fatalf("ParseTime(%s) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseTime("2026-11-22"); err == nil {
		t.Fatal("a date is not a timestamp")
	}
	if NetworkGenesis("x") != DigestBytes([]byte("x")) || len(NetworkGenesis("x")) != 66 {
		t.Fatal("network genesis")
	}
}
