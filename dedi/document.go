package dedi

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/svc-directory/svc/proof"
)

// Limits cap what is read. The zero value means the defaults.
type Limits struct {
	MaxManifestBytes int64 // default 1 MiB
	MaxFileBytes     int64 // default 64 MiB
}

// Default caps.
const (
	DefaultMaxManifestBytes = 1 << 20
	DefaultMaxFileBytes     = 64 << 20
	// MaxManifestFiles bounds the entries of a manifest (its schema says so too).
	MaxManifestFiles = 10000
	// maxDepth bounds the nesting of objects and arrays in a document.
	maxDepth = 256
)

func (l Limits) manifest() int64 {
	if l.MaxManifestBytes > 0 {
		return l.MaxManifestBytes
	}
	return DefaultMaxManifestBytes
}

func (l Limits) file() int64 {
	if l.MaxFileBytes > 0 {
		return l.MaxFileBytes
	}
	return DefaultMaxFileBytes
}

// WellKnownPath is where a publisher serves its manifest.
const WellKnownPath = "/.well-known/dedi.index.json"

// WellKnownURL is the one URL a manifest of domain is authentic from.
func WellKnownURL(domain string) string { return "https://" + domain + WellKnownPath }

// Digest is the manifest's form of the SHA-256 of a file's bytes: "sha-256:" + lowercase hex.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha-256:" + hex.EncodeToString(sum[:])
}

// Proof is a document's signature block.
type Proof struct {
	VerificationMethod string // the kid of the signing key
	Canonicalization   string // "JCS"
	JWS                string // detached JWS: header..signature
}

// Publisher is who signed a file: its domain and its public key.
type Publisher struct {
	Domain string
	Key    Key
}

// Registry is the registry a file carries.
type Registry struct {
	Name        string
	Schema      any    // a URL (string) or an inline JSON Schema (map[string]any)
	SchemaURL   string // Schema when it is a URL, else ""
	State       string // "live" or "inactive"
	UpdatedAt   time.Time
	Description string         // "" when absent
	Meta        map[string]any // nil when absent
}

// Record is one entry of a file.
type Record struct {
	Name        string
	Details     map[string]any
	Description string         // "" when absent
	Meta        map[string]any // nil when absent
}

// File is a parsed, shape-checked DeDi file. Its signature is checked by CheckSignature.
type File struct {
	Version    string
	SourceURL  string
	NextUpdate time.Time
	Publisher  Publisher
	Namespace  string
	Registry   Registry
	Records    []Record
	Proof      Proof
	doc        map[string]any
	// raw and spans, when spans is not nil, are the file's text and the places of its records
	// in it: the records are kept as text (recordtext.go) and Records is nil.
	raw   []byte
	spans []span
	// canon is the records' canonical text, comma-separated, from the parse until the
	// signature is checked (then nil): the signing input is made without parsing them again.
	canon []byte
}

// Entry is one of a manifest's files: a reference (URL, and optionally Digest) or an inline file.
type Entry struct {
	Registry string
	URL      string // "" for an inline file
	// Digest is the manifest's own commitment to a referenced file ("sha-256:<hex>"): "" for
	// an inline file and for a reference without one. The digests document's entry, when
	// there is one, takes precedence (Commitment).
	Digest string
	// Inline is the canonical JSON (RFC 8785) of an inline file, to give to Verify or
	// CheckFile as the file's bytes; nil for a reference.
	Inline []byte
}

// Manifest is a parsed, shape-checked manifest. Its signature is checked by CheckSignature.
type Manifest struct {
	Version     string
	Domain      string
	Name        string
	Description string
	Keys        []Key
	UpdatedAt   time.Time
	NextUpdate  time.Time
	// DigestsURL is where the publisher's signed digests document is ("" when the manifest
	// names none): its entries take precedence over the entries' own digests.
	DigestsURL string
	Files      []Entry
	Proof      Proof
	doc        map[string]any
}

// Entry returns the manifest's entry for a registry, or nil.
func (m *Manifest) Entry(registry string) *Entry {
	for i := range m.Files {
		if m.Files[i].Registry == registry {
			return &m.Files[i]
		}
	}
	return nil
}

// Key returns the manifest's key with that kid, or nil.
func (m *Manifest) Key(kid string) *Key {
	for i := range m.Keys {
		if m.Keys[i].Kid == kid {
			return &m.Keys[i]
		}
	}
	return nil
}

// ParseFile reads a DeDi file: size cap, strict JSON (proof.ParseJSON: no duplicate keys, valid
// UTF-8), the file schema, then unique record names. Every failure is Invalid.
func ParseFile(raw []byte, lim Limits) (*File, error) {
	v, err := parseFileJSON(raw, lim)
	if err != nil {
		return nil, err
	}
	return fileFromValue(v)
}

