package proof

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	kaNamespaceID = "did:svc:5HueCGU8rMjxEXxiPuD5BD"
	kaRegistryID  = "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6"
	kaCreator     = "did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj"
	kaGenesis     = "2026-11-22T08:00:00.000Z"
)

// digestFields is what the three field types have in common.
type digestFields interface {
	Object() map[string]any
	Digest() (string, error)
}

// Known answers from the JavaScript reference. Each digest is reproduced in the repository's
// conformance directory (after `make conformance`, see the top of vectors_test.go) by printing
// the JSON line given with it and piping it through digest.mjs; add --canonical for the
// canonical text:
//
//	cd conformance
//	printf '%s\n' '<the JSON line>' | node digest.mjs
var knownDigests = []knownDigest{
	{
		name: "namespace",
		fields: NamespaceFields{NamespaceID: kaNamespaceID, Description: "Acme", Genesis: kaGenesis, CreatedBy: kaCreator,
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6d", VersionCount: 1},
		keys:   "created_by,description,genesis,namespace_id,version,version_count",
		json:   `{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","description":"Acme","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","version":"0x0190f2a1b2c3d4e5f60718293a4b5c6d","version_count":1}`,
		digest: "0x68a2381f85cc8f484e92167d8af6287022c7d512b6740b3b8517630aa7f00408",
	},
	{
		name: "registry with nil meta",
		fields: RegistryFields{NamespaceID: kaNamespaceID, RegistryName: "employees", Schema: map[string]any{"type": "object"},
			Tag: "custom", Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6e", VersionCount: 2, State: "inactive", Genesis: kaGenesis,
			CreatedBy: kaCreator, TTL: 600},
		keys:   "created_by,description,genesis,meta,namespace_id,registry_name,schema,state,tag,ttl,version,version_count",
		json:   `{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_name":"employees","description":"","schema":{"type":"object"},"tag":"custom","version":"0x0190f2a1b2c3d4e5f60718293a4b5c6e","version_count":2,"state":"inactive","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{},"ttl":600}`,
		digest: "0x7e25dbdbe67e328c698310ee7323bcc7e97e2128cc4a2c9e35e6db0a112877a3",
	},
	{
		name: "record",
		fields: RecordFields{NamespaceID: kaNamespaceID, RegistryID: kaRegistryID, RegistryName: "employees",
			RecordName: "alice", Description: "Alice", Details: map[string]any{"email": "alice@example.com", "tags": []any{"a", "b"}, "n": 1.5},
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c6f", VersionCount: 3, State: "live", Genesis: kaGenesis, CreatedBy: kaCreator,
			Meta: map[string]any{"src": "hr"}, TTL: 300},
		keys:   "created_by,description,details,genesis,meta,namespace_id,record_name,registry_id,registry_name,state,ttl,version,version_count",
		json:   `{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_id":"0190f2a1-b2c3-7d4e-8f60-718293a4b5c6","registry_name":"employees","record_name":"alice","description":"Alice","details":{"email":"alice@example.com","tags":["a","b"],"n":1.5},"version":"0x0190f2a1b2c3d4e5f60718293a4b5c6f","version_count":3,"state":"live","genesis":"2026-11-22T08:00:00.000Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{"src":"hr"},"ttl":300}`,
		digest: "0x979eaf921b2187b969e350808bf94f37e4e2a3ab1a60f1c6279b66b55f1aa5ea",
	},
	{
		// Every form that matters at once: escapes, U+2028, non-ASCII, keys beyond the BMP and
		// at U+FFFF, 1e21, 1e-7, -0, a rounded large integer, null, nil meta.
		name: "record with every form",
		fields: RecordFields{NamespaceID: kaNamespaceID, RegistryID: kaRegistryID, RegistryName: "employees",
			RecordName: "zoe.mueller", Description: "Zoë – \"lead\" <ops> & co\u2028",
			Details: map[string]any{
				"name": map[string]any{"first": "Zoë", "last": "Müller"}, "emails": []any{"zoe@example.com"},
				"address": map[string]any{"city": "Zürich", "zip": "8001"}, "tags": []any{"a", "b"},
				"score": 1e21, "ratio": 0.1, "tiny": 1e-7, "neg": math.Copysign(0, -1), "big": 123456789012345680000.0,
				"\uffff": "bmp", "😀": "astral", "": nil, "ok": true,
			},
			Version: "0x0190f2a1b2c3d4e5f60718293a4b5c70", VersionCount: 12, State: "draft", Genesis: "2025-01-31T23:59:59.999Z",
			CreatedBy: kaCreator, TTL: 86400},
		keys:   "created_by,description,details,genesis,meta,namespace_id,record_name,registry_id,registry_name,state,ttl,version,version_count",
		json:   `{"namespace_id":"did:svc:5HueCGU8rMjxEXxiPuD5BD","registry_id":"0190f2a1-b2c3-7d4e-8f60-718293a4b5c6","registry_name":"employees","record_name":"zoe.mueller","description":"Zoë – \"lead\" <ops> & co\u2028","details":{"name":{"first":"Zoë","last":"Müller"},"emails":["zoe@example.com"],"address":{"city":"Zürich","zip":"8001"},"tags":["a","b"],"score":1e21,"ratio":0.1,"tiny":1e-7,"neg":-0,"big":123456789012345680000,"\uffff":"bmp","😀":"astral","":null,"ok":true},"version":"0x0190f2a1b2c3d4e5f60718293a4b5c70","version_count":12,"state":"draft","genesis":"2025-01-31T23:59:59.999Z","created_by":"did:web:localhost%3A8080:4vJ9JU1bJJE96FWSJKvHsj","meta":{},"ttl":86400}`,
		digest: "0xcf793036c16fbc7e7a7fba0690c7fc2961ccf3e1da07b22e9c0d784299362884",
	},
}

type knownDigest struct {
	name   string
	fields digestFields
	keys   string // the digest fields, sorted
	json   string // the JSON line given to digest.mjs
	digest string // its answer
}

func TestDigestFieldsKnownAnswers(t *testing.T) {
	for _, tc := range slices.Concat(knownDigests, namespaceStateDigests) {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.fields.Object()
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range obj {
					if !yield(k) {
						return
					}
				}
			})
			if got := strings.Join(keys, ","); got != tc.keys {
				t.Fatalf("digest fields %s, want %s", got, tc.keys)
			}
			got, err := tc.fields.Digest()
			if err != nil || got != tc.digest {
				t.Fatalf("Digest() = %s, %v; want %s", got, err, tc.digest)
			}
			if got, err := Digest(obj); err != nil || got != tc.digest {
				t.Fatalf("Digest(Object()) = %s, %v; want %s", got, err, tc.digest)
			}
			// The JSON line in the comment is the same object.
			parsed, err := ParseJSON([]byte(tc.json), 16)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := Digest(parsed); err != nil || got != tc.digest {
				t.Fatalf("Digest(the JSON line) = %s, %v; want %s", got, err, tc.digest)
			}
		})
	}
}

