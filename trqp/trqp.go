// Package trqp answers the Trust Registry Query Protocol v2.0's queries (POST /authorization,
// POST /recognition) from the registries whose meta.trqp declares them (docs/trqp.md). It
// resolves the authority and the declared registry, reads the registry and the entity's record
// at the version in effect at the query's instant, and leaves the decision to
// directory.DecideTRQP (pure).
package trqp

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/cache"
	"github.com/svc-directory/svc/store"
)

// Query is one TRQP query.
type Query struct {
	Recognition                             bool // POST /recognition; else /authorization
	EntityID, AuthorityID, Action, Resource string
	// At is context.time (nil: now).
	At *time.Time
}

// Evidence names what the answer was decided from: the record version (or, when the registry
// does not list the entity, the registry version), its digest and, once integrated, its log
// index; and the key whose state proof shows that what decided is current (docs/trqp.md,
// Evidence).
type Evidence struct {
	Entry           string // "record" or "registry"
	Version, Digest string
	LogIndex        int64
	Logged          bool // LogIndex is known
	// NamespaceID, RegistryName and RecordName ("" for a registry) name the version's lookup;
	// ID is the entry's id (record_id or registry_id), the key of its state proof.
	NamespaceID, RegistryName, RecordName, ID string
	// Absent, when set, is the record name whose absence decided: a "not listed" of a registry
	// matching entities by record name (the state query's name form proves it). A "not listed"
	// of a details match has no key that proves it, and Absent is nil.
	Absent *Name
}

// Name is a record's name in its registry and namespace.
type Name struct{ NamespaceID, Registry, Record string }

// Answer is the answer to a Query.
type Answer struct {
	Yes       bool
	Message   string
	Evaluated time.Time // the server time the query was evaluated at
	Evidence  Evidence
}

// UnknownError is a query naming an authority, action or resource that svc does not know (404).
type UnknownError struct{ Message string }

func (e *UnknownError) Error() string { return e.Message }

// OriginState reports the state of the publisher's file of an origin-hosted registry (hosted
// false for a registry published here).
type OriginState func(ctx context.Context, namespaceID, registry string) (state string, hosted bool, err error)

// Store is what the queries read of the store (*store.Store).
type Store interface {
	AuthorityMetas(ctx context.Context, ref string) (string, map[string]string, error)
	GetRegistry(ctx context.Context, nsRef, name string, sel directory.VersionSel) (directory.Registry, error)
	GetRecord(ctx context.Context, nsRef, registryName, recordName string, sel directory.VersionSel) (directory.Record, error)
	GetLatestRecordLogged(ctx context.Context, namespaceID, registryName, recordName string) (directory.Record, int64, bool, error)
	Search(ctx context.Context, namespaceID string, o store.SearchOptions) (store.SearchResult, error)
	LogIndex(ctx context.Context, version string) (int64, error)
}

// Service answers queries over the store.
type Service struct {
	st     Store
	origin OriginState
	now    func() time.Time
	// authorities caches an authority's namespace id and its registries' metas, and indices the
	// log index of a version; both are emptied by Clear (every commit of this instance) and
	// expire after the lookup cache's TTL (the writes of other instances).
	authorities *cache.Cache[string, authorityEntry]
	indices     *cache.Cache[string, int64]
}

type authorityEntry struct {
	nsID  string
	decls map[string]*directory.TRQPDeclaration // by registry name; nil: declares nothing
}

// New is the service over st; origin tells the state of origin-hosted registries' files; now is
// the clock; cacheTTL bounds how long a cached authority or log index is used (0: no cache).
func New(st Store, origin OriginState, now func() time.Time, cacheTTL time.Duration) *Service {
	s := &Service{st: st, origin: origin, now: now}
	if cacheTTL > 0 {
		s.authorities = cache.New[string, authorityEntry](cache.Options{MaxSize: 10_000, TTL: cacheTTL, Now: now})
		s.indices = cache.New[string, int64](cache.Options{MaxSize: 100_000, TTL: cacheTTL, Now: now})
	}
	return s
}

// Clear empties the caches; the server calls it on every commit of its store.
func (s *Service) Clear() {
	s.authorities.Clear()
	s.indices.Clear()
}

// ParseTime reads context.time: RFC 3339 with a Z offset (an Invalid refusal otherwise).
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !strings.HasSuffix(s, "Z") {
		return time.Time{}, directory.Invalid.With("context.time must be an RFC 3339 date-time with a Z offset, such as 2026-04-01T00:00:00Z")
	}
	return t.UTC(), nil
}

// AuthorityRef is the namespace reference (a verified domain or a namespace_id) that an
// authority_id names: https://{domain}, did:web:{domain} or the namespace_id; "" when it names none.
func AuthorityRef(id string) string {
	switch {
	case strings.HasPrefix(id, directory.NamespaceIDPrefix):
		return id
	case strings.HasPrefix(id, "did:web:"):
		host, err := url.PathUnescape(strings.TrimPrefix(id, "did:web:"))
		if err != nil || host == "" || strings.ContainsAny(host, ":/?#@") {
			return ""
		}
		return strings.ToLower(host)
	case strings.HasPrefix(id, "https://"):
		u, err := url.Parse(id)
		if err != nil || u.Host == "" || u.Port() != "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return ""
		}
		return strings.ToLower(u.Hostname())
	}
	return ""
}

