package client

import (
	"fmt"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/tlogproof"
)

// The log's offline texts (docs/transparency-log.md, "Offline proofs and the policy"): a
// version's C2SP tlog-proof (GET /svc/log/proof/{version}: the Body of the generated client's
// GetLogProofWithResponse) and the log's C2SP tlog-policy (GET
// /svc/log/policy, or better, the operator's). Both are read and checked by the pure package
// translog/tlogproof, which the TypeScript and Python SDKs mirror.

// Policy is a parsed C2SP tlog-policy: the logs' keys, the witnesses, the quorum.
type Policy = tlogproof.Policy

// ProvenLeaf is what a tlog-proof proves: the leaf text at its index, in a checkpoint the
// policy accepts (its origin and size, the witnesses that cosigned and since when).
type ProvenLeaf = tlogproof.Verified

// ParsePolicy reads a tlog-policy text.
func ParsePolicy(text []byte) (Policy, error) { return tlogproof.ParsePolicy(text) }

// VerifyProof checks a tlog-proof text under the policy: its checkpoint is signed by one of the
// policy's logs and cosigned to its quorum, and its inclusion proof leads from the leaf at its
// index to the checkpoint's root. The leaf is want when given (the proof's extra must then be
// it), else the proof's own extra. A refusal is a *tlogproof.Error (Stage says where).
func VerifyProof(proofText []byte, policy Policy, want []byte) (ProvenLeaf, error) {
	p, err := tlogproof.Parse(proofText)
	if err != nil {
		return ProvenLeaf{}, err
	}
	return tlogproof.Verify(p, policy, want)
}

// VerifyLookupProof checks a lookup response (the body of a namespace, registry or record
// lookup, kind "namespace", "registry" or "record") offline, as VerifyLookup does, and that the
// tlog-proof proves its version's log leaf: the version was published in the log the policy
// names, as everyone sees it.
func VerifyLookupProof(kind string, lookupBody, proofText []byte, policy Policy) (ProvenLeaf, error) {
	if err := VerifyLookup(kind, lookupBody); err != nil {
		return ProvenLeaf{}, err
	}
	v, err := proof.ParseJSON(lookupBody, 256)
	if err != nil {
		return ProvenLeaf{}, err
	}
	envelope, _ := v.(map[string]any)
	data, _ := envelope["data"].(map[string]any)
	l, err := leaf.FromLookup(kind, data)
	if err != nil {
		return ProvenLeaf{}, err
	}
	text, err := l.Canonical()
	if err != nil {
		return ProvenLeaf{}, fmt.Errorf("the lookup's leaf: %w", err)
	}
	return VerifyProof(proofText, policy, text)
}
