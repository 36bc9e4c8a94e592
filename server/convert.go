package server

import (
	"regexp"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/proof"
)

// Conversions from store entries to API types live here, in one place.

var versionPattern = regexp.MustCompile(`^0x[0-9a-f]{32}$`)

func ts(t time.Time) string { return proof.FormatTime(t) }

func tsPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	v := ts(*t)
	return &v
}

func obj(m map[string]any) gen.JSONObject {
	if m == nil {
		return gen.JSONObject{}
	}
	return gen.JSONObject(m)
}

func strPtr(s string) *string { return &s }

func (s *Server) namespaceOut(n directory.Namespace) gen.Namespace {
	var domain *string
	if n.Domain != "" {
		domain = strPtr(n.Domain)
	}
	return gen.Namespace{
		Domain: domain, Name: n.Name, NamespaceId: n.NamespaceID, Digest: n.Digest, Description: n.Description,
		CreatedBy: n.CreatedBy, Genesis: proof.GenesisHex(n.Genesis), CreatedAt: ts(n.CreatedAt), UpdatedAt: ts(n.UpdatedAt),
		Version: n.Version, VersionCount: n.VersionCount, IsVerified: n.Domain != "", Meta: obj(n.Meta),
		RegistryCount: n.RegistryCount, Ttl: n.TTL, State: gen.NamespaceState(n.State),
		Proof: gen.Proof{Type: n.ProofType, NamespaceDid: n.NamespaceID, CreatorDid: n.CreatedBy, Digest: n.Digest,
			NetworkGenesis: s.networkGenesis},
	}
}

func (s *Server) registryOut(r directory.Registry) gen.Registry {
	return gen.Registry{
		Namespace: r.NamespaceName, NamespaceId: r.NamespaceID, RegistryId: r.RegistryID, RegistryName: r.RegistryName,
		Digest: r.Digest, Description: r.Description, CreatedBy: r.CreatedBy, Tag: gen.RegistryTag(r.Tag),
		Schema: obj(r.Schema), Genesis: r.Genesis, CreatedAt: ts(r.CreatedAt), UpdatedAt: ts(r.UpdatedAt),
		State: gen.RegistryState(r.State), Meta: obj(r.Meta), RecordCount: r.RecordCount, VersionCount: r.VersionCount,
		Version: r.Version, QueryAllowed: r.QueryAllowed, Ttl: r.TTL,
		Proof: gen.Proof{Type: r.ProofType, NamespaceDid: r.NamespaceID, RegistryIdentifier: strPtr(r.RegistryID),
			CreatorDid: r.CreatedBy, Digest: r.Digest, NetworkGenesis: s.networkGenesis},
	}
}

func (s *Server) recordOut(r directory.Record) gen.Record {
	return gen.Record{
		Namespace: r.NamespaceName, NamespaceId: r.NamespaceID, RegistryId: r.RegistryID, RegistryName: r.RegistryName,
		RegistryState: gen.RegistryState(r.RegistryState), RecordId: r.RecordID, RecordName: r.RecordName,
		Description: r.Description, Digest: r.Digest, Schema: obj(r.Schema), VersionCount: r.VersionCount,
		Version: r.Version, Details: obj(r.Details), Meta: obj(r.Meta), Genesis: r.Genesis, CreatedAt: ts(r.CreatedAt),
		UpdatedAt: ts(r.UpdatedAt), CreatedBy: r.CreatedBy, State: gen.RecordState(r.State),
		EffectiveState: gen.RecordEffectiveState(r.EffectiveState(s.now())), Ttl: r.TTL,
		ValidTill: tsPtr(r.ValidTill),
		Proof: gen.Proof{Type: r.ProofType, NamespaceDid: r.NamespaceID, RegistryIdentifier: strPtr(r.RegistryID),
			RecordIdentifier: strPtr(r.RecordID), CreatorDid: r.CreatedBy, Digest: r.Digest, NetworkGenesis: s.networkGenesis},
	}
}

func mapPtr(m *gen.JSONObject) map[string]any {
	if m == nil {
		return nil
	}
	if *m == nil {
		return map[string]any{}
	}
	return map[string]any(*m)
}

func strVal(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