func parseFileJSON(raw []byte, lim Limits) (any, error) {
	if int64(len(raw)) > lim.file() {
		return nil, fail(Invalid, "the file is larger than %d bytes", lim.file())
	}
	v, err := proof.ParseJSON(raw, maxDepth)
	if err != nil {
		return nil, fail(Invalid, "%v", err)
	}
	return v, nil
}

// parseAndCheckFile is ParseFile and CheckSignature at once, keeping the records as text: a
// shape failure wins (it is the earlier step), and the signature is checked only then.
func parseAndCheckFile(raw []byte, lim Limits) (*File, error) {
	f, err := parseFileText(raw, lim)
	if err != nil {
		return nil, err
	}
	err = verifyJWS(f.Proof.JWS, f.doc, f.Publisher.Key, compactSize(raw))
	f.canon = nil // a verified file is held while it is indexed: only its text and spans stay
	return f, signatureError(err, BadSignature, "")
}

func fileFromValue(v any) (*File, error) {
	if err := checkFileShape(v); err != nil {
		return nil, fail(Invalid, "not a DeDi file: %v", err)
	}
	doc := v.(map[string]any)
	f := envelopeOf(doc)
	recs := doc["records"].([]any)
	f.Records = make([]Record, len(recs))
	seen := make(map[string]struct{}, len(recs))
	for i, r := range recs {
		rec := recordOf(r)
		if _, dup := seen[rec.Name]; dup {
			return nil, fail(Invalid, "record name %q appears more than once (at /records/%d)", shorten(rec.Name, 80), i)
		}
		seen[rec.Name] = struct{}{}
		f.Records[i] = rec
	}
	return f, f.checkEnvelope()
}

// envelopeOf reads everything of a shape-checked file but its records.
func envelopeOf(doc map[string]any) *File {
	f := &File{doc: doc}
	f.Version = doc["dedi_version"].(string)
	f.SourceURL = doc["source_url"].(string)
	f.NextUpdate = timeOf(doc["next_update"])
	pub := doc["publisher"].(map[string]any)
	f.Publisher = Publisher{Domain: strings.ToLower(pub["domain"].(string)), Key: keyOf(pub["key"])}
	f.Namespace = doc["namespace"].(string)
	reg := doc["registry"].(map[string]any)
	f.Registry = Registry{Name: reg["name"].(string), Schema: reg["schema"], State: reg["state"].(string),
		UpdatedAt: timeOf(reg["updated_at"])}
	f.Registry.SchemaURL, _ = reg["schema"].(string)
	f.Registry.Description, _ = reg["description"].(string)
	f.Registry.Meta, _ = reg["meta"].(map[string]any)
	f.Proof = proofOf(doc["proof"])
	return f
}

// checkEnvelope is what a file's schema cannot say: readable timestamps, and the proof made by
// the file's own key.
func (f *File) checkEnvelope() error {
	if err := checkTimes(f.NextUpdate, f.Registry.UpdatedAt); err != nil {
		return err
	}
	if f.Proof.VerificationMethod != f.Publisher.Key.Kid {
		return fail(Invalid, "proof.verification_method %q does not name publisher.key (kid %q)",
			shorten(f.Proof.VerificationMethod, 80), shorten(f.Publisher.Key.Kid, 80))
	}
	return nil
}

