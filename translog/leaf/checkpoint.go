package leaf

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// ErrVerify marks a proof, checkpoint or leaf that does not verify; its message says why.
var ErrVerify = errors.New("log verification failed")

func failf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrVerify, fmt.Sprintf(format, args...))
}

// Checkpoint is a parsed C2SP tlog-checkpoint body.
type Checkpoint struct {
	Origin string
	Size   int64
	Hash   tlog.Hash
}

// Format returns the checkpoint body: origin, size and base64 root hash, one a line.
func (c Checkpoint) Format() string {
	return c.Origin + "\n" + strconv.FormatInt(c.Size, 10) + "\n" + base64.StdEncoding.EncodeToString(c.Hash[:]) + "\n"
}

// ParseCheckpoint parses a checkpoint body (the text of the signed note). Extension lines
// after the root hash are allowed and ignored.
func ParseCheckpoint(text string) (Checkpoint, error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 || lines[0] == "" {
		return Checkpoint{}, errors.New("translog: malformed checkpoint")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return Checkpoint{}, errors.New("translog: malformed checkpoint size")
	}
	h, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(h) != tlog.HashSize {
		return Checkpoint{}, errors.New("translog: malformed checkpoint root hash")
	}
	c := Checkpoint{Origin: lines[0], Size: size}
	copy(c.Hash[:], h)
	return c, nil
}

// OpenCheckpoint checks the signed checkpoint against the verifier key and parses its body;
// the checkpoint's origin must be the key's name. Signatures of other keys (cosignatures) are
// ignored.
func OpenCheckpoint(signed []byte, verifierKey string) (Checkpoint, error) {
	v, err := note.NewVerifier(strings.TrimSpace(verifierKey))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("translog: verifier key: %w", err)
	}
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		return Checkpoint{}, failf("checkpoint signature: %v", err)
	}
	c, err := ParseCheckpoint(n.Text)
	if err != nil {
		return Checkpoint{}, failf("checkpoint: %v", err)
	}
	if c.Origin != v.Name() {
		return Checkpoint{}, failf("checkpoint origin %q is not the key's name %q", c.Origin, v.Name())
	}
	return c, nil
}
