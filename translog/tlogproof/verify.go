package tlogproof

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
)

// Checked is a checkpoint that a policy accepts.
type Checked struct {
	Checkpoint leaf.Checkpoint
	// LogKey is the verifier key of the policy's log that signed it.
	LogKey string
	// Witnesses are the names of the policy's witnesses whose cosignatures verify, sorted.
	Witnesses []string
	// CosignedAt is when the quorum had cosigned (zero for the quorum none): a witness's time
	// is its cosignature's; a group's, of its members that witnessed, sorted newest first, the
	// Threshold-th's. So at least the quorum vouches for the checkpoint at CosignedAt or later.
	CosignedAt time.Time
}

// VerifyCheckpoint checks a signed checkpoint against the policy: it must be signed by one of
// the policy's logs (the log whose key's name is its origin) and cosigned (cosignature/v1) to
// the quorum. A cosignature line of a policy witness that does not verify refuses the
// checkpoint; lines of other keys are ignored. A refusal is a *Error of stage StageCheckpoint.
func (p Policy) VerifyCheckpoint(signed []byte) (Checked, error) {
	origin, _, _ := strings.Cut(string(signed), "\n")
	var out Checked
	var lastErr error
	for _, l := range p.Logs {
		if strings.SplitN(l.Key, "+", 2)[0] != origin {
			continue
		}
		c, err := leaf.OpenCheckpoint(signed, l.Key)
		if err == nil {
			out.Checkpoint, out.LogKey = c, l.Key
			break
		}
		lastErr = err
	}
	if out.LogKey == "" {
		if lastErr != nil {
			return Checked{}, refuse(StageCheckpoint, "%s", strings.TrimPrefix(lastErr.Error(), leaf.ErrVerify.Error()+": "))
		}
		return Checked{}, refuse(StageCheckpoint, "the checkpoint's origin %q is not a log of the policy", origin)
	}
	if p.Quorum == None {
		return out, nil
	}
	vs := make([]note.Verifier, 0, len(p.Witnesses))
	byID := map[string]string{} // name and key hash of a verifier -> the witness's policy name
	for _, w := range p.Witnesses {
		v, err := fnote.NewVerifierForCosignatureV1(w.Key)
		if err != nil {
			return Checked{}, refuse(StageCheckpoint, "witness %s: %v", w.Name, err)
		}
		vs = append(vs, v)
		byID[sigID(v.Name(), v.KeyHash())] = w.Name
	}
	times := map[string]time.Time{}
	n, err := note.Open(signed, note.VerifierList(vs...))
	var none *note.UnverifiedNoteError
	switch {
	case errors.As(err, &none):
	case err != nil:
		return Checked{}, refuse(StageCheckpoint, "cosignature: %v", err)
	default:
		for _, s := range n.Sigs {
			t, err := fnote.CoSigV1Timestamp(s)
			if err != nil {
				return Checked{}, refuse(StageCheckpoint, "cosignature of %s: %v", s.Name, err)
			}
			name := byID[sigID(s.Name, s.Hash)]
			if old, ok := times[name]; !ok || t.After(old) {
				times[name] = t
			}
		}
	}
	for name := range times {
		out.Witnesses = append(out.Witnesses, name)
	}
	slices.Sort(out.Witnesses)
	at, ok := p.witnessed(p.Quorum, times)
	if !ok {
		return Checked{}, refuse(StageCheckpoint, "the cosignatures of %d witnesses (%s) do not meet the policy's quorum %q",
			len(out.Witnesses), strings.Join(out.Witnesses, ", "), p.Quorum)
	}
	out.CosignedAt = at
	return out, nil
}

func sigID(name string, hash uint32) string {
	return name + "\x00" + string([]byte{byte(hash >> 24), byte(hash >> 16), byte(hash >> 8), byte(hash)})
}

// witnessed says whether the witness or group name has witnessed the checkpoint (times holds
// the witnesses that cosigned), and as of when.
func (p Policy) witnessed(name string, times map[string]time.Time) (time.Time, bool) {
	if t, ok := times[name]; ok {
		return t, true
	}
	i := slices.IndexFunc(p.Groups, func(g Group) bool { return g.Name == name })
	if i < 0 {
		return time.Time{}, false // a witness that did not cosign
	}
	g := p.Groups[i]
	var ts []time.Time
	for _, m := range g.Members {
		if t, ok := p.witnessed(m, times); ok {
			ts = append(ts, t)
		}
	}
	if len(ts) < g.Threshold {
		return time.Time{}, false
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return b.Compare(a) })
	return ts[g.Threshold-1], true
}

// Verified is a proof that verified: its checkpoint, and the leaf it proves at Index.
type Verified struct {
	Checked
	Index int64
	Leaf  []byte
}

// Verify checks a proof under a policy: its checkpoint (VerifyCheckpoint), then that its
// index is in the checkpoint's tree and its hashes lead from the leaf at that index to the
// checkpoint's root. The leaf is want when given (the leaf text of the version the caller
// holds; a proof whose extra is another text is refused), else the proof's extra (which the
// inclusion proof then authenticates); a proof without either proves nothing.
func Verify(p Proof, policy Policy, want []byte) (Verified, error) {
	c, err := policy.VerifyCheckpoint(p.Checkpoint)
	if err != nil {
		return Verified{}, err
	}
	text := p.Extra
	switch {
	case want != nil && p.Extra != nil && !bytes.Equal(want, p.Extra):
		return Verified{}, refuse(StageLeaf, "the proof's extra data is not the leaf expected (%s)", want)
	case want != nil:
		text = want
	case text == nil:
		return Verified{}, refuse(StageLeaf, "the proof carries no extra data (the leaf text), and no leaf was given")
	}
	size := c.Checkpoint.Size
	if p.Index >= size {
		return Verified{}, refuse(StageInclusion, "the index %d is not in the checkpoint's tree of size %d", p.Index, size)
	}
	if err := tlog.CheckRecord(tlog.RecordProof(p.Hashes), size, c.Checkpoint.Hash, p.Index, leaf.Hash(text)); err != nil {
		return Verified{}, refuse(StageInclusion, "the inclusion proof of index %d in the tree of size %d: %v", p.Index, size, err)
	}
	return Verified{Checked: c, Index: p.Index, Leaf: text}, nil
}
