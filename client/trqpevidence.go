package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// TRQPEvidence is what the evidence of an answer showed (docs/trqp.md, Evidence).
type TRQPEvidence struct {
	// Entry is "record" or "registry": the kind of the version that decided.
	Entry           string
	Version, Digest string
	// Lookup is the data of that version's lookup, its digest recomputed (its state,
	// valid_till and details are what the answer's message says).
	Lookup map[string]any
	// LogIndex is the index of its leaf, in the tree of Checkpoint (signed by the log's key).
	LogIndex   int64
	Checkpoint leaf.Checkpoint
	// State is the state proof's verdict: current (the version is its entry's latest),
	// superseded (a later version exists: accepted only for a query about a past
	// context.time), or absent (the record name asked is not listed, at any time).
	State stateindex.Verdict
}

// StateCheck checks a state answer (the body the answer's svc_state_url served, 200 or 404)
// about key; have is the leaf text of the version the evidence names, nil when the evidence is
// a name's absence. It is stateindex.CheckAnswer behind a checkpoint's verification:
// CheckStateAnswer is the default, and a caller that requires witnesses' cosignatures gives its own.
type StateCheck func(answer []byte, key stateindex.Key, have []byte) stateindex.Verdict

// CheckStateAnswer is the StateCheck that opens the answer's checkpoint with the log's verifier
// key (its signature only; witnesses' cosignatures are not required) and checks the answer with
// stateindex.CheckAnswer, as `svc verify --current` does; an answer whose checkpoint is older than
// maxAge by the log's clock is stale_checkpoint (0: any age).
func CheckStateAnswer(logKey string, maxAge time.Duration) StateCheck {
	return func(answer []byte, key stateindex.Key, have []byte) stateindex.Verdict {
		var a stateindex.Answer
		if err := json.Unmarshal(answer, &a); err != nil {
			return stateindex.Verdict{Outcome: stateindex.BadProof, Message: "not a state answer: " + err.Error()}
		}
		cp, err := leaf.OpenCheckpoint([]byte(a.Checkpoint), logKey)
		if err != nil {
			return stateindex.Verdict{Outcome: stateindex.BadProof, Message: "the state answer's checkpoint: " + err.Error()}
		}
		return stateindex.CheckAnswer(stateindex.Check{Answer: a, Checkpoint: cp, Key: key, Have: have, Now: time.Now(), MaxAge: maxAge})
	}
}

// checkEvidence checks an answer's evidence: the lookup of the version that decided (its digest
// recomputed, and saying what the message says), its inclusion in the log under LogKey, and the
// state proof of what decided. An answer without evidence is accepted only when it is false
// (the service gives none for an instant before the registry existed).
func (t *TRQP) checkEvidence(ctx context.Context, q TRQPQuery, a *TRQPAnswer) (*TRQPEvidence, error) {
	c := a.Context
	ev := &TRQPEvidence{Entry: c["svc_entry"], Version: c["svc_version"], Digest: c["svc_digest"]}
	if ev.Version == "" {
		if a.Yes {
			return nil, errors.New("a true answer without evidence (no svc_version in its context)")
		}
		return nil, nil
	}
	if t.LogKey == "" {
		return nil, errors.New("TRQP.LogKey is empty: the evidence is checked against the log's verifier key")
	}
	kind, ok := map[string]proof.Kind{"record": proof.KindRecord, "registry": proof.KindRegistry}[ev.Entry]
	if !ok {
		return nil, fmt.Errorf("svc_entry %q is neither record nor registry", ev.Entry)
	}
	// 1. The version: its lookup recomputes to the digest the answer names.
	lookupURL := c["svc_lookup_url"]
	if !strings.HasPrefix(lookupURL, "/svc/lookup/") {
		return nil, fmt.Errorf("svc_lookup_url %q is not a lookup", lookupURL)
	}
	raw, err := t.get(ctx, lookupURL, http.StatusOK)
	if err != nil {
		return nil, fmt.Errorf("the lookup of the version that decided: %w", err)
	}
	if err := VerifyLookup(ev.Entry, raw); err != nil {
		return nil, fmt.Errorf("the lookup of the version that decided does not verify: %w", err)
	}
	var doc struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	ev.Lookup = doc.Data
	if dg, _ := doc.Data["proof"].(map[string]any); doc.Data["version"] != ev.Version || dg["digest"] != ev.Digest {
		return nil, fmt.Errorf("svc_lookup_url answers version %v, not the evidence's %s with digest %s", doc.Data["version"], ev.Version, ev.Digest)
	}
	if err := decisionAgrees(ev.Entry, a.Message, doc.Data); err != nil {
		return nil, err
	}
	// 2. Its leaf is in the log's tree, signed by the log's key, at the index the answer names.
	l, err := leaf.FromLookup(ev.Entry, doc.Data)
	if err != nil {
		return nil, err
	}
	if c["svc_log_index"] == "" {
		return nil, ErrNotYetLogged
	}
	if ev.LogIndex, err = strconv.ParseInt(c["svc_log_index"], 10, 64); err != nil {
		return nil, fmt.Errorf("svc_log_index %q is not an index", c["svc_log_index"])
	}
	if c["svc_proof_url"] != "/svc/log/inclusion/"+url.PathEscape(ev.Version) {
		return nil, fmt.Errorf("svc_proof_url %q is not the inclusion proof of %s", c["svc_proof_url"], ev.Version)
	}
	if raw, err = t.get(ctx, c["svc_proof_url"], http.StatusOK); err != nil {
		return nil, fmt.Errorf("the inclusion proof: %w", err)
	}
	var p leaf.InclusionProof
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("the inclusion proof: %w", err)
	}
	if ev.Checkpoint, err = leaf.VerifyInclusion(p, t.LogKey, l); err != nil {
		return nil, fmt.Errorf("the inclusion proof: %w", err)
	}
	if p.LogIndex != ev.LogIndex {
		return nil, fmt.Errorf("the inclusion proof is of log index %d, the answer names %d", p.LogIndex, ev.LogIndex)
	}
	// 3. The state proof: what decided is current, or the name asked is absent.
	key, have, absence, err := stateKeyOf(ev, q, a, l, kind)
	if err != nil {
		return nil, err
	}
	if raw, err = t.get(ctx, c["svc_state_url"], http.StatusOK, http.StatusNotFound); err != nil {
		return nil, fmt.Errorf("the state proof: %w", err)
	}
	check := t.CheckState
	if check == nil {
		check = CheckStateAnswer(t.LogKey, t.MaxAge)
	}
	ev.State = check(raw, key, have)
	switch o := ev.State.Outcome; {
	case absence && o == stateindex.Absent, !absence && o == stateindex.Current:
	case !absence && o == stateindex.Superseded && q.Context["time"] != "":
		// a question about a past instant: the version in effect then may have been replaced since
	default:
		return ev, fmt.Errorf("the state proof of %s: %s", key, ev.State)
	}
	return ev, nil
}

