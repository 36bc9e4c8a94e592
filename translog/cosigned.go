package translog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/svc-directory/svc/translog/leaf"
)

// VerifyCosigned checks a cosigned checkpoint: signed by the log's verifierKey (as
// leaf.OpenCheckpoint), and cosigned (C2SP tlog-cosignature, cosignature/v1) by at least
// quorum of the witnesses whose verifier keys are given. Signatures of other keys are ignored.
// It returns the checkpoint. It is here rather than in translog/leaf because the cosignature
// verifier is github.com/transparency-dev/formats/note's (translog imports no database either).
func VerifyCosigned(signed []byte, verifierKey string, witnessKeys []string, quorum int) (leaf.Checkpoint, error) {
	c, _, err := VerifyCosignedAt(signed, verifierKey, witnessKeys, quorum)
	return c, err
}

// VerifyCosignedAt is VerifyCosigned, and also returns when the quorum had cosigned: of the
// given witnesses' cosignatures, sorted newest first, the time of the quorum-th (each
// cosignature/v1 signature holds its witness's time, in seconds).
func VerifyCosignedAt(signed []byte, verifierKey string, witnessKeys []string, quorum int) (leaf.Checkpoint, time.Time, error) {
	if quorum < 1 || quorum > len(witnessKeys) {
		return leaf.Checkpoint{}, time.Time{}, fmt.Errorf("translog: witness quorum %d: want 1 to %d (the witness keys given)", quorum, len(witnessKeys))
	}
	c, err := leaf.OpenCheckpoint(signed, verifierKey)
	if err != nil {
		return leaf.Checkpoint{}, time.Time{}, err
	}
	vs := make([]note.Verifier, 0, len(witnessKeys))
	for _, k := range witnessKeys {
		v, err := fnote.NewVerifierForCosignatureV1(strings.TrimSpace(k))
		if err != nil {
			return leaf.Checkpoint{}, time.Time{}, fmt.Errorf("translog: witness key %q: %w", k, err)
		}
		vs = append(vs, v)
	}
	n, err := note.Open(signed, note.VerifierList(vs...))
	var none *note.UnverifiedNoteError
	switch {
	case errors.As(err, &none):
		return leaf.Checkpoint{}, time.Time{}, failf("no cosignature of the given witnesses (%d needed)", quorum)
	case err != nil:
		return leaf.Checkpoint{}, time.Time{}, failf("cosignature: %v", err)
	}
	witnessed := map[string]time.Time{}
	for _, s := range n.Sigs {
		t, err := fnote.CoSigV1Timestamp(s)
		if err != nil {
			return leaf.Checkpoint{}, time.Time{}, failf("cosignature of %s: %v", s.Name, err)
		}
		if old, ok := witnessed[s.Name]; !ok || t.After(old) {
			witnessed[s.Name] = t
		}
	}
	if len(witnessed) < quorum {
		return leaf.Checkpoint{}, time.Time{}, failf("%d of the given witnesses cosigned the checkpoint, %d needed", len(witnessed), quorum)
	}
	times := make([]time.Time, 0, len(witnessed))
	for _, t := range witnessed {
		times = append(times, t)
	}
	slices.SortFunc(times, func(a, b time.Time) int { return b.Compare(a) })
	return c, times[quorum-1], nil
}

// failf is a leaf.ErrVerify failure.
func failf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", leaf.ErrVerify, fmt.Sprintf(format, args...))
}
