package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// svc verify --current (docs/state-index.md, "Verifying the present"): is the version of a
// saved lookup the entry's latest logged version, as of a checkpoint signed by the log's key
// (cosigned by the witnesses' quorum when witness keys are given; or as --policy says)? It
// reads the state answer of the entry's id from --state FILE, from the service at --url, or
// from the lookup itself (its state_proof, when it was looked up with prove=current), checks it with the pure
// stateindex.CheckAnswer, and prints one outcome word and a sentence: current, superseded,
// absent, stale_checkpoint, bad_proof or fork. It exits 0 only for current.

// currentCheck is what --current needs besides the lookup.
type currentCheck struct {
	tr        trust
	baseURL   string
	stateFile string
	maxAge    time.Duration
}

// kindOfLookup names the kind of a lookup's data by the ids it holds.
func kindOfLookup(data map[string]any) string {
	switch {
	case data["record_id"] != nil:
		return "record"
	case data["registry_id"] != nil:
		return "registry"
	}
	return "namespace"
}

// verifyCurrent checks the lookup data (its digest checked already) against a state answer,
// prints the outcome and returns errMismatch unless it is current.
func verifyCurrent(ctx context.Context, stdout io.Writer, kind proof.Kind, kindName string, lookup any, data map[string]any, c currentCheck) error {
	say := func(outcome, msg string) error {
		fmt.Fprintf(stdout, "%s: %s\n", outcome, msg)
		if outcome == stateindex.Current {
			return nil
		}
		return errMismatch
	}
	have, err := leaf.FromLookup(kindName, data)
	if err != nil {
		return say(stateindex.BadProof, oneLine(err))
	}
	haveText, err := have.Canonical()
	if err != nil {
		return say(stateindex.BadProof, oneLine(err))
	}
	id, _ := data[proof.IDField(kind)].(string)
	key := stateindex.IDKey(id)
	var raw []byte
	switch {
	case c.stateFile != "":
		raw, err = os.ReadFile(c.stateFile)
	case c.baseURL != "":
		raw, err = getState(ctx, c.baseURL, "svc/log/state/"+url.PathEscape(id))
	default:
		embedded := stateProofOf(lookup, kindName)
		if embedded == nil {
			return fmt.Errorf("%w: --current needs the state answer: --state FILE, --url URL, or a lookup made with prove=current (which carries its state_proof)", errUsage)
		}
		raw, err = json.Marshal(embedded)
	}
	if err != nil {
		return fmt.Errorf("state answer: %w", err)
	}
	var a stateindex.Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return say(stateindex.BadProof, "the state answer is not a state answer's JSON: "+oneLine(err))
	}
	check := stateindex.Check{Answer: a, Key: key, Have: haveText, Now: time.Now(), MaxAge: c.maxAge}
	var logKey string
	check.Checkpoint, check.CosignedAt, logKey, err = c.tr.open([]byte(a.Checkpoint))
	if err != nil {
		return say(stateindex.BadProof, "the answer's checkpoint: "+oneLine(err))
	}
	if c.baseURL != "" {
		// The log's latest checkpoint must extend the answer's tree: anything else is a fork.
		later, err := laterCheckpoint(ctx, c.baseURL, logKey, check.Checkpoint)
		if err != nil {
			return err
		}
		check.Later = later
	}
	v := stateindex.CheckAnswer(check)
	return say(v.Outcome, v.Message)
}

// laterCheckpoint fetches the log's latest signed checkpoint and, when it is larger than cp,
// the consistency proof from cp's tree to it.
func laterCheckpoint(ctx context.Context, baseURL, logKey string, cp leaf.Checkpoint) (*stateindex.Later, error) {
	signed, err := httpGet(ctx, baseURL, "svc/log/checkpoint")
	if err != nil {
		return nil, fmt.Errorf("latest checkpoint: %w", err)
	}
	l, err := leaf.OpenCheckpoint(signed, logKey)
	if err != nil {
		return nil, fmt.Errorf("latest checkpoint: %w", err)
	}
	out := &stateindex.Later{Checkpoint: l}
	if l.Size > cp.Size {
		raw, err := httpGet(ctx, baseURL, "svc/log/consistency?from="+strconv.FormatInt(cp.Size, 10)+"&to="+strconv.FormatInt(l.Size, 10))
		if err != nil {
			return nil, fmt.Errorf("consistency proof: %w", err)
		}
		var p struct {
			Hashes [][]byte `json:"hashes"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("consistency proof: %w", err)
		}
		for _, h := range p.Hashes {
			if len(h) != tlog.HashSize {
				return nil, fmt.Errorf("consistency proof: a hash of %d bytes", len(h))
			}
			out.Consistency = append(out.Consistency, tlog.Hash(h))
		}
	}
	return out, nil
}

// stateProofOf is the state_proof a lookup made with prove=current carries (nil: none), in
// any form svc verify reads a lookup: {message, data, state_proof, …} or the verify request's
// {<kind>_lookup_response: {…}}.
func stateProofOf(lookup any, kind string) any {
	m, _ := lookup.(map[string]any)
	if inner, ok := m[kind+"_lookup_response"].(map[string]any); ok {
		m = inner
	}
	return m["state_proof"]
}

// getState fetches a state answer: a 200, or a 404 that holds one (an absence proof).
func getState(ctx context.Context, baseURL, path string) ([]byte, error) {
	return httpGetAnswer(ctx, baseURL, path, 16<<20, http.StatusOK, http.StatusNotFound)
}