// stateKeyOf is the key whose state proof the answer must carry, and the URL it must have: the
// entry's id with its leaf (have), or, for a record name that is not listed in a registry
// matching by name, that name's key (absence).
func stateKeyOf(ev *TRQPEvidence, q TRQPQuery, a *TRQPAnswer, l leaf.Leaf, kind proof.Kind) (stateindex.Key, []byte, bool, error) {
	got := a.Context["svc_state_url"]
	id, _ := ev.Lookup[proof.IDField(kind)].(string)
	if got == "/svc/log/state/"+url.PathEscape(id) {
		have, err := l.Canonical()
		return stateindex.IDKey(id), have, false, err
	}
	ns, _ := ev.Lookup["namespace_id"].(string)
	reg, _ := ev.Lookup["registry_name"].(string)
	if ev.Entry == "registry" && a.Message == "not listed" &&
		got == "/svc/log/state/"+url.PathEscape(ns)+"/"+url.PathEscape(reg)+"/"+url.PathEscape(q.EntityID) {
		return stateindex.RecordNameKey(ns, reg, q.EntityID), nil, true, nil
	}
	return stateindex.Key{}, nil, false, fmt.Errorf("svc_state_url %q is not the state proof of %s %s, nor of the absence of %q", got, ev.Entry, id, q.EntityID)
}

// decisionAgrees checks that the version that decided says what the answer's message says:
// the record's or registry's state (docs/trqp.md, Polarity). A message it does not know is not
// checked.
func decisionAgrees(entry, message string, data map[string]any) error {
	state, _ := data["state"].(string)
	want := ""
	switch {
	case entry == "record" && (message == "listed and live" || message == "listed as revoked"):
		want = "live"
	case entry == "record" && (message == "the record is expired" || message == "the listing is expired"):
		if data["valid_till"] == nil {
			return fmt.Errorf("the answer says %q, but the record version has no valid_till", message)
		}
	case entry == "record" && strings.HasPrefix(message, "the record is "):
		want = strings.TrimPrefix(message, "the record is ")
	case entry == "record" && strings.HasPrefix(message, "the listing is "):
		want = strings.TrimPrefix(message, "the listing is ")
	case entry == "registry" && strings.HasPrefix(message, "the registry is "):
		want = strings.TrimPrefix(message, "the registry is ")
	case entry == "registry" && message == "not listed":
		want = "live"
	}
	if want != "" && state != want {
		return fmt.Errorf("the answer says %q, but the %s version that decided is %s", message, entry, state)
	}
	return nil
}

// get fetches a path of the service, which must answer one of the statuses.
func (t *TRQP) get(ctx context.Context, path string, statuses ...int) ([]byte, error) {
	status, raw, _, err := t.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	for _, s := range statuses {
		if status == s {
			return raw, nil
		}
	}
	return nil, fmt.Errorf("GET %s answered %d: %s", path, status, strings.TrimSpace(string(raw)))
}