// TestDigestFieldsWriterMatchesObject holds the Digest methods, which write the canonical
// text straight from the struct, equal to Digest(Object()) over random contents, and checks
// that nil maps are written {} and that errors name the field.
func TestDigestFieldsWriterMatchesObject(t *testing.T) {
	r := newRand(7)
	for i := range 2000 {
		str := func() string { return randomString(r, 6) }
		obj := func() map[string]any {
			if r.IntN(4) == 0 {
				return nil
			}
			m, _ := randomValue(r, 3).(map[string]any)
			return m
		}
		n := func() int64 { return r.Int64N(1<<60) - 1<<59 }
		all := []digestFields{
			NamespaceFields{str(), str(), str(), str(), str(), n(), []string{"", "live", "deleted", str()}[r.IntN(4)]},
			RegistryFields{str(), str(), str(), obj(), str(), str(), n(), str(), str(), str(), obj(), n()},
			RecordFields{str(), str(), str(), str(), str(), obj(), str(), n(), str(), str(), str(), obj(), n()},
		}
		for _, f := range all {
			want, err := Digest(f.Object())
			if err != nil {
				t.Fatal(err)
			}
			if got, err := f.Digest(); err != nil || got != want {
				t.Fatalf("case %d %T: Digest() = %s, %v; Digest(Object()) = %s", i, f, got, err, want)
			}
		}
	}
	for _, tc := range []struct {
		f   digestFields
		msg string
	}{
		{NamespaceFields{Description: "\xff"}, "at /description:"},
		{RegistryFields{Schema: map[string]any{"a": []any{math.NaN()}}}, "at /schema/a/0:"},
		{RecordFields{Meta: map[string]any{"x": struct{}{}}}, "at /meta/x:"},
		{RecordFields{Details: map[string]any{"k": map[string]any{"\xfe": 1}}}, "at /details/k:"},
	} {
		_, err := tc.f.Digest()
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%#v: error %v, want one naming %q", tc.f, err, tc.msg)
		}
		if _, err2 := Digest(tc.f.Object()); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("Digest(Object()) error %v differs from %v", err2, err)
		}
	}
}

