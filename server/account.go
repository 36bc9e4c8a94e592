package server

import (
	"context"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

// The caller's own API keys (tag account).

func apiKeyOut(k store.APIKey) gen.ApiKey {
	return gen.ApiKey{KeyId: k.ID, Name: k.Name, Prefix: k.Prefix, CreatedAt: ts(k.CreatedAt),
		LastUsedAt: tsPtr(k.LastUsedAt), RevokedAt: tsPtr(k.RevokedAt)}
}

// CreateApiKey makes a key for the caller; the key itself is in this answer only.
func (s *Server) CreateApiKey(ctx context.Context, req gen.CreateApiKeyRequestObject) (gen.CreateApiKeyResponseObject, error) {
	k, err := s.store.CreateOwnAPIKey(ctx, principalOf(ctx), req.Body.Name)
	if err != nil {
		return nil, err
	}
	o := apiKeyOut(k.APIKey)
	return gen.CreateApiKey201JSONResponse{Body: gen.ApiKeyCreatedResponse{Message: "API key created", Data: gen.ApiKeyCreated{
		KeyId: o.KeyId, Name: o.Name, Prefix: o.Prefix, CreatedAt: o.CreatedAt, LastUsedAt: o.LastUsedAt, RevokedAt: o.RevokedAt, Key: k.Key,
	}}}, nil
}

// ListApiKeys lists the caller's keys, newest first, without their secrets.
func (s *Server) ListApiKeys(ctx context.Context, _ gen.ListApiKeysRequestObject) (gen.ListApiKeysResponseObject, error) {
	keys, err := s.store.APIKeys(ctx, caller(ctx).ID)
	if err != nil {
		return nil, err
	}
	out := gen.ListApiKeys200JSONResponse{Message: "API keys found", Data: make([]gen.ApiKey, len(keys))}
	for i, k := range keys {
		out.Data[i] = apiKeyOut(k)
	}
	return out, nil
}

// RevokeApiKey revokes one of the caller's live keys; it answers once no instance accepts it.
func (s *Server) RevokeApiKey(ctx context.Context, req gen.RevokeApiKeyRequestObject) (gen.RevokeApiKeyResponseObject, error) {
	if err := s.store.RevokeOwnAPIKey(ctx, caller(ctx).ID, req.KeyId); err != nil {
		return nil, notFound(err, "API key not found")
	}
	return gen.RevokeApiKey200JSONResponse{MessageAfterWriteJSONResponse: gen.MessageAfterWriteJSONResponse{Body: gen.Message{Message: "API key revoked"}}}, nil
}
