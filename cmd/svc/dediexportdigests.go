package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"github.com/svc-directory/svc/dedi"
)

// svc dedi export --digests (docs/dedi-files.md, "The digests document"): the files' digests go
// into a signed digests document that the manifest names, so that a content change re-signs
// that document and the changed files only, and the manifest keeps its bytes.

// digestsName is the digests document's file in the export's directory, served at --base-url +
// this (the draft recommends /dedi/dedi.digests.json).
const digestsName = "dedi.digests.json"

// writeDigests signs and writes the digests document of the files written: its updated_at is
// the last one's while no digest changed, and it expires at next.
func (e *exporter) writeDigests(next time.Time) error {
	d := &dedi.Digests{Domain: e.domain, UpdatedAt: e.now, NextUpdate: next, Digests: e.fileDigests}
	if p := e.previousDigests; p != nil && maps.Equal(p.Digests, e.fileDigests) && p.Domain == e.domain {
		d.UpdatedAt = p.UpdatedAt
	}
	b, err := dedi.SignDigests(d, e.key)
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(e.dir, digestsName), b); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %d digest(s), updated_at %s, next_update %s\n", digestsName, len(d.Digests),
		d.UpdatedAt.Format(time.RFC3339), next.Format(time.RFC3339))
	return nil
}

// keepManifest reports whether the last export's manifest stays byte for byte: it named this
// digests document, its content (domain, name, description, keys, registries and their URLs,
// inline files) is the same, it was signed by this key, and it is fresh for at least half of
// --manifest-valid-for more.
func (e *exporter) keepManifest(m *dedi.Manifest) bool {
	p := e.previous
	return p != nil && p.DigestsURL == m.DigestsURL && e.previousContent == manifestContent(m, e.dir) &&
		p.Proof.VerificationMethod == e.key.Kid && p.Key(e.key.Kid) != nil && p.Key(e.key.Kid).Same(e.key.Public()) &&
		p.NextUpdate.Sub(e.now) >= e.manifestValidFor/2
}

// keepFile reports whether a referenced file of a --digests export keeps its last bytes: its
// content is the same, it was signed by this key at the same URL, and it is fresh for at least
// half of --valid-for more.
func (e *exporter) keepFile(inline, same bool, prev, f *dedi.File) bool {
	return e.digests && !inline && same && prev.SourceURL == f.SourceURL && prev.Publisher.Key.Same(e.key.Public()) &&
		prev.Publisher.Domain == f.Publisher.Domain && prev.NextUpdate.Sub(e.now) >= e.validFor/2
}
