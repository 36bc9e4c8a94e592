package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/proof"
)

// What an export compares with the last one in the same directory, so that updated_at moves
// only when content changes (and, with --digests, so that unchanged documents keep their bytes).

// previousFile is the registry's file of the last export (in dir, or inline in its manifest),
// and its bytes.
func (e *exporter) previousFile(registry string) (*dedi.File, []byte) {
	if e.previous == nil {
		return nil, nil
	}
	entry := e.previous.Entry(registry)
	if entry == nil {
		return nil, nil
	}
	raw := entry.Inline
	if raw == nil {
		var err error
		if raw, err = os.ReadFile(filepath.Join(e.dir, "dedi."+registry+".json")); err != nil {
			return nil, nil
		}
	}
	f, err := dedi.ParseFile(raw, dedi.Limits{MaxFileBytes: 1 << 40})
	if err != nil {
		return nil, nil
	}
	return f, raw
}

// fileContent is what a registry's updated_at tracks: the namespace, the registry but its
// updated_at, and the records, canonical. The publisher, source_url and next_update are
// re-issue, not content.
func fileContent(f *dedi.File) string {
	recs := make([]any, len(f.Records))
	for i, r := range f.Records {
		recs[i] = map[string]any{"n": r.Name, "d": r.Details, "s": r.Description, "m": nonEmpty(r.Meta)}
	}
	reg := f.Registry
	b, err := proof.Canonicalize(map[string]any{"ns": f.Namespace, "name": reg.Name, "schema": reg.Schema, "state": reg.State,
		"description": reg.Description, "meta": nonEmpty(reg.Meta), "records": recs})
	if err != nil {
		return "" // never equal to another: updated_at moves
	}
	return string(b)
}

// manifestContent is what the manifest's updated_at tracks: its domain, name, description,
// keys, and which registries it lists, where, and their updated_at.
func manifestContent(m *dedi.Manifest, dir string) string {
	keys := make([]string, len(m.Keys))
	for i, k := range m.Keys {
		keys[i] = k.Kid + "=" + k.X
	}
	slices.Sort(keys)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n%s\n%s\n%s\n", m.Domain, m.Name, m.Description, strings.Join(keys, ","))
	fmt.Fprintf(&b, "digests %s\n", m.DigestsURL)
	for _, e := range m.Files {
		raw := e.Inline
		if raw == nil && m.DigestsURL != "" {
			// The digests document commits to a referenced file: its content is not the manifest's.
			fmt.Fprintf(&b, "%s %s\n", e.Registry, e.URL)
			continue
		}
		if raw == nil {
			raw, _ = os.ReadFile(filepath.Join(dir, path(e.URL)))
		}
		updated := ""
		if f, err := dedi.ParseFile(raw, dedi.Limits{MaxFileBytes: 1 << 40}); err == nil {
			updated = f.Registry.UpdatedAt.String()
		}
		fmt.Fprintf(&b, "%s %s %t %s\n", e.Registry, e.URL, e.Inline != nil, updated)
	}
	return b.String()
}

// path is the file name a file URL of this export has in its directory.
func path(fileURL string) string {
	i := strings.LastIndex(fileURL, "/")
	return fileURL[i+1:]
}
