package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/translog/leaf"
)

// versionSel turns version_id / as_on into a store selection (not both: 400).
func versionSel(versionID *string, asOn *openapi_types.Date) (directory.VersionSel, error) {
	if versionID != nil && asOn != nil {
		return directory.VersionSel{}, problem(http.StatusBadRequest, "Invalid input: version_id and as_on cannot be used together")
	}
	var sel directory.VersionSel
	if versionID != nil {
		sel.VersionID = *versionID
	}
	if asOn != nil {
		d := asOn.Time
		sel.Before = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	}
	return sel, nil
}

// etagMatches applies If-None-Match to an entry's digest.
func etagMatches(header *string, digest string) bool {
	if header == nil {
		return false
	}
	for _, t := range strings.Split(*header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == `"`+digest+`"` {
			return true
		}
	}
	return false
}

func cacheHeaders(digest string, ttl int64) (etag, cacheControl *string) {
	e := `"` + digest + `"`
	c := "public, max-age=" + strconv.FormatInt(ttl, 10)
	return &e, &c
}

// lookupAnswer is an answer of any of the three lookups: a rendered 200 (cachedLookup) or a
// 304 (gen.NotModifiedResponse).
type lookupAnswer interface {
	gen.LookupNamespaceResponseObject
	gen.LookupRegistryResponseObject
	gen.LookupRecordResponseObject
}

// found is what a lookup read: the answer's body, the entry's digest and ttl, and whether the
// answer may be kept in the lookup cache; for prove=current (lookup_current.go), the version's
// log leaf (nil: a draft, never logged), its entry's id and how to add the proof to the body.
type found struct {
	body      any
	digest    string
	ttl       int64
	cacheable bool
	leaf      *leaf.Leaf
	id        string
	prove     func(currentProof)
}

// proofSetter adds a current proof to a lookup answer's three members.
func proofSetter(state **gen.LogState, isLatest **bool, latest **gen.LatestLogged) func(currentProof) {
	return func(c currentProof) { *state, *isLatest, *latest = &c.state, &c.isLatest, &c.latest }
}

// lookup is the one path of the three lookups. A latest lookup (latest) is answered from the
// lookup cache when it holds key; otherwise read gives the answer, which a latest lookup keeps
// in the cache unless a write committed meanwhile. If-None-Match naming the digest is 304. A
// request with a consistency token (fresh) reads past the cache, which may predate the write
// the token names (made through another instance), and refreshes it.
func (s *Server) lookup(key string, latest, fresh bool, ifNoneMatch *string, read func() (found, error)) (lookupAnswer, error) {
	cached := latest && s.cache != nil
	var generation uint64
	if cached {
		if e, ok := s.cache.Get(key); ok && !fresh {
			if etagMatches(ifNoneMatch, e.digest) {
				return gen.NotModifiedResponse{}, nil
			}
			return e, nil
		}
		generation = s.cache.Generation()
	}
	f, err := read()
	if err != nil {
		return nil, err
	}
	if etagMatches(ifNoneMatch, f.digest) {
		return gen.NotModifiedResponse{}, nil
	}
	e, err := render(f.body, f.digest, f.ttl)
	if err != nil {
		return nil, err
	}
	if cached && f.cacheable {
		s.cache.SetIfUnchanged(generation, key, e)
	}
	return e, nil
}

// LookupNamespace returns a namespace with its proof.
func (s *Server) LookupNamespace(ctx context.Context, req gen.LookupNamespaceRequestObject) (gen.LookupNamespaceResponseObject, error) {
	p := req.Params
	read := func() (found, error) {
		ns, err := s.lookupNamespace(ctx, req)
		if err != nil {
			return found{}, err
		}
		out := &gen.NamespaceLookupResponse{Message: "Namespace found", Data: s.namespaceOut(ns)}
		l := leaf.Leaf{Kind: leaf.KindNamespace, NamespaceID: ns.NamespaceID, Version: ns.Version, VersionCount: ns.VersionCount, Digest: ns.Digest}
		return found{body: out, digest: ns.Digest, ttl: ns.TTL, cacheable: true, leaf: &l, id: ns.NamespaceID,
			prove: proofSetter(&out.StateProof, &out.IsLatest, &out.LatestLogged)}, nil
	}
	if p.Prove != nil {
		return s.provenLookup(ctx, read)
	}
	return s.lookup("n\x00"+req.Namespace, p.VersionId == nil && p.AsOn == nil, p.SvcConsistencyToken != nil, p.IfNoneMatch, read)
}

func (s *Server) lookupNamespace(ctx context.Context, req gen.LookupNamespaceRequestObject) (directory.Namespace, error) {
	sel, err := versionSel(req.Params.VersionId, req.Params.AsOn)
	if err != nil {
		return directory.Namespace{}, err
	}
	return s.store.GetNamespace(ctx, req.Namespace, sel)
}

