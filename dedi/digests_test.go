package dedi

import (
	"context"
	"strings"
	"testing"
	"time"
)

// digestsFixture is the fixture's publisher with a digests document: the manifest names it and
// lists the file without a digest of its own (unless manifestDigest is set).
type digestsFixture struct {
	*fixture
	digests        Digests
	digestsKey     PrivateKey
	manifestDigest string // files[].digest in the manifest ("" none)
	digestsURL     string
}

func newDigestsFixture(t testing.TB) *digestsFixture {
	fx := newFixture(t)
	return &digestsFixture{fixture: fx, digestsKey: fx.key, digestsURL: "https://pub.example" + DigestsPath,
		digests: Digests{Domain: "pub.example", UpdatedAt: mustTime(t, "2026-08-21T00:00:00Z"), NextUpdate: mustTime(t, "2026-08-23T00:00:00Z")}}
}

// build signs the file, the digests document (committing to the file unless digests is set
// already) and the manifest.
func (dx *digestsFixture) build(t testing.TB) (file, manifest, digests []byte) {
	t.Helper()
	file, err := SignFile(&dx.file, dx.key)
	if err != nil {
		t.Fatal(err)
	}
	if dx.digests.Digests == nil {
		dx.digests.Digests = map[string]string{dx.file.Registry.Name: Digest(file)}
	}
	if digests, err = SignDigests(&dx.digests, dx.digestsKey); err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Domain: dx.domain, Keys: dx.manifestKeys, UpdatedAt: dx.manifestUpdated, NextUpdate: dx.manifestNext, DigestsURL: dx.digestsURL,
		Files: []Entry{{Registry: dx.file.Registry.Name, URL: dx.file.SourceURL, Digest: dx.manifestDigest}}}
	if manifest, err = SignManifest(m, dx.manifestKey); err != nil {
		t.Fatal(err)
	}
	return file, manifest, digests
}

func (dx *digestsFixture) input(t testing.TB) Input {
	file, manifest, digests := dx.build(t)
	return Input{File: file, Manifest: manifest, ManifestURL: WellKnownURL(dx.domain), Digests: digests, Now: mustTime(t, now)}
}

func mustDigests(t testing.TB, raw []byte) *Digests {
	t.Helper()
	d, err := ParseDigests(raw, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDigestsDocument(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dx *digestsFixture, in *Input)
		want   Outcome
		from   string // Result.DigestFrom when authentic
		reason string
	}{
		{"authentic through the digests document", func(*testing.T, *digestsFixture, *Input) {}, Authentic, FromDigests, ""},
		{"the digests document takes precedence over files[].digest", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.manifestDigest = "sha-256:" + strings.Repeat("0", 64) // an older file's
			*in = dx.input(t)
		}, Authentic, FromDigests, ""},
		{"the digests document's digest is not the file's", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.manifestDigest = Digest(in.File) // the manifest agrees with the file; the digests document wins
			dx.digests.Digests = map[string]string{"keys": "sha-256:" + strings.Repeat("a", 64)}
			*in = dx.input(t)
		}, DigestMismatch, "", "the digests document lists"},
		{"a registry the digests document leaves out falls back to files[].digest", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.manifestDigest = Digest(in.File)
			dx.digests.Digests = map[string]string{"other": "sha-256:" + strings.Repeat("a", 64)}
			*in = dx.input(t)
		}, Authentic, FromManifest, ""},
		{"no digest anywhere: the file rests on its signature", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.digests.Digests = map[string]string{}
			*in = dx.input(t)
		}, Authentic, FromNone, ""},
		{"no digest anywhere does not lift the rollback rule", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.digests.Digests = map[string]string{}
			*in = dx.input(t)
			in.Accepted.FileUpdatedAt = dx.file.Registry.UpdatedAt.Add(time.Hour)
		}, Rollback, "", "older than the accepted"},
		{"a digest by an algorithm svc does not check", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.digests.Digests = map[string]string{"keys": "sha-512:abcd"}
			*in = dx.input(t)
		}, DigestMismatch, "", "sha-256 digests only"},
		{"not given and none accepted", func(_ *testing.T, _ *digestsFixture, in *Input) { in.Digests = nil }, DigestsUnavailable, "", "cannot be had"},
		{"not fetched: the accepted copy stands in while fresh", func(t *testing.T, _ *digestsFixture, in *Input) {
			in.Accepted.Digests, in.Digests = mustDigests(t, in.Digests), nil
		}, Authentic, FromDigests, ""},
		{"not fetched: the accepted copy expired", func(t *testing.T, _ *digestsFixture, in *Input) {
			in.Accepted.Digests, in.Digests = mustDigests(t, in.Digests), nil
			in.Now = mustTime(t, "2026-08-23T00:00:01Z")
		}, DigestsUnavailable, "", "expired"},
		{"not fetched: the accepted copy's key was removed", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.digestsKey = testKey("old")
			dx.manifestKeys = append(dx.manifestKeys, dx.digestsKey.Public())
			_, _, old := dx.build(t)
			in.Accepted.Digests, in.Digests = mustDigests(t, old), nil // in.Manifest no longer lists "old"
		}, DigestsNotAuthenticated, "", "not among the manifest's keys"},
		{"signed by a key the manifest does not list", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.digestsKey = testKey("stranger")
			*in = dx.input(t)
		}, DigestsNotAuthenticated, "", "not among the manifest's keys"},
		{"signed by a second listed key", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.digestsKey = testKey("key-2")
			dx.manifestKeys = append(dx.manifestKeys, dx.digestsKey.Public())
			*in = dx.input(t)
		}, Authentic, FromDigests, ""},
		{"another domain", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.digests.Domain = "evil.example"
			*in = dx.input(t)
		}, DigestsNotAuthenticated, "", "names domain evil.example"},
		{"the domain in capitals is the same domain", func(t *testing.T, dx *digestsFixture, in *Input) {
			dx.digests.Domain = "PUB.Example"
			*in = dx.input(t)
		}, Authentic, FromDigests, ""},
		{"changed after signing", func(_ *testing.T, _ *digestsFixture, in *Input) {
			in.Digests = []byte(strings.Replace(string(in.Digests), `"updated_at": "2026-08-21`, `"updated_at": "2026-08-22`, 1))
		}, DigestsNotAuthenticated, "", "does not verify"},
		{"stale", func(t *testing.T, _ *digestsFixture, in *Input) { in.Now = mustTime(t, "2026-08-23T00:00:01Z") }, DigestsStale, "", "expired"},
		{"fresh at the exact second of next_update", func(t *testing.T, _ *digestsFixture, in *Input) {
			in.Now = mustTime(t, "2026-08-23T00:00:00Z")
		}, Authentic, FromDigests, ""},
		{"older than the accepted one", func(t *testing.T, dx *digestsFixture, in *Input) {
			newer := *dx
			newer.digests.UpdatedAt = dx.digests.UpdatedAt.Add(time.Hour)
			_, _, nd := newer.build(t)
			in.Accepted.Digests = mustDigests(t, nd)
		}, DigestsRollback, "", "older than the accepted"},
		{"not JSON", func(_ *testing.T, _ *digestsFixture, in *Input) { in.Digests = []byte(`{"dedi_version": `) }, DigestsInvalid, "", "invalid JSON"},
		{"a member the schema does not define", func(_ *testing.T, _ *digestsFixture, in *Input) {
			in.Digests = []byte(strings.Replace(string(in.Digests), `"type": "dedi-digests",`, `"type": "dedi-digests", "extra": 1,`, 1))
		}, DigestsInvalid, "", "extra"},
		{"larger than the cap", func(_ *testing.T, _ *digestsFixture, in *Input) {
			in.Digests = append(in.Digests, make([]byte, DefaultMaxManifestBytes)...)
		}, DigestsInvalid, "", "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dx := newDigestsFixture(t)
			in := dx.input(t)
			tc.change(t, dx, &in)
			res := Verify(ctx, in)
			if res.Outcome != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("outcome %s (%s), want %s (%q)", res.Outcome, res.Reason, tc.want, tc.reason)
			}
			if tc.want == Authentic && res.DigestFrom != tc.from {
				t.Fatalf("digest from %q, want %q", res.DigestFrom, tc.from)
			}
		})
	}
}