// Answer answers q: a false answer is an answer; an unknown authority, action or resource is an
// *UnknownError.
func (s *Service) Answer(ctx context.Context, q Query) (Answer, error) {
	now := s.now().UTC()
	at := now
	if q.At != nil {
		at = *q.At
	}
	nsID, decls, err := s.authority(ctx, q.AuthorityID)
	if err != nil {
		return Answer{}, err
	}
	name, d, err := declared(decls, q)
	if err != nil {
		return Answer{}, err
	}
	// The version in effect at the instant: made at or before it (as_on's rule, to the
	// millisecond); now, that is the latest version, read by the latest reads' faster path.
	var sel directory.VersionSel
	if q.At != nil {
		sel.Before = at.Add(time.Millisecond)
	}
	rec, recLog, err := s.record(ctx, nsID, name, d, q.EntityID, sel)
	if err != nil {
		return Answer{}, err
	}
	// The registry as it stood then: a latest record read carries its registry's current state;
	// otherwise the registry's version in effect is read (its evidence when no record decides).
	var reg directory.Registry
	if rec != nil && sel.Latest() {
		reg.State = rec.RegistryState
	} else {
		reg, err = s.st.GetRegistry(ctx, nsID, name, sel)
		var nf *directory.NotFoundError
		if errors.As(err, &nf) {
			return Answer{Message: "the registry did not exist yet at that time", Evaluated: now}, nil
		}
		if err != nil {
			return Answer{}, err
		}
	}
	origin, hosted, err := s.origin(ctx, nsID, name)
	if err != nil {
		return Answer{}, err
	}
	left := rec
	if rec != nil && hosted && rec.State == directory.StateSuspended {
		rec = nil // the record left its publisher's file
	}
	dec := directory.DecideTRQP(d, reg.State, origin, rec, at)
	// The evidence is the record version that decided, or else the registry's version (not
	// listed, or the registry not live or its publisher's file not current).
	byRegistry := rec == nil || reg.State != directory.StateLive || origin == directory.StateStale || origin == directory.StateWithdrawn
	if byRegistry && reg.Version == "" {
		if reg, err = s.st.GetRegistry(ctx, nsID, name, sel); err != nil {
			return Answer{}, err
		}
	}
	// A "not listed" is proven by the record version that left its publisher's file (suspended),
	// or, matched by record name, by the name's absence; a details match has no key to prove it.
	registryLive := reg.State == directory.StateLive && origin != directory.StateStale && origin != directory.StateWithdrawn
	ev := Evidence{Entry: "registry", Version: reg.Version, Digest: reg.Digest, NamespaceID: nsID, RegistryName: name, ID: reg.RegistryID}
	switch {
	case !byRegistry:
		ev = recordEvidence(nsID, name, rec)
	case registryLive && left != nil:
		ev = recordEvidence(nsID, name, left)
	case registryLive && d.DetailsPath() == nil:
		ev.Absent = &Name{NamespaceID: nsID, Registry: name, Record: q.EntityID}
	}
	if left != nil && recLog.read && ev.Version == left.Version {
		ev.LogIndex, ev.Logged = recLog.idx, recLog.logged
	} else if idx, ok := s.indices.Get(ev.Version); ok {
		ev.LogIndex, ev.Logged = idx, true
	} else {
		gen := s.indices.Generation()
		switch idx, err := s.st.LogIndex(ctx, ev.Version); {
		case err == nil:
			ev.LogIndex, ev.Logged = idx, true
			s.indices.SetIfUnchanged(gen, ev.Version, idx)
		case !errors.Is(err, directory.ErrNotFound):
			return Answer{}, err
		}
	}
	return Answer{Yes: dec.Yes, Message: dec.Message, Evaluated: now, Evidence: ev}, nil
}

// recordEvidence is the evidence of a record version.
func recordEvidence(nsID, registry string, rec *directory.Record) Evidence {
	return Evidence{Entry: "record", Version: rec.Version, Digest: rec.Digest, NamespaceID: nsID, RegistryName: registry,
		RecordName: rec.RecordName, ID: rec.RecordID}
}