func TestGenesisForms(t *testing.T) {
	hexForm := GenesisHex(kaGenesis)
	if hexForm != "0x323032362d31312d32325430383a30303a30302e3030305a" {
		t.Fatalf("GenesisHex = %s", hexForm)
	}
	for _, in := range []string{kaGenesis, hexForm, strings.ToUpper(hexForm[2:])} {
		if in == strings.ToUpper(hexForm[2:]) {
			in = "0x" + in // upper-case digits are still hex
		}
		got, err := GenesisFromEither(in)
		if err != nil || got != kaGenesis {
			t.Fatalf("GenesisFromEither(%s) = %q, %v", in, got, err)
		}
	}
	// Round trip over other texts, non-ASCII included.
	for _, ts := range []string{"2025-01-01T00:00:00.000Z", "x", "Zürich 😀"} {
		if got, err := GenesisFromEither(GenesisHex(ts)); err != nil || got != ts {
			t.Fatalf("round trip of %q: %q, %v", ts, got, err)
		}
	}
	for _, bad := range []string{"0x", "0xzz", "0x123", "0xff", "0xc328", "0x 1"} {
		if got, err := GenesisFromEither(bad); err == nil {
			t.Errorf("GenesisFromEither(%q) = %q, want an error", bad, got)
		}
	}
}

