package dedi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/svc-directory/svc/proof"
)

// The JSON forms a publisher writes, members in the order of docs/dedi-files.md.
type (
	fileJSON struct {
		DediVersion string        `json:"dedi_version"`
		Type        string        `json:"type"`
		SourceURL   string        `json:"source_url"`
		NextUpdate  string        `json:"next_update"`
		Publisher   publisherJSON `json:"publisher"`
		Namespace   string        `json:"namespace"`
		Registry    registryJSON  `json:"registry"`
		Records     []recordJSON  `json:"records"`
		Proof       *proofJSON    `json:"proof,omitempty"`
	}
	publisherJSON struct {
		Domain string `json:"domain"`
		Key    Key    `json:"key"`
	}
	registryJSON struct {
		Name        string         `json:"name"`
		Schema      any            `json:"schema"`
		State       string         `json:"state"`
		UpdatedAt   string         `json:"updated_at"`
		Description string         `json:"description,omitempty"`
		Meta        map[string]any `json:"meta,omitempty"`
	}
	recordJSON struct {
		RecordName  string         `json:"record_name"`
		Details     map[string]any `json:"details"`
		Description string         `json:"description,omitempty"`
		Meta        map[string]any `json:"meta,omitempty"`
	}
	proofJSON struct {
		VerificationMethod string `json:"verification_method"`
		Canonicalization   string `json:"canonicalization"`
		JWS                string `json:"jws"`
	}
	manifestJSON struct {
		DediVersion string     `json:"dedi_version"`
		Type        string     `json:"type"`
		Domain      string     `json:"domain"`
		Name        string     `json:"name,omitempty"`
		Description string     `json:"description,omitempty"`
		Keys        []Key      `json:"keys"`
		UpdatedAt   string     `json:"updated_at"`
		NextUpdate  string     `json:"next_update"`
		Digests     string     `json:"digests,omitempty"`
		Files       []any      `json:"files"`
		Proof       *proofJSON `json:"proof,omitempty"`
	}
	referenceJSON struct {
		Registry string `json:"registry"`
		URL      string `json:"url"`
		Digest   string `json:"digest,omitempty"`
	}
	digestsJSON struct {
		DediVersion string            `json:"dedi_version"`
		Type        string            `json:"type"`
		Domain      string            `json:"domain"`
		UpdatedAt   string            `json:"updated_at"`
		NextUpdate  string            `json:"next_update"`
		Digests     map[string]string `json:"digests"`
		Proof       *proofJSON        `json:"proof,omitempty"`
	}
)

// stamp is the form of the timestamps a publisher writes: RFC 3339, UTC, whole seconds.
func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// SignFile writes f as a signed DeDi file (indented JSON with a final newline): version 0.1,
// publisher.key the public key of key, and the proof by key. The other fields are f's; an empty
// Registry.State is "live", nil Details an empty object. The result is parsed and verified again
// before it is returned.
func SignFile(f *File, key PrivateKey) ([]byte, error) {
	doc := fileJSON{DediVersion: "0.1", Type: "dedi-file", SourceURL: f.SourceURL, NextUpdate: stamp(f.NextUpdate),
		Publisher: publisherJSON{Domain: f.Publisher.Domain, Key: key.Public()}, Namespace: f.Namespace,
		Registry: registryJSON{Name: f.Registry.Name, Schema: f.Registry.Schema, State: f.Registry.State,
			UpdatedAt: stamp(f.Registry.UpdatedAt), Description: f.Registry.Description, Meta: f.Registry.Meta},
		Records: make([]recordJSON, len(f.Records))}
	if doc.Registry.State == "" {
		doc.Registry.State = "live"
	}
	for i, r := range f.Records {
		d := r.Details
		if d == nil {
			d = map[string]any{}
		}
		doc.Records[i] = recordJSON{RecordName: r.Name, Details: d, Description: r.Description, Meta: r.Meta}
	}
	out, err := sign(&doc, func(p *proofJSON) { doc.Proof = p }, key)
	if err != nil {
		return nil, err
	}
	g, err := ParseFile(out, Limits{MaxFileBytes: 1 << 40})
	if err == nil {
		err = g.CheckSignature()
	}
	if err != nil {
		return nil, fmt.Errorf("the signed file does not verify: %w", err)
	}
	return out, nil
}