// LookupRegistry returns a registry with its proof.
func (s *Server) LookupRegistry(ctx context.Context, req gen.LookupRegistryRequestObject) (gen.LookupRegistryResponseObject, error) {
	p := req.Params
	read := func() (found, error) {
		reg, err := s.lookupRegistry(ctx, req.Namespace, req.RegistryName, p.VersionId, p.AsOn)
		if err != nil {
			return found{}, err
		}
		out := &gen.RegistryLookupResponse{Message: "Registry found", Data: s.registryOut(reg)}
		f, hosted, err := s.originFile(ctx, reg.NamespaceID, reg.RegistryName)
		if err != nil {
			return found{}, err
		}
		if hosted {
			out.Data.Origin = originOut(f)
		}
		l := leaf.Leaf{Kind: leaf.KindRegistry, NamespaceID: reg.NamespaceID, RegistryID: reg.RegistryID, Version: reg.Version,
			VersionCount: reg.VersionCount, Digest: reg.Digest}
		return found{body: out, digest: reg.Digest, ttl: reg.TTL, cacheable: true, leaf: &l, id: reg.RegistryID,
			prove: proofSetter(&out.StateProof, &out.IsLatest, &out.LatestLogged)}, nil
	}
	if p.Prove != nil {
		return s.provenLookup(ctx, read)
	}
	return s.lookup("g\x00"+req.Namespace+"\x00"+req.RegistryName, p.VersionId == nil && p.AsOn == nil, p.SvcConsistencyToken != nil, p.IfNoneMatch, read)
}

// lookupRegistry reads a registry; a miss says which level was missing (errors.go maps it).
func (s *Server) lookupRegistry(ctx context.Context, nsRef, name string, versionID *string, asOn *openapi_types.Date) (directory.Registry, error) {
	sel, err := versionSel(versionID, asOn)
	if err == nil {
		err = namespaceGiven(nsRef)
	}
	if err != nil {
		return directory.Registry{}, err
	}
	return s.store.GetRegistry(ctx, nsRef, name, sel)
}

// LookupRecord returns a record with its proof; an expired record says so in the message.
func (s *Server) LookupRecord(ctx context.Context, req gen.LookupRecordRequestObject) (gen.LookupRecordResponseObject, error) {
	p := req.Params
	key := "r\x00" + req.Namespace + "\x00" + req.RegistryName + "\x00" + req.RecordName
	latest := p.VersionId == nil && p.AsOn == nil
	read := func() (found, error) {
		rec, err := s.lookupRecord(ctx, req.Namespace, req.RegistryName, req.RecordName, p.VersionId, p.AsOn)
		if err != nil {
			return found{}, err
		}
		f, hosted, err := s.originFile(ctx, rec.NamespaceID, rec.RegistryName)
		if err != nil {
			return found{}, err
		}
		if latest && leftItsFile(rec, hosted) {
			return found{}, directory.NotFound(directory.MissingRecord, rec.RecordName)
		}
		rec.OriginState = f.State
		msg := "Record found"
		if rec.ValidTill != nil && rec.ValidTill.Before(s.now()) {
			msg = "Record has been expired"
		}
		// A record with valid_till changes its message with time, and a draft is for its
		// namespace's owner and delegates only: neither is cached.
		out := &gen.RecordLookupResponse{Message: msg, Data: s.recordOut(rec)}
		if hosted {
			out.Data.Origin = originOut(f)
		}
		fd := found{body: out, digest: rec.Digest, ttl: rec.TTL, cacheable: rec.ValidTill == nil && rec.State != directory.StateDraft,
			id: rec.RecordID, prove: proofSetter(&out.StateProof, &out.IsLatest, &out.LatestLogged)}
		if rec.State != directory.StateDraft {
			fd.leaf = &leaf.Leaf{Kind: leaf.KindRecord, NamespaceID: rec.NamespaceID, RegistryID: rec.RegistryID, RecordID: rec.RecordID,
				Version: rec.Version, VersionCount: rec.VersionCount, Digest: rec.Digest}
		}
		return fd, nil
	}
	if p.Prove != nil {
		return s.provenLookup(ctx, read)
	}
	return s.lookup(key, latest, p.SvcConsistencyToken != nil, p.IfNoneMatch, read)
}

// lookupRecord reads a record as the caller may see it: a miss says which level was missing,
// and drafts are for the namespace's owner and delegates only (directory/drafts.go).
func (s *Server) lookupRecord(ctx context.Context, nsRef, registry, record string, versionID *string, asOn *openapi_types.Date) (directory.Record, error) {
	sel, err := versionSel(versionID, asOn)
	if err == nil {
		err = namespaceGiven(nsRef)
	}
	if err != nil {
		return directory.Record{}, err
	}
	rec, err := s.store.GetRecord(ctx, nsRef, registry, record, sel)
	var nf *directory.NotFoundError
	switch {
	case err == nil && rec.State == directory.StateDraft:
		return rec, s.unlessSeesDrafts(ctx, rec.NamespaceID, directory.HiddenDraft(rec, sel), nil)
	case errors.As(err, &nf) && nf.Draft:
		return rec, s.unlessSeesDrafts(ctx, nf.NamespaceID, nf.Hidden(), err)
	}
	return rec, err
}
