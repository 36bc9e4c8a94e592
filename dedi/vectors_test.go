package dedi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func readVector(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The vectors must stay byte for byte as published (testdata/README.md).
func TestVectorsAreUnchanged(t *testing.T) {
	want := map[string]string{
		"lifecycle.json":            "5ca427656dc7160fe6401a8e41d7f51f8d78357bd35651af2d97a0c5abf9ed2e",
		"removed-key-manifest.json": "54d4d84df53a8882b70f0e5bcde05679921877acfa9eec559e6447e756699ebb",
		"tampered-file.json":        "31c298e77b49fb36df0af1bf74386822e3a429a9e391e60aafe6eb16e9729e5e",
		"valid-file.json":           "7715690078c71a339a5566377ac4e7183091a111413683094414784aa4348756",
		"valid-manifest.json":       "821bf11d0f3738f3922876651bb033c12043fd67dc845df1f8b3d9a5a6896c2d",
	}
	for name, sum := range want {
		got := sha256.Sum256(readVector(t, name))
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s changed: sha-256 %x, published %s", name, got, sum)
		}
	}
}

// evaluationTime is the vectors' evaluation_time (lifecycle.json).
const evaluationTime = "2026-08-22T06:30:00Z"

func TestPublishedVectors(t *testing.T) {
	for _, tc := range []struct {
		name, file, manifest, at string
		want                     Outcome
	}{
		{"valid file, valid manifest", "valid-file.json", "valid-manifest.json", evaluationTime, Authentic},
		{"valid at its next_update", "valid-file.json", "valid-manifest.json", "2026-09-01T00:00:00Z", Authentic},
		{"valid a second after its next_update", "valid-file.json", "valid-manifest.json", "2026-09-01T00:00:01Z", Stale},
		{"tampered file", "tampered-file.json", "valid-manifest.json", evaluationTime, BadSignature},
		{"key removed from the manifest", "valid-file.json", "removed-key-manifest.json", evaluationTime, NotAuthenticated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Verify(context.Background(), Input{File: readVector(t, tc.file), Manifest: readVector(t, tc.manifest),
				ManifestURL: WellKnownURL("publisher.example"), Now: mustTime(t, tc.at)})
			if res.Outcome != tc.want {
				t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Reason, tc.want)
			}
		})
	}
	// The manifest of the valid pair is itself authentic, and lists the file by its digest.
	m, err := ParseManifest(readVector(t, "valid-manifest.json"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckManifest(m, WellKnownURL("publisher.example")); err != nil {
		t.Fatal(err)
	}
	if e := m.Entry("keys"); e == nil || e.Digest != Digest(readVector(t, "valid-file.json")) {
		t.Fatalf("entry %+v", e)
	}
}

// lifecycleCase is one case of lifecycle.json.
type lifecycleCase struct {
	ID                 string   `json:"id"`
	Kind               string   `json:"kind"`
	NextUpdate         string   `json:"next_update"`
	RegistryState      string   `json:"registry_state"`
	ObservedUpdatedAt  string   `json:"observed_updated_at"`
	CandidateUpdatedAt string   `json:"candidate_updated_at"`
	PreviousKeys       []string `json:"previous_keys"`
	CurrentKeys        []string `json:"current_keys"`
	FileKey            string   `json:"file_key"`
	CachedNextUpdate   string   `json:"cached_next_update"`
	RefreshSucceeded   *bool    `json:"refresh_succeeded"`
	Expected           string   `json:"expected"`
}

// expectedOutcome maps the vectors' expectations to outcome words.
var expectedOutcome = map[string]Outcome{
	"accept":                       Authentic,
	"accept-cached":                Authentic,
	"reject-stale":                 Stale,
	"reject-inactive":              Inactive,
	"reject-rollback":              Rollback,
	"reject-removed-key":           NotAuthenticated,
	"reject-unavailable-authority": UnavailableAuthority,
}

// TestLifecycle turns every case of lifecycle.json into signed documents evaluated by Verify
// at the vectors' evaluation time. A case of an unknown kind or expectation fails the test.
func TestLifecycle(t *testing.T) {
	var vec struct {
		EvaluationTime string          `json:"evaluation_time"`
		Cases          []lifecycleCase `json:"cases"`
	}
	if err := json.Unmarshal(readVector(t, "lifecycle.json"), &vec); err != nil {
		t.Fatal(err)
	}
	if len(vec.Cases) != 11 {
		t.Fatalf("%d cases, want the 11 published", len(vec.Cases))
	}
	now := vec.EvaluationTime
	for _, c := range vec.Cases {
		t.Run(c.ID, func(t *testing.T) {
			want, ok := expectedOutcome[c.Expected]
			if !ok {
				t.Fatalf("unknown expectation %q", c.Expected)
			}
			fx := newFixture(t)
			var accepted Accepted
			fetched := true
			switch c.Kind {
			case "manifest":
				fx.manifestNext = mustTime(t, c.NextUpdate)
			case "file":
				fx.file.NextUpdate = mustTime(t, c.NextUpdate)
				fx.file.Registry.State = c.RegistryState
			case "manifest-sequence":
				old := newFixture(t)
				old.manifestUpdated = mustTime(t, c.ObservedUpdatedAt)
				_, oldManifest := old.build(t)
				accepted.Manifest = mustManifest(t, oldManifest)
				fx.manifestUpdated = mustTime(t, c.CandidateUpdatedAt)
			case "key-state":
				fx.key = testKey(c.FileKey)
				prev := newFixture(t)
				prev.manifestKeys, prev.manifestKey = keysOf(c.PreviousKeys), testKey(c.PreviousKeys[0])
				_, prevManifest := prev.build(t)
				accepted.Manifest = mustManifest(t, prevManifest)
				fx.manifestKeys, fx.manifestKey = keysOf(c.CurrentKeys), testKey(c.CurrentKeys[len(c.CurrentKeys)-1])
			case "refresh":
				if c.RefreshSucceeded == nil || *c.RefreshSucceeded {
					t.Fatalf("refresh case without a failed refresh")
				}
				fx.manifestNext = mustTime(t, c.CachedNextUpdate)
				fetched = false
			default:
				t.Fatalf("unknown kind %q", c.Kind)
			}
			in := fx.input(t, now)
			in.Accepted = accepted
			if !fetched {
				in.Accepted.Manifest = mustManifest(t, in.Manifest)
				in.Manifest = nil
			}
			res := Verify(context.Background(), in)
			if res.Outcome != want {
				t.Fatalf("outcome %s (%s), want %s (%s)", res.Outcome, res.Reason, want, c.Expected)
			}
			if res.Cached != (c.Expected == "accept-cached" || c.Expected == "reject-unavailable-authority") {
				t.Fatalf("cached %v for %s", res.Cached, c.Expected)
			}
		})
	}
}

func mustManifest(t testing.TB, raw []byte) *Manifest {
	t.Helper()
	m, err := ParseManifest(raw, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func keysOf(kids []string) []Key {
	var out []Key
	for _, k := range kids {
		out = append(out, testKey(k).Public())
	}
	return out
}

var _ = time.Second
