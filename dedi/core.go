package dedi

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/recordschema"
)

// The seven core record schemas the protocol declares (the draft's section 10: Public_key,
// Revoke, Membership, beckn_subscriber, beckn_subscriber_reference, Public-Data-Set,
// Public_Rule_Set), referenced by URL from the files that use them. The draft says those URLs
// MUST be pinned to an immutable reference; today they point at the mutable main branch. svc
// ships pinned copies (coreschemas/, with their provenance in coreschemas/README.md) and uses
// the copy for every URL that names one: the raw and blob URLs of the repositories that publish
// them, on main or at the pinned commit, in any capitalization of the file's name, and the $id
// a schema declares (https://dedi.global/public_key.json). No such URL is fetched.
//
//go:embed coreschemas/*.json
var coreFS embed.FS

// CoreSchema is one pinned core schema.
type CoreSchema struct {
	Name   string // as the draft names it: Public_key, Revoke, …
	Tag    string // the svc tag a registry of this schema reads as ("" for custom)
	Repo   string // owner/name of the repository the copy was taken from
	Path   string // its path there
	Commit string // the commit it was taken at
	SHA256 string // hex SHA-256 of the copy's bytes
	ID     string // the $id it declares ("" when none)
	file   string // its file in coreschemas/
}

// URL is the schema's canonical, pinned URL: the raw file at its commit (immutable).
func (c *CoreSchema) URL() string {
	return "https://raw.githubusercontent.com/" + c.Repo + "/" + c.Commit + "/" + c.Path
}

// Text is the pinned copy, byte for byte.
func (c *CoreSchema) Text() []byte {
	b, _ := coreFS.ReadFile("coreschemas/" + c.file)
	return b
}

// Document is the pinned copy parsed (a fresh value each call).
func (c *CoreSchema) Document() map[string]any {
	v, _ := proof.ParseJSON(c.Text(), maxDepth)
	m, _ := v.(map[string]any)
	return m
}

const (
	lfRepo        = "LF-Decentralized-Trust-labs/decentralized-directory-protocol"
	lfCommit      = "20ba162cef2fba79138575d57da370eea929c349" // the last change of schemas/ in the snapshot read (HEAD 0450109a)
	lfCapsCommit  = "a76085f3dd0cfb218020e90b2b2bdbaa45fc1a80" // the capitalized Public_key.json and Membership.json
	forkRepo      = "sankarshanmukhopadhyay/decentralized-directory-protocol"
	forkCommit    = "a18c5cea7fb6d660a7cb59c9a04a184b56a5fea9"
	nfhRepo       = "nfh-trust-labs/DeDi"
	dediGlobalHst = "dedi.global"
)

// CoreSchemas are the seven pinned schemas, in the draft's order.
var CoreSchemas = []*CoreSchema{
	{Name: "Public_key", Tag: recordschema.TagPublicKey, Repo: lfRepo, Path: "schemas/Public_key.json", Commit: lfCapsCommit,
		SHA256: "e4ab5fdcf6d14a0b172c737b24cd9b0a3c2cf844663bd54ecdbdb68d82f87441", ID: "https://dedi.global/public_key.json", file: "Public_key.json"},
	{Name: "Revoke", Tag: recordschema.TagRevoke, Repo: lfRepo, Path: "schemas/revoke.json", Commit: lfCommit,
		SHA256: "2a4e534f89fcbef6e6d488187de3ec45af8e784276c8f40c1ac292b4a2ece370", ID: "https://dedi.global/revoke.json", file: "Revoke.json"},
	{Name: "Membership", Tag: recordschema.TagMembership, Repo: lfRepo, Path: "schemas/Membership.json", Commit: lfCapsCommit,
		SHA256: "41015e519b754c31c99a930d83535039ccda26f546bdc84c73071665045d7b99", ID: "https://dedi.global/membership.json", file: "Membership.json"},
	{Name: "beckn_subscriber", Repo: lfRepo, Path: "schemas/Beckn_subscriber.json", Commit: lfCommit,
		SHA256: "e74ddb46052f74eb19feda7f4dd0e8bc141e13ba5af1b7879847bab61fd4a5cc", file: "beckn_subscriber.json"},
	{Name: "beckn_subscriber_reference", Repo: lfRepo, Path: "schemas/Beckn_subscriber_reference.json", Commit: lfCommit,
		SHA256: "1ff714664a1cf185846939492b568cd144d538b1fbe92a3c7b0520de158d6501", file: "beckn_subscriber_reference.json"},
	{Name: "Public-Data-Set", Repo: forkRepo, Path: "schemas/Public-Data-Set.json", Commit: forkCommit,
		SHA256: "7ba8ef126d22a93bb9f21f31546b03a5122a068da9bdb9ead327e78b7f17283a", file: "Public-Data-Set.json"},
	{Name: "Public_Rule_Set", Repo: forkRepo, Path: "schemas/Public_Rule_Set.json", Commit: forkCommit,
		SHA256: "036300e9c4308c39db22e7f7a2f57704c7301b608d183851ee8df2adfcf526c1", file: "Public_Rule_Set.json"},
}

