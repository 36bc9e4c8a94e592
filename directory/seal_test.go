package directory

import (
	"regexp"
	"testing"
	"time"
)

// A sealed version has a fresh version id, the proof type of its year, and the digest of its
// fields; taking fresh canonical text gives the digest the values give.
func TestSeal(t *testing.T) {
	st := StampAt(time.Date(2026, 11, 25, 8, 0, 0, 123456789, time.UTC))
	if st.Text != "2026-11-25T08:00:00.123Z" || st.Year != 2026 {
		t.Fatalf("stamp: %+v", st)
	}
	details := map[string]any{"email": "a@example.com", "n": 1.5}
	text, err := CanonicalDetails(details, "")
	if err != nil {
		t.Fatal(err)
	}
	r := Record{NamespaceID: "did:svc:x", RegistryID: "r", RegistryName: "people", RecordName: "alice", Details: details,
		Meta: map[string]any{}, TTL: 600, State: StateLive, VersionCount: 1, Genesis: st.Text, CreatedBy: "did:web:h:p"}
	a := r
	if err := SealRecord(&a, st, &text, nil); err != nil {
		t.Fatal(err)
	}
	b := r
	if err := SealRecord(&b, st, nil, nil); err != nil {
		t.Fatal(err)
	}
	if a.Version == b.Version || a.ProofType != "SvcRecordProof2026" {
		t.Errorf("sealed: %+v / %+v", a, b)
	}
	if !regexp.MustCompile(`^0x[0-9a-f]{32}$`).MatchString(a.Version) || !regexp.MustCompile(`^0x[0-9a-f]{64}$`).MatchString(a.Digest) {
		t.Errorf("forms: version %s digest %s", a.Version, a.Digest)
	}
	want, err := a.Fields().Digest()
	if err != nil || want != a.Digest {
		t.Errorf("digest %s, fields give %s (%v)", a.Digest, want, err)
	}
}
