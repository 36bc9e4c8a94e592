package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/tlogproof"
)

// The log's offline texts (docs/transparency-log.md, "Offline proofs and the policy"): a
// version's C2SP tlog-proof and the log's C2SP tlog-policy.

// GetLogProof answers a version's tlog-proof: its leaf text as extra, its index, its
// inclusion proof and the checkpoint it is against, the latest cosigned one when the log has
// witnesses (else the latest signed one). Its refusals are the inclusion proof's.
func (s *Server) GetLogProof(ctx context.Context, req gen.GetLogProofRequestObject) (gen.GetLogProofResponseObject, error) {
	var size int64
	var cosigned string
	if s.logWitnessed {
		c, err := s.store.LogCosigned(ctx)
		if err != nil {
			return nil, err
		}
		if c.Text == "" {
			return nil, &apiError{Status: http.StatusNotFound, Code: gen.ErrorCodeNotIntegrated,
				Message: "Version " + req.Version + " is not in a checkpoint cosigned by the log's witnesses: none has been cosigned yet"}
		}
		size, cosigned = c.Size, c.Text
	}
	p, err := s.logReader.Inclusion(ctx, req.Version, size)
	switch {
	case errors.Is(err, translog.ErrNotIntegrated) && cosigned != "":
		return nil, &apiError{Status: http.StatusNotFound, Code: gen.ErrorCodeNotIntegrated, Message: fmt.Sprintf(
			"Version %s is not yet in the latest checkpoint cosigned by the log's witnesses (size %d): retry in a few seconds", req.Version, size)}
	case err != nil:
		return nil, inclusionRefusal(err, req.Version, 0)
	}
	checkpoint := p.Checkpoint
	if cosigned != "" {
		checkpoint = cosigned
	}
	text := tlogproof.Proof{Extra: p.Leaf, Index: p.Index, Hashes: p.Hashes, Checkpoint: []byte(checkpoint)}.Format()
	cc := checkpointCacheControl
	return gen.GetLogProof200TextplainCharsetUtf8Response{Body: bytes.NewReader(text), ContentLength: int64(len(text)),
		Headers: gen.GetLogProof200ResponseHeaders{CacheControl: &cc}}, nil
}

// GetLogPolicy answers the log's tlog-policy: its key, its witnesses and their quorum.
func (s *Server) GetLogPolicy(ctx context.Context, _ gen.GetLogPolicyRequestObject) (gen.GetLogPolicyResponseObject, error) {
	if s.logPolicy == nil {
		return gen.GetLogPolicy503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody("This instance has no transparency log key")}, nil
	}
	return gen.GetLogPolicy200TextplainCharsetUtf8Response{Body: bytes.NewReader(s.logPolicy), ContentLength: int64(len(s.logPolicy))}, nil
}
