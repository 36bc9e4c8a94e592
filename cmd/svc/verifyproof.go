package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/tlogproof"
)

// What svc verify trusts, and the offline tlog-proof (docs/transparency-log.md, "Offline
// proofs and the policy").

// trust is what svc verify trusts a checkpoint by: the log's key and its witnesses' (--log-key,
// --witness-key, --witness-quorum), or a C2SP tlog-policy (--policy FILE).
type trust struct {
	logKey string
	w      witnessCheck
	policy *tlogproof.Policy
}

// readPolicy reads a policy file.
func readPolicy(file string) (*tlogproof.Policy, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p, err := tlogproof.ParsePolicy(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: --policy %s: %v", errUsage, file, err)
	}
	return &p, nil
}

// set reports whether anything is trusted.
func (t trust) set() bool { return t.logKey != "" || t.policy != nil }

// witnessed reports whether a checkpoint must carry cosignatures.
func (t trust) witnessed() bool {
	if t.policy != nil {
		return t.policy.Quorum != tlogproof.None
	}
	return len(t.w.keys) > 0
}

// asPolicy is the trust as a policy (the flags' as tlogproof.NewPolicy makes it).
func (t trust) asPolicy() (tlogproof.Policy, error) {
	if t.policy != nil {
		return *t.policy, nil
	}
	p, err := tlogproof.NewPolicy(t.logKey, t.w.keys, t.w.quorum)
	if err != nil {
		return p, fmt.Errorf("%w: %v", errUsage, err)
	}
	return p, nil
}

// open checks a signed checkpoint: signed by the log (one of the policy's), cosigned to the
// quorum when witnesses are trusted. It returns the checkpoint, when the quorum had cosigned
// it (zero without witnesses) and the verifier key of the log that signed it.
func (t trust) open(signed []byte) (leaf.Checkpoint, time.Time, string, error) {
	switch {
	case t.policy != nil:
		c, err := t.policy.VerifyCheckpoint(signed)
		if err != nil {
			return leaf.Checkpoint{}, time.Time{}, "", fmt.Errorf("%w: %v", leaf.ErrVerify, err)
		}
		return c.Checkpoint, c.CosignedAt, c.LogKey, nil
	case len(t.w.keys) > 0:
		c, at, err := translog.VerifyCosignedAt(signed, t.logKey, t.w.keys, t.w.quorum)
		return c, at, t.logKey, err
	}
	c, err := leaf.OpenCheckpoint(signed, t.logKey)
	return c, time.Time{}, t.logKey, err
}

// describe says what the checkpoint was checked against, for the OK line.
func (t trust) describe() string {
	switch {
	case t.policy != nil && t.witnessed():
		return fmt.Sprintf(" (cosigned to the policy's quorum %s)", t.policy.Quorum)
	case t.policy == nil && len(t.w.keys) > 0:
		return fmt.Sprintf(" (cosigned by at least %d of %d witnesses)", t.w.quorum, len(t.w.keys))
	}
	return ""
}

// verifyProofFile checks a tlog-proof file under the trust: its checkpoint, and that it proves
// want (the lookup's leaf text; nil: the proof's own extra, which it must carry).
func verifyProofFile(file string, stdin io.Reader, tr trust, want []byte) (tlogproof.Verified, error) {
	var raw []byte
	var err error
	if file == "-" {
		raw, err = io.ReadAll(io.LimitReader(stdin, tlogproof.MaxSize+1))
	} else {
		raw, err = os.ReadFile(file)
	}
	if err != nil {
		return tlogproof.Verified{}, err
	}
	policy, err := tr.asPolicy()
	if err != nil {
		return tlogproof.Verified{}, err
	}
	p, err := tlogproof.Parse(raw)
	if err == nil {
		var v tlogproof.Verified
		if v, err = tlogproof.Verify(p, policy, want); err == nil {
			return v, nil
		}
	}
	return tlogproof.Verified{}, fmt.Errorf("%w: the tlog-proof %s: %v", leaf.ErrVerify, file, err)
}

// cmdVerifyProofAlone checks a tlog-proof without a lookup (svc verify --proof FILE and no
// FILE argument): the leaf is the proof's extra, which the inclusion proof authenticates.
func cmdVerifyProofAlone(file string, stdin io.Reader, stdout io.Writer, tr trust) error {
	v, err := verifyProofFile(file, stdin, tr, nil)
	if err != nil {
		if !errors.Is(err, leaf.ErrVerify) {
			return err
		}
		fmt.Fprintln(stdout, "FAILED:", oneLine(err))
		return errMismatch
	}
	fmt.Fprintf(stdout, "OK: leaf %d in log %s at tree size %d%s: %s\n", v.Index, v.Checkpoint.Origin, v.Checkpoint.Size, tr.describe(), v.Leaf)
	return nil
}
