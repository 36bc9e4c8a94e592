// Package tlogproof reads and writes the two C2SP texts of offline verification: a
// transparency log proof (c2sp.org/tlog-proof@v1: an entry's index, its inclusion proof and a
// checkpoint, with the leaf text as its extra data) and a transparency log policy
// (c2sp.org/tlog-policy: the log's key, the witnesses' keys and the quorum), and verifies a
// proof under a policy. It is pure (the standard library, golang.org/x/mod and the
// cosignature verifier of github.com/transparency-dev/formats/note), beside translog/leaf.
// docs/transparency-log.md ("Offline proofs and the policy") describes both texts as the
// service serves them; testdata/ holds the known-answer vectors that the TypeScript and
// Python SDKs read too.
package tlogproof

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// Header is the first line of a proof.
const Header = "c2sp.org/tlog-proof@v1"

// MaxSize bounds the text a parser reads: a checkpoint with many cosignatures and 63 hashes
// fit in far less.
const MaxSize = 1 << 20

// Proof is a parsed tlog-proof.
type Proof struct {
	// Extra is the extra data (for this service, the leaf text); nil when the proof has none.
	Extra []byte
	// Index is the entry's zero-based index in the log.
	Index int64
	// Hashes is the RFC 6962 inclusion proof, from the leaf's sibling up.
	Hashes []tlog.Hash
	// Checkpoint is the signed (possibly cosigned) checkpoint note, verbatim.
	Checkpoint []byte
}

// Format writes the proof's text.
func (p Proof) Format() []byte {
	var b bytes.Buffer
	b.WriteString(Header + "\n")
	if p.Extra != nil {
		b.WriteString("extra " + base64.StdEncoding.EncodeToString(p.Extra) + "\n")
	}
	b.WriteString("index " + strconv.FormatInt(p.Index, 10) + "\n")
	for _, h := range p.Hashes {
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]) + "\n")
	}
	b.WriteString("\n")
	b.Write(p.Checkpoint)
	return b.Bytes()
}

// Parse reads a proof's text, strictly: the header line; an optional extra line of non-empty
// standard base64; the index line (ASCII decimal, no leading zero); zero to 63 lines of one
// base64 SHA-256 hash each; an empty line; and the checkpoint, a signed note that ends with a
// newline (its signatures are checked by Verify, not here). Anything else is refused with a
// *Error of stage StageParse.
func Parse(text []byte) (Proof, error) {
	if len(text) > MaxSize {
		return Proof{}, refuse(StageParse, "the proof is %d bytes, more than the %d allowed", len(text), MaxSize)
	}
	rest := text
	line := func() (string, bool) {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return "", false
		}
		l := string(rest[:i])
		rest = rest[i+1:]
		return l, true
	}
	l, ok := line()
	if !ok || l != Header {
		return Proof{}, refuse(StageParse, "the first line is not %q", Header)
	}
	var p Proof
	if l, ok = line(); !ok {
		return Proof{}, refuse(StageParse, "the proof ends after its first line")
	}
	if b64, found := cutPrefix(l, "extra "); found {
		extra, err := decode64(b64)
		if err != nil || len(extra) == 0 {
			return Proof{}, refuse(StageParse, "the extra line is not non-empty standard base64")
		}
		p.Extra = extra
		if l, ok = line(); !ok {
			return Proof{}, refuse(StageParse, "the proof ends after its extra line")
		}
	}
	idx, found := cutPrefix(l, "index ")
	if !found {
		return Proof{}, refuse(StageParse, "the line after the header (and extra) is not the index line")
	}
	n, err := strconv.ParseInt(idx, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != idx {
		return Proof{}, refuse(StageParse, "the index %q is not a decimal without leading zeros", idx)
	}
	p.Index = n
	for {
		if l, ok = line(); !ok {
			return Proof{}, refuse(StageParse, "the proof ends before the empty line and the checkpoint")
		}
		if l == "" {
			break
		}
		if len(p.Hashes) == 63 {
			return Proof{}, refuse(StageParse, "more than 63 inclusion proof hashes")
		}
		h, err := decode64(l)
		if err != nil || len(h) != tlog.HashSize {
			return Proof{}, refuse(StageParse, "inclusion proof line %d is not a base64 SHA-256 hash", len(p.Hashes)+1)
		}
		p.Hashes = append(p.Hashes, tlog.Hash(h))
	}
	// The checkpoint: a note's text, a blank line, then signature lines, ending with a newline.
	if len(rest) == 0 || rest[len(rest)-1] != '\n' || !bytes.Contains(rest, []byte("\n\n")) || bytes.HasPrefix(rest, []byte("\n")) {
		return Proof{}, refuse(StageParse, "the checkpoint is missing or not a signed note")
	}
	p.Checkpoint = bytes.Clone(rest)
	return p, nil
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return s, false
}

// decode64 decodes standard padded base64 strictly: no stray bits, and no carriage return or
// newline (which Go's decoder would skip).
func decode64(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("a line break in base64")
	}
	return base64.StdEncoding.Strict().DecodeString(s)
}

// The stages a proof can be refused at: it does not parse; its checkpoint is not signed by a
// log of the policy or not cosigned to its quorum; its inclusion proof does not lead to the
// checkpoint's root; its leaf is not the one expected.
const (
	StageParse      = "parse"
	StageCheckpoint = "checkpoint"
	StageInclusion  = "inclusion"
	StageLeaf       = "leaf"
)

// Error is a refusal: the stage and why.
type Error struct {
	Stage  string
	Reason string
}

func (e *Error) Error() string { return e.Reason }

func refuse(stage, format string, args ...any) error {
	return &Error{Stage: stage, Reason: fmt.Sprintf(format, args...)}
}