// ParseManifest reads a manifest: size cap, strict JSON, the manifest schema (at most
// MaxManifestFiles entries), unique registry names, and each inline file as ParseFile reads
// it. Every failure is Invalid.
func ParseManifest(raw []byte, lim Limits) (*Manifest, error) {
	if int64(len(raw)) > lim.manifest() {
		return nil, fail(Invalid, "the manifest is larger than %d bytes", lim.manifest())
	}
	v, err := proof.ParseJSON(raw, maxDepth)
	if err != nil {
		return nil, fail(Invalid, "%v", err)
	}
	if d, ok := v.(map[string]any); ok {
		if files, ok := d["files"].([]any); ok && len(files) > MaxManifestFiles {
			return nil, fail(Invalid, "the manifest lists %d files (/files), more than %d", len(files), MaxManifestFiles)
		}
	}
	if err := checkShape(ManifestSchemaID, v, ""); err != nil {
		return nil, fail(Invalid, "not a DeDi manifest: %v", err)
	}
	doc := v.(map[string]any)
	m := &Manifest{doc: doc}
	m.Version = doc["dedi_version"].(string)
	m.Domain = strings.ToLower(doc["domain"].(string))
	m.DigestsURL, _ = doc["digests"].(string)
	m.Name, _ = doc["name"].(string)
	m.Description, _ = doc["description"].(string)
	for _, k := range doc["keys"].([]any) {
		m.Keys = append(m.Keys, keyOf(k))
	}
	m.UpdatedAt = timeOf(doc["updated_at"])
	m.NextUpdate = timeOf(doc["next_update"])
	m.Proof = proofOf(doc["proof"])
	seen := map[string]bool{}
	for i, e := range doc["files"].([]any) {
		em := e.(map[string]any)
		var entry Entry
		if url, ok := em["url"].(string); ok {
			entry = Entry{Registry: em["registry"].(string), URL: url}
			entry.Digest, _ = em["digest"].(string)
		} else {
			f, err := fileFromValue(em)
			if err != nil {
				return nil, fail(Invalid, "inline file /files/%d: %s", i, err.(*Error).Reason)
			}
			canon, err := proof.Canonicalize(em)
			if err != nil {
				return nil, fail(Invalid, "inline file /files/%d: %v", i, err)
			}
			entry = Entry{Registry: f.Registry.Name, Inline: canon}
		}
		if seen[entry.Registry] {
			return nil, fail(Invalid, "registry %q is listed more than once", shorten(entry.Registry, 80))
		}
		seen[entry.Registry] = true
		m.Files = append(m.Files, entry)
	}
	if err := checkTimes(m.UpdatedAt, m.NextUpdate); err != nil {
		return nil, err
	}
	seenKid := map[string]bool{}
	for _, k := range m.Keys {
		if seenKid[k.Kid] {
			return nil, fail(Invalid, "kid %q is listed more than once in keys", shorten(k.Kid, 80))
		}
		seenKid[k.Kid] = true
	}
	return m, nil
}

// CheckSignature verifies the file's JWS against its embedded key (BadSignature).
func (f *File) CheckSignature() error {
	return signatureError(VerifyJWS(f.Proof.JWS, f.doc, f.Publisher.Key), BadSignature, "")
}

// signatureError is the outcome of a failed signature check: UnsupportedKey when the key is
// of a type svc cannot check (the reason prefixed by what), else o.
func signatureError(err error, o Outcome, what string) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok && e.Outcome == UnsupportedKey {
		return fail(UnsupportedKey, "%s%s", what, e.Reason)
	}
	return fail(o, "%s%v", what, err)
}

// CheckSignature verifies the manifest's JWS with the key of its own keys that
// proof.verification_method names (NotAuthenticated when there is none or it fails).
func (m *Manifest) CheckSignature() error {
	k := m.Key(m.Proof.VerificationMethod)
	if k == nil {
		return fail(NotAuthenticated, "the manifest is signed by %q, which is not among its keys", shorten(m.Proof.VerificationMethod, 80))
	}
	return signatureError(VerifyJWS(m.Proof.JWS, m.doc, *k), NotAuthenticated, "the manifest's signature: ")
}

// Document is the parsed JSON of the file (read-only), for a caller that relays or re-indexes
// it. For a file whose records are kept as text, it is made anew, records parsed.
func (f *File) Document() map[string]any {
	if f.spans == nil {
		return f.doc
	}
	doc := make(map[string]any, len(f.doc))
	for k, v := range f.doc {
		doc[k] = v
	}
	recs := make([]any, len(f.spans))
	for i := range f.spans {
		recs[i], _ = f.recordValue(i) // parsed before: it parses again
	}
	doc["records"] = recs
	return doc
}

// timeOf reads an RFC 3339 timestamp the schema admitted; one Go cannot represent (a leap
// second) reads as the zero time, which checkTimes refuses.
func timeOf(v any) time.Time {
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(v.(string)))
	if err != nil {
		return time.Time{}
	}
	return t
}

func checkTimes(ts ...time.Time) error {
	for _, t := range ts {
		if t.IsZero() {
			return fail(Invalid, "a timestamp cannot be read (leap second?)")
		}
	}
	return nil
}

// keyOf reads a JWK the schema admitted: an Ed25519 key has its x checked by the schema; a key
// of another type keeps all its members, to be compared.
func keyOf(v any) Key {
	m := v.(map[string]any)
	k := Key{Kid: m["kid"].(string), Kty: m["kty"].(string)}
	k.Crv, _ = m["crv"].(string)
	k.X, _ = m["x"].(string)
	if !k.Supported() {
		k.members = m
	}
	return k
}

func proofOf(v any) Proof {
	m := v.(map[string]any)
	return Proof{VerificationMethod: m["verification_method"].(string), Canonicalization: m["canonicalization"].(string), JWS: m["jws"].(string)}
}

// Canonical is the RFC 8785 text of the whole file, proof included: the form an inline entry
// of a manifest embeds.
func (f *File) Canonical() ([]byte, error) { return proof.Canonicalize(f.doc) }