// SignManifest writes m as a signed manifest, signed by key: version 0.1, type dedi-manifest,
// m's domain, name, description, keys (key's public key is added when absent), times and
// files (an Entry with Inline text embeds that file; others are references, with their digest
// when they have one), and its digests URL when it has one.
func SignManifest(m *Manifest, key PrivateKey) ([]byte, error) {
	doc := manifestJSON{DediVersion: "0.1", Type: "dedi-manifest", Domain: m.Domain, Name: m.Name, Description: m.Description,
		Keys: append([]Key(nil), m.Keys...), UpdatedAt: stamp(m.UpdatedAt), NextUpdate: stamp(m.NextUpdate), Digests: m.DigestsURL, Files: []any{}}
	if !containsKey(doc.Keys, key.Public()) {
		doc.Keys = append(doc.Keys, key.Public())
	}
	for _, e := range m.Files {
		if e.Inline != nil {
			doc.Files = append(doc.Files, json.RawMessage(e.Inline))
		} else {
			doc.Files = append(doc.Files, referenceJSON{Registry: e.Registry, URL: e.URL, Digest: e.Digest})
		}
	}
	out, err := sign(&doc, func(p *proofJSON) { doc.Proof = p }, key)
	if err != nil {
		return nil, err
	}
	g, err := ParseManifest(out, Limits{MaxManifestBytes: 1 << 40})
	if err == nil {
		err = g.CheckSignature()
	}
	if err != nil {
		return nil, fmt.Errorf("the signed manifest does not verify: %w", err)
	}
	return out, nil
}

// SignDigests writes d as a signed digests document (type dedi-digests, version 0.1), signed by
// key: d's domain, times and digests. It is parsed and its signature checked again before it is
// returned.
func SignDigests(d *Digests, key PrivateKey) ([]byte, error) {
	doc := digestsJSON{DediVersion: "0.1", Type: "dedi-digests", Domain: d.Domain, UpdatedAt: stamp(d.UpdatedAt), NextUpdate: stamp(d.NextUpdate),
		Digests: d.Digests}
	if doc.Digests == nil {
		doc.Digests = map[string]string{}
	}
	out, err := sign(&doc, func(p *proofJSON) { doc.Proof = p }, key)
	if err != nil {
		return nil, err
	}
	g, err := ParseDigests(out, Limits{MaxManifestBytes: 1 << 40})
	if err == nil {
		err = VerifyJWS(g.Proof.JWS, g.doc, key.Public())
	}
	if err != nil {
		return nil, fmt.Errorf("the signed digests document does not verify: %w", err)
	}
	return out, nil
}

func containsKey(keys []Key, k Key) bool {
	for _, o := range keys {
		if o.Same(k) {
			return true
		}
	}
	return false
}

// sign marshals doc without its proof, signs the canonical form of what was written, sets the
// proof and marshals again, indented.
func sign(doc any, setProof func(*proofJSON), key PrivateKey) ([]byte, error) {
	body, err := marshal(doc, false)
	if err != nil {
		return nil, err
	}
	v, err := proof.ParseJSON(body, maxDepth)
	if err != nil {
		return nil, fmt.Errorf("the document is not JSON the verifier reads: %v", err)
	}
	jws, err := Sign(v.(map[string]any), key)
	if err != nil {
		return nil, err
	}
	setProof(&proofJSON{VerificationMethod: key.Kid, Canonicalization: "JCS", JWS: jws})
	return marshal(doc, true)
}

func marshal(doc any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
