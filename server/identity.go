package server

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/gen"
)

// GetDidDocument serves the W3C DID document of a profile: did:web:{did_host}:{profile_id},
// its registered Ed25519 keys as Multikey verification methods.
func (s *Server) GetDidDocument(ctx context.Context, req gen.GetDidDocumentRequestObject) (gen.GetDidDocumentResponseObject, error) {
	u, err := s.store.UserByProfileID(ctx, req.ProfileId)
	if err != nil {
		return nil, notFound(err, "Profile not found")
	}
	keys, err := s.store.ProfileKeys(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	did := s.didOf(&u)
	doc := gen.GetDidDocument200JSONResponse{
		Context:            []string{"https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"},
		Id:                 did,
		VerificationMethod: make([]gen.DidVerificationMethod, len(keys)),
		Authentication:     make([]string, len(keys)),
		AssertionMethod:    make([]string, len(keys)),
	}
	for i, k := range keys {
		id := fmt.Sprintf("%s#key-%d", did, i+1)
		doc.VerificationMethod[i] = gen.DidVerificationMethod{Id: id, Type: gen.Multikey, Controller: did, PublicKeyMultibase: k}
		doc.Authentication[i], doc.AssertionMethod[i] = id, id
	}
	return doc, nil
}