// coreKey is how a URL's file name names a core schema: lowercase, without .json, "-" as "_".
func coreKey(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSuffix(strings.ToLower(name), ".json")), "-", "_")
}

// The repositories whose schemas/ folder holds the core schemas, lowercased.
var coreRepos = map[string]bool{strings.ToLower(lfRepo): true, strings.ToLower(forkRepo): true, strings.ToLower(nfhRepo): true}

// CoreSchemaFor returns the pinned core schema a URL names, or nil: a raw or blob URL of
// schemas/{name}.json in a repository that publishes them, on main (or master) or at the
// pinned commit, or a $id on dedi.global. A URL at another ref is not the pinned copy (nil).
func CoreSchemaFor(raw string) *CoreSchema {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.RawQuery != "" || u.User != nil || u.Port() != "" {
		return nil
	}
	host := strings.ToLower(u.Hostname())
	parts := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	var ref, file string
	switch {
	case host == dediGlobalHst || host == "www."+dediGlobalHst:
		if len(parts) != 1 {
			return nil
		}
		file = parts[0]
	case host == "raw.githubusercontent.com" && len(parts) == 5 && parts[3] == "schemas":
		ref, file = parts[2], parts[4]
	case host == "github.com" && len(parts) == 6 && (parts[2] == "blob" || parts[2] == "raw") && parts[4] == "schemas":
		ref, file = parts[3], parts[5]
	default:
		return nil
	}
	if !strings.HasSuffix(strings.ToLower(file), ".json") {
		return nil
	}
	key := coreKey(file)
	for _, c := range CoreSchemas {
		if coreKey(c.Name) != key {
			continue
		}
		if host != "raw.githubusercontent.com" && host != "github.com" {
			if c.ID == "" || !strings.EqualFold(path.Base(c.ID), file) {
				return nil // only the $ids the schemas declare
			}
			return c
		}
		if !coreRepos[strings.ToLower(parts[0]+"/"+parts[1])] || (ref != "main" && ref != "master" && ref != c.Commit) {
			return nil
		}
		return c
	}
	return nil
}

// CoreSchemaMatching returns the core schema a registry schema is, or nil: a URL that names
// one, or an inline schema canonically equal to a pinned copy.
func CoreSchemaMatching(schema any) *CoreSchema {
	switch s := schema.(type) {
	case string:
		return CoreSchemaFor(s)
	case map[string]any:
		canon, err := proof.Canonicalize(s)
		if err != nil {
			return nil
		}
		for _, c := range CoreSchemas {
			if pc, err := proof.Canonicalize(c.Document()); err == nil && string(pc) == string(canon) {
				return c
			}
		}
	}
	return nil
}

// compiledCore are the pinned schemas compiled, once.
var compiledCore = sync.OnceValue(func() map[string]*recordschema.Schema {
	out := map[string]*recordschema.Schema{}
	for _, c := range CoreSchemas {
		if s, err := recordschema.Compile(c.Document()); err == nil {
			out[c.Name] = s
		}
	}
	return out
})

// compiled returns the pinned schema compiled (nil if it does not compile: TestCoreSchemas).
func (c *CoreSchema) compiled() *recordschema.Schema { return compiledCore()[c.Name] }

// sum is the hex SHA-256 of the embedded copy.
func (c *CoreSchema) sum() string {
	s := sha256.Sum256(c.Text())
	return hex.EncodeToString(s[:])
}
