package server

import (
	"context"
	"errors"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

// The origin of origin-hosted entries (docs/dedi-files.md): a lookup of a registry or record
// indexed from a publisher's DeDi file carries the file's origin block, and its records read as
// the file's state when it is stale or withdrawn (directory.Record.EffectiveState). Entries
// published here have none, at the cost of one map read (the origins set, server/dedi.go).

// originFile is the accepted file of an origin-hosted registry; ok is false for a registry
// published here.
func (s *Server) originFile(ctx context.Context, namespaceID, registry string) (f store.DediFile, ok bool, err error) {
	m, err := s.origins.get(ctx, s)
	if err != nil {
		return f, false, err
	}
	domain, hosted := m[namespaceID]
	if !hosted {
		return f, false, nil
	}
	f, err = s.store.DediFileState(ctx, domain, registry)
	if errors.Is(err, directory.ErrNotFound) {
		return f, false, nil
	}
	return f, err == nil, err
}

// originStates are the states of the files of an origin-hosted namespace, by registry name
// (nil for a namespace published here).
func (s *Server) originStates(ctx context.Context, namespaceID string) (map[string]string, error) {
	m, err := s.origins.get(ctx, s)
	if err != nil {
		return nil, err
	}
	domain, hosted := m[namespaceID]
	if !hosted {
		return nil, nil
	}
	files, err := s.store.DediFileStates(ctx, domain)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(files))
	for _, f := range files {
		out[f.Registry] = f.State
	}
	return out, nil
}

// withOriginStates sets the origin state of each record of an origin-hosted namespace.
func (s *Server) withOriginStates(ctx context.Context, namespaceID string, recs []directory.Record) error {
	if len(recs) == 0 {
		return nil
	}
	states, err := s.originStates(ctx, namespaceID)
	if err != nil {
		return err
	}
	for i := range recs {
		recs[i].OriginState = states[recs[i].RegistryName]
	}
	return nil
}

// leftItsFile reports whether rec, the latest version of an origin-hosted record, is one that
// left its publisher's file: the crawler suspends such a record (dedi/ingest/index.go), and
// its latest lookup answers 404 while its versions stay readable by version_id.
func leftItsFile(rec directory.Record, hosted bool) bool {
	return hosted && rec.State == directory.StateSuspended
}

func originOut(f store.DediFile) *gen.Origin {
	return &gen.Origin{PublisherDomain: f.Domain, FileUrl: f.URL, Sha256: f.SHA256, Kid: f.Kid,
		FetchedAt: ts(f.FetchedAt), NextUpdate: ts(f.NextUpdate), State: gen.OriginState(f.State)}
}
