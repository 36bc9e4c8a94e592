package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	genclient "github.com/svc-directory/svc/gen/client"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// CurrentOptions is the trust a relying party brings to VerifyCurrent.
type CurrentOptions struct {
	// LogKey is the log's verifier key (from the operator, not from the service).
	LogKey string
	// WitnessKeys, when set, are the witnesses' verifier keys: the answer's checkpoint must carry
	// cosignatures of Quorum of them (0: all), and its age is counted from their time.
	WitnessKeys []string
	Quorum      int
	// MaxAge is the largest age accepted (0: any).
	MaxAge time.Duration
	// NoForkCheck skips fetching the log's latest checkpoint and the consistency proof to it.
	NoForkCheck bool
	// Now is the verifier's clock (nil: time.Now).
	Now func() time.Time
}

// VerifyCurrent says whether the version of a lookup (its body as served, kind "namespace",
// "registry" or "record") is its entry's latest logged version, as svc verify --current --url
// does (docs/state-index.md, "Verifying the present"): it checks the lookup's digest, asks the
// service for the state answer of the entry's id (GET /svc/log/state/{id}, a 200 or the 404 that
// proves absence), opens the answer's checkpoint with the log's key (and the witnesses'
// cosignatures and their time), fetches the log's latest checkpoint and the consistency proof
// to it (the fork check), and checks the answer with the pure stateindex.CheckAnswer. The
// verdict's Outcome is one of stateindex.Current, Superseded, Absent, StaleCheckpoint, BadProof
// or Fork, with a sentence; superseded names the latest version, its version_count and its log
// index. A stale instance, cache or mirror that serves an older version with its own valid
// inclusion proof passes VerifyLookup; here it is superseded.
//
// The error is for what it could not ask: a request that failed, or an answer that is neither
// a state answer nor its absence (a 503 while the service's index catches up, say).
func VerifyCurrent(ctx context.Context, c *Client, kind string, body []byte, o CurrentOptions) (stateindex.Verdict, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	bad := func(format string, args ...any) (stateindex.Verdict, error) {
		return stateindex.Verdict{Outcome: stateindex.BadProof, Message: fmt.Sprintf(format, args...)}, nil
	}
	if err := VerifyLookup(kind, body); err != nil {
		return bad("the lookup does not verify: %v", err)
	}
	k, _ := lookupKind(kind)
	v, _ := proof.ParseJSON(body, 256)
	data, _ := v.(map[string]any)["data"].(map[string]any)
	have, err := leaf.FromLookup(kind, data)
	if err != nil {
		return bad("%v", err)
	}
	haveText, err := have.Canonical()
	if err != nil {
		return bad("%v", err)
	}
	id, _ := data[proof.IDField(k)].(string)
	res, err := c.GetLogStateWithResponse(ctx, id)
	if err != nil {
		return stateindex.Verdict{}, fmt.Errorf("the state query: %w", err)
	}
	if s := res.StatusCode(); s != http.StatusOK && s != http.StatusNotFound {
		return stateindex.Verdict{}, fmt.Errorf("the state query answered %d: %s", s, limit(res.Body))
	}
	var a stateindex.Answer
	if err := json.Unmarshal(res.Body, &a); err != nil {
		return bad("the state answer is not a state answer's JSON: %v", err)
	}
	check := stateindex.Check{Answer: a, Key: stateindex.IDKey(id), Have: haveText, Now: now(), MaxAge: o.MaxAge}
	if len(o.WitnessKeys) > 0 {
		q := o.Quorum
		if q == 0 {
			q = len(o.WitnessKeys)
		}
		check.Checkpoint, check.CosignedAt, err = translog.VerifyCosignedAt([]byte(a.Checkpoint), o.LogKey, o.WitnessKeys, q)
	} else {
		check.Checkpoint, err = leaf.OpenCheckpoint([]byte(a.Checkpoint), o.LogKey)
	}
	if err != nil {
		return bad("the answer's checkpoint: %v", err)
	}
	if !o.NoForkCheck {
		later, verdict, err := laterCheckpoint(ctx, c, o.LogKey, check.Checkpoint)
		if err != nil || verdict != nil {
			return derefOr(verdict), err
		}
		check.Later = later
	}
	return stateindex.CheckAnswer(check), nil
}

// laterCheckpoint fetches the log's latest checkpoint and, when it is larger than cp, the
// consistency proof from cp's tree to it; a checkpoint or proof that does not verify is a
// bad_proof verdict.
func laterCheckpoint(ctx context.Context, c *Client, logKey string, cp leaf.Checkpoint) (*stateindex.Later, *stateindex.Verdict, error) {
	res, err := c.GetLogCheckpointWithResponse(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("the latest checkpoint: %w", err)
	}
	if res.StatusCode() != http.StatusOK {
		return nil, nil, fmt.Errorf("the latest checkpoint answered %d: %s", res.StatusCode(), limit(res.Body))
	}
	l, err := leaf.OpenCheckpoint(res.Body, logKey)
	if err != nil {
		return nil, &stateindex.Verdict{Outcome: stateindex.BadProof, Message: "the log's latest checkpoint: " + err.Error()}, nil
	}
	out := &stateindex.Later{Checkpoint: l}
	if l.Size <= cp.Size {
		return out, nil, nil
	}
	p, err := c.GetLogConsistencyWithResponse(ctx, &genclient.GetLogConsistencyParams{From: cp.Size, To: l.Size})
	if err != nil {
		return nil, nil, fmt.Errorf("the consistency proof: %w", err)
	}
	if p.StatusCode() != http.StatusOK {
		return nil, nil, fmt.Errorf("the consistency proof answered %d: %s", p.StatusCode(), limit(p.Body))
	}
	var proofBody struct {
		Hashes [][]byte `json:"hashes"`
	}
	if err := json.Unmarshal(p.Body, &proofBody); err != nil {
		return nil, &stateindex.Verdict{Outcome: stateindex.BadProof, Message: "the consistency proof: " + err.Error()}, nil
	}
	for _, h := range proofBody.Hashes {
		if len(h) != tlog.HashSize {
			return nil, &stateindex.Verdict{Outcome: stateindex.BadProof, Message: fmt.Sprintf("the consistency proof: a hash of %d bytes", len(h))}, nil
		}
		out.Consistency = append(out.Consistency, tlog.Hash(h))
	}
	return out, nil, nil
}

func derefOr(v *stateindex.Verdict) stateindex.Verdict {
	if v == nil {
		return stateindex.Verdict{}
	}
	return *v
}

// limit is the start of an answer's body, for an error.
func limit(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}