// authority is the id of the namespace an authority_id names (*UnknownError when none) and the
// declarations of its registries, by name, parsed once for as long as they are cached.
func (s *Service) authority(ctx context.Context, id string) (string, map[string]*directory.TRQPDeclaration, error) {
	ref := AuthorityRef(id)
	if ref == "" {
		return "", nil, &UnknownError{"Unknown authority: authority_id must be https://{domain} or did:web:{domain} of a namespace's verified domain, or a namespace_id"}
	}
	if e, ok := s.authorities.Get(ref); ok {
		return e.nsID, e.decls, nil
	}
	gen := s.authorities.Generation()
	nsID, metas, err := s.st.AuthorityMetas(ctx, ref)
	if errors.Is(err, directory.ErrNotFound) {
		return "", nil, &UnknownError{"Unknown authority: no namespace is " + id}
	}
	if err != nil {
		return "", nil, err
	}
	decls := make(map[string]*directory.TRQPDeclaration, len(metas))
	for n, text := range metas {
		m, err := directory.DecodeObject(text)
		if err != nil {
			return "", nil, err
		}
		// An origin-hosted file's malformed declaration declares nothing.
		if d, err := directory.ParseRegistryTRQP(m); err == nil {
			decls[n] = d
		}
	}
	s.authorities.SetIfUnchanged(gen, ref, authorityEntry{nsID, decls})
	return nsID, decls, nil
}

// declared finds the registry whose declaration answers q's pair among the declarations of the
// authority's registries.
func declared(decls map[string]*directory.TRQPDeclaration, q Query) (string, directory.TRQPDeclaration, error) {
	names := make([]string, 0, len(decls))
	for n := range decls {
		names = append(names, n)
	}
	sort.Strings(names)
	action, resource := false, false
	for _, n := range names {
		d := decls[n]
		if d == nil {
			continue
		}
		for _, p := range d.Pairs(q.Recognition) {
			action = action || p.Action == q.Action
			resource = resource || p.Resource == q.Resource
			if p.Action == q.Action && p.Resource == q.Resource {
				return n, *d, nil
			}
		}
	}
	kind := "authorization"
	if q.Recognition {
		kind = "recognition"
	}
	switch {
	case !action:
		return "", directory.TRQPDeclaration{}, &UnknownError{"Unknown action: no registry of " + q.AuthorityID + " answers " + kind + " queries for action " + q.Action}
	case !resource:
		return "", directory.TRQPDeclaration{}, &UnknownError{"Unknown resource: no registry of " + q.AuthorityID + " answers " + kind + " queries for resource " + q.Resource}
	}
	return "", directory.TRQPDeclaration{}, &UnknownError{"Unknown action and resource: no registry of " + q.AuthorityID + " answers " + kind + " queries for action " + q.Action + " on resource " + q.Resource}
}

// logPos is the log index a latest record read gave with the record (read: it was read).
type logPos struct {
	idx          int64
	logged, read bool
}

// record is the entity's record version in effect at sel in the registry (nil: not listed then,
// or a draft, which anonymous callers do not see); a latest read gives its log index with it,
// in the same statement.
func (s *Service) record(ctx context.Context, nsID, registry string, d directory.TRQPDeclaration, entity string, sel directory.VersionSel) (*directory.Record, logPos, error) {
	name := entity
	if path := d.DetailsPath(); path != nil {
		var err error
		if name, err = s.nameByDetails(ctx, nsID, registry, path, entity); err != nil || name == "" {
			return nil, logPos{}, err
		}
	}
	var rec directory.Record
	var pos logPos
	var err error
	if sel.Latest() {
		rec, pos.idx, pos.logged, err = s.st.GetLatestRecordLogged(ctx, nsID, registry, name)
		pos.read = err == nil
	} else {
		rec, err = s.st.GetRecord(ctx, nsID, registry, name, sel)
	}
	var nf *directory.NotFoundError
	switch {
	case errors.As(err, &nf):
		return nil, logPos{}, nil
	case err != nil:
		return nil, logPos{}, err
	case rec.State == directory.StateDraft:
		return nil, logPos{}, nil
	}
	return &rec, pos, nil
}

// searchPage bounds the records a details match reads; a value shared by more records than
// this matches the newest of those whose value is exactly the entity.
const searchPage = 100

// nameByDetails is the name of the registry's (latest, public) record whose details hold
// entity at path; "" when none does.
func (s *Service) nameByDetails(ctx context.Context, nsID, registry string, path []string, entity string) (string, error) {
	res, err := s.st.Search(ctx, nsID, store.SearchOptions{RegistryName: registry, Page: 1, Size: searchPage,
		Fields: []store.FieldFilter{{Path: strings.Join(path, "."), Value: entity}}})
	if err != nil {
		return "", err
	}
	for _, r := range res.Records {
		if v, ok := directory.DetailsValue(r.Details, path); ok && v == entity {
			return r.RecordName, nil
		}
	}
	return "", nil
}

// Authorizations are the (action, resource) pairs that the registries of the authority declare
// in their meta.trqp.authorizations, sorted by action then resource; an unknown authority is an
// *UnknownError.
func (s *Service) Authorizations(ctx context.Context, authorityID string) ([]directory.TRQPPair, error) {
	_, decls, err := s.authority(ctx, authorityID)
	if err != nil {
		return nil, err
	}
	out := []directory.TRQPPair{}
	for _, d := range decls {
		if d != nil {
			out = append(out, d.Authorizations...)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Action != out[j].Action {
			return out[i].Action < out[j].Action
		}
		return out[i].Resource < out[j].Resource
	})
	return out, nil
}