func TestProofTypes(t *testing.T) {
	for _, tc := range []struct {
		k    Kind
		year int
		want string
	}{
		{KindNamespace, 2025, "SvcNamespaceProof2025"},
		{KindRegistry, 2026, "SvcRegistryProof2026"},
		{KindRecord, 2026, "SvcRecordProof2026"},
		{KindRecord, 999, "SvcRecordProof0999"},
		{Kind(0), 2026, ""},
		{KindRecord, 10000, ""},
		{KindRecord, -1, ""},
	} {
		if got := ProofType(tc.k, tc.year); got != tc.want {
			t.Errorf("ProofType(%v, %d) = %q, want %q", tc.k, tc.year, got, tc.want)
		}
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
		{"SvcRecordProof0999", KindRecord, 999, true},
		{"SvcRecordProof26", 0, 0, false},
		{"SvcRecordProof+026", 0, 0, false},
		{"SvcRecordProof-026", 0, 0, false},
		{"SvcRecordProof20266", 0, 0, false},
		{"SvcRecordProof202a", 0, 0, false},
		{"SvcRecordProof２０２６", 0, 0, false},
		{"SvcRecordProof", 0, 0, false},
		{"svcRecordProof2026", 0, 0, false},
		{"SvcThingProof2026", 0, 0, false},
		{" SvcRecordProof2026", 0, 0, false},
		{"SvcRecordProof2026 ", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			k, y, err := ParseProofType(tc.in)
			if (err == nil) != tc.ok || k != tc.kind || y != tc.year {
				t.Fatalf("got %v %d %v", k, y, err)
			}
			if tc.ok && ProofType(k, y) != tc.in {
				t.Fatalf("ProofType(ParseProofType(%s)) = %s", tc.in, ProofType(k, y))
			}
		})
	}
	for k, want := range map[Kind]string{KindNamespace: "namespace", KindRegistry: "registry", KindRecord: "record", 0: "Kind(0)", 7: "Kind(7)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestTimeForms(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC), "2026-11-22T08:00:00.000Z"},
		{time.Date(2026, 11, 22, 8, 0, 0, 123456789, time.FixedZone("CET", 3600)), "2026-11-22T07:00:00.123Z"}, // truncated, like a JS Date
		{time.Date(2025, 12, 31, 23, 59, 59, 999999999, time.UTC), "2025-12-31T23:59:59.999Z"},
		{time.Date(2026, 1, 1, 0, 30, 0, 1000000, time.FixedZone("", -3600)), "2026-01-01T01:30:00.001Z"},
	} {
		if got := FormatTime(tc.in); got != tc.want {
			t.Errorf("FormatTime(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"2026-11-22T07:00:00.123Z", "2026-11-22T07:00:00.123Z"},
		{"2026-11-22T08:00:00.123+01:00", "2026-11-22T07:00:00.123Z"},
		{"2026-11-22T07:00:00Z", "2026-11-22T07:00:00.000Z"},
		{"2026-11-22T02:00:00.5-05:00", "2026-11-22T07:00:00.500Z"},
	} {
		got, err := ParseTime(tc.in)
		if err != nil || FormatTime(got) != tc.want || got.Location() != time.UTC {
			t.Errorf("ParseTime(%s) = %v, %v; want %s in UTC", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"2026-11-22", "", "2026-11-22 07:00:00Z", "2026-02-30T00:00:00.000Z", "yesterday", "2026-11-22T07:00:00.000"} {
		if got, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", bad, got)
		}
	}
}

// DigestCanonical with the canonical text of the objects (either, both or neither) is Digest:
// the text is written as it is.
func TestDigestCanonicalMatchesDigest(t *testing.T) {
	r := newRand(11)
	for i := range 500 {
		str := func() string { return randomString(r, 6) }
		obj := func() map[string]any {
			if r.IntN(4) == 0 {
				return nil
			}
			m, _ := randomValue(r, 3).(map[string]any)
			return m
		}
		f := RecordFields{str(), str(), str(), str(), str(), obj(), str(), r.Int64N(1 << 40), str(), str(), str(), obj(), r.Int64N(1 << 20)}
		want, err := f.Digest()
		if err != nil {
			t.Fatal(err)
		}
		canon := func(m map[string]any) *string {
			b, err := Canonicalize(orEmpty(m))
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			return &s
		}
		for _, texts := range [][2]*string{{canon(f.Details), canon(f.Meta)}, {canon(f.Details), nil}, {nil, canon(f.Meta)}, {nil, nil}} {
			if got, err := f.DigestCanonical(texts[0], texts[1]); err != nil || got != want {
				t.Fatalf("case %d: DigestCanonical = %s, %v; Digest = %s", i, got, err, want)
			}
		}
		g := RegistryFields{str(), str(), str(), obj(), str(), str(), r.Int64N(1 << 40), str(), str(), str(), obj(), r.Int64N(1 << 20)}
		wantReg, err := g.Digest()
		if err != nil {
			t.Fatal(err)
		}
		for _, texts := range [][2]*string{{canon(g.Schema), canon(g.Meta)}, {canon(g.Schema), nil}, {nil, canon(g.Meta)}, {nil, nil}} {
			if got, err := g.DigestCanonical(texts[0], texts[1]); err != nil || got != wantReg {
				t.Fatalf("case %d: registry DigestCanonical = %s, %v; Digest = %s", i, got, err, wantReg)
			}
		}
		// The text is taken as it is: other text is another digest.
		other := `{"x":1}`
		if got, _ := f.DigestCanonical(&other, nil); got == want && *canon(f.Details) != other {
			t.Fatalf("case %d: the details text was not used", i)
		}
	}
}

// The member tables cover every field of the Fields structs exactly once, list the names of
// docs/digests.md, and their canonical order is byte order of the names.
func TestDigestFieldTablesAreComplete(t *testing.T) {
	checkTable(t, namespaceMembers, namespaceCanonical, []string{"namespace_id", "description", "genesis", "created_by", "version", "version_count", "state"})
	checkTable(t, registryMembers, registryCanonical, []string{"namespace_id", "registry_name", "description", "schema", "tag", "version",
		"version_count", "state", "genesis", "created_by", "meta", "ttl"})
	checkTable(t, recordMembers, recordCanonical, []string{"namespace_id", "registry_id", "registry_name", "record_name", "description",
		"details", "version", "version_count", "state", "genesis", "created_by", "meta", "ttl"})
	if FieldNames(Kind(0)) != nil || !slices.Equal(FieldNames(KindRecord), names(recordMembers)) {
		t.Fatal("FieldNames")
	}
}

func checkTable[F any](t *testing.T, ms, canonical []member[F], want []string) {
	t.Helper()
	if got := names(ms); !slices.Equal(got, want) {
		t.Fatalf("%T members %v, want %v", *new(F), got, want)
	}
	if !slices.IsSortedFunc(canonical, func(a, b member[F]) int { return strings.Compare(a.name, b.name) }) || len(canonical) != len(ms) {
		t.Fatalf("%T: canonical order is not byte order of the names", *new(F))
	}
	// Setting each member through the table, one at a time, changes exactly one struct field,
	// a different one each time, and all of them in the end.
	var all F
	rv := reflect.ValueOf(&all).Elem()
	seen := map[int]string{}
	for _, m := range ms {
		var f F
		set(&f, m)
		set(&all, m)
		fv := reflect.ValueOf(f)
		changed := -1
		for i := range fv.NumField() {
			if !fv.Field(i).IsZero() {
				if changed >= 0 {
					t.Fatalf("%T member %s sets two fields", f, m.name)
				}
				changed = i
			}
		}
		if changed < 0 {
			t.Fatalf("%T member %s sets no field", f, m.name)
		}
		if other, dup := seen[changed]; dup {
			t.Fatalf("%T members %s and %s set the same field", f, other, m.name)
		}
		seen[changed] = m.name
	}
	if len(seen) != rv.NumField() {
		t.Fatalf("%T has %d fields, the table sets %d", all, rv.NumField(), len(seen))
	}
}

func set[F any](f *F, m member[F]) {
	switch {
	case m.str != nil:
		*m.str(f) = "x"
	case m.num != nil:
		*m.num(f) = 1
	default:
		*m.object(f) = map[string]any{}
	}
}