// TestDigestsLeaveInlineFilesAlone: the manifest's own signature covers an inline file, so a
// digests document that cannot be had does not touch it.
func TestDigestsLeaveInlineFilesAlone(t *testing.T) {
	fx := newFixture(t)
	fx.inline = true
	file, _ := fx.build(t)
	f := mustFile(t, file)
	canon, err := f.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Domain: fx.domain, Keys: fx.manifestKeys, UpdatedAt: fx.manifestUpdated, NextUpdate: fx.manifestNext,
		DigestsURL: "https://pub.example" + DigestsPath, Files: []Entry{{Registry: "keys", Inline: canon}}}
	mb, err := SignManifest(m, fx.key)
	if err != nil {
		t.Fatal(err)
	}
	res := Verify(context.Background(), Input{File: canon, Manifest: mb, ManifestURL: WellKnownURL(fx.domain), Now: mustTime(t, now)})
	if res.Outcome != Authentic {
		t.Fatalf("%s: %s", res.Outcome, res.Reason)
	}
}

// TestDigestsWithoutAny: a manifest that names no digests document and lists a file without a
// digest: the file rests on its own signature and domain binding.
func TestNoDigestAnywhere(t *testing.T) {
	dx := newDigestsFixture(t)
	dx.digestsURL = ""
	file, manifest, _ := dx.build(t)
	res := Verify(context.Background(), Input{File: file, Manifest: manifest, ManifestURL: WellKnownURL(dx.domain), Now: mustTime(t, now)})
	if res.Outcome != Authentic || res.DigestFrom != FromNone {
		t.Fatalf("%s (%s), from %q", res.Outcome, res.Reason, res.DigestFrom)
	}
	// Another authentic file of the same registry, older, is accepted too, unless the
	// verifier knows the newer one: what the lost digest costs, and what the rollback rule holds.
	f2 := *dx.fixture
	older := *dx
	older.fixture = &f2
	older.file.Registry.UpdatedAt = dx.file.Registry.UpdatedAt.Add(-24 * time.Hour)
	older.file.Records = older.file.Records[:1]
	oldFile, _, _ := older.build(t)
	res = Verify(context.Background(), Input{File: oldFile, Manifest: manifest, ManifestURL: WellKnownURL(dx.domain), Now: mustTime(t, now)})
	if res.Outcome != Authentic {
		t.Fatalf("an older authentic file: %s (%s)", res.Outcome, res.Reason)
	}
	res = Verify(context.Background(), Input{File: oldFile, Manifest: manifest, ManifestURL: WellKnownURL(dx.domain), Now: mustTime(t, now),
		Accepted: Accepted{FileUpdatedAt: dx.file.Registry.UpdatedAt}})
	if res.Outcome != Rollback {
		t.Fatalf("an older file after the newer was accepted: %s (%s)", res.Outcome, res.Reason)
	}
}

func mustFile(t testing.TB, raw []byte) *File {
	t.Helper()
	f, err := ParseFile(raw, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
