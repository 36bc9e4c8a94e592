package leaf

import (
	"golang.org/x/mod/sumdb/tlog"
)

// InclusionProof is the body of GET /svc/log/inclusion/{version}.
type InclusionProof struct {
	LogIndex   int64    `json:"log_index"`
	TreeSize   int64    `json:"tree_size"`
	Leaf       string   `json:"leaf"`
	Hashes     [][]byte `json:"hashes"`
	Checkpoint string   `json:"checkpoint"`
}

// VerifyInclusion checks an inclusion proof: the checkpoint is signed by verifierKey, the leaf
// text is the canonical leaf of want, and the audit path leads from the leaf at log_index to
// the checkpoint's root at tree_size. It returns the checkpoint.
func VerifyInclusion(p InclusionProof, verifierKey string, want Leaf) (Checkpoint, error) {
	wantText, err := want.Canonical()
	if err != nil {
		return Checkpoint{}, err
	}
	return verifyInclusionOf(p, verifierKey, wantText)
}

// VerifyKeysInclusion is VerifyInclusion for a key-change leaf: the proof's leaf must be the
// canonical leaf of want.
func VerifyKeysInclusion(p InclusionProof, verifierKey string, want KeysLeaf) (Checkpoint, error) {
	wantText, err := want.Canonical()
	if err != nil {
		return Checkpoint{}, err
	}
	return verifyInclusionOf(p, verifierKey, wantText)
}

// verifyInclusionOf checks an inclusion proof of the leaf text wantText.
func verifyInclusionOf(p InclusionProof, verifierKey string, wantText []byte) (Checkpoint, error) {
	c, err := OpenCheckpoint([]byte(p.Checkpoint), verifierKey)
	if err != nil {
		return Checkpoint{}, err
	}
	if p.TreeSize != c.Size {
		return Checkpoint{}, failf("proof tree_size %d is not the checkpoint's size %d", p.TreeSize, c.Size)
	}
	if p.LogIndex < 0 || p.LogIndex >= p.TreeSize {
		return Checkpoint{}, failf("log_index %d is outside the tree of size %d", p.LogIndex, p.TreeSize)
	}
	if p.Leaf != string(wantText) {
		return Checkpoint{}, failf("the proof's leaf %s is not the lookup's leaf %s", p.Leaf, wantText)
	}
	proof := make(tlog.RecordProof, len(p.Hashes))
	for i, h := range p.Hashes {
		if len(h) != tlog.HashSize {
			return Checkpoint{}, failf("proof hash %d is %d bytes, not %d", i, len(h), tlog.HashSize)
		}
		copy(proof[i][:], h)
	}
	if err := tlog.CheckRecord(proof, c.Size, c.Hash, p.LogIndex, Hash([]byte(p.Leaf))); err != nil {
		return Checkpoint{}, failf("inclusion proof of leaf %d in tree %d: %v", p.LogIndex, c.Size, err)
	}
	return c, nil
}

// VerifyConsistency checks that the tree of old is a prefix of the tree of new with the
// RFC 6962 consistency proof hashes (from old.Size to new.Size).
func VerifyConsistency(old, new Checkpoint, hashes [][]byte) error {
	if old.Origin != new.Origin {
		return failf("origin changed from %q to %q", old.Origin, new.Origin)
	}
	if new.Size < old.Size {
		return failf("the log shrank from %d to %d", old.Size, new.Size)
	}
	if old.Size == new.Size {
		if old.Hash != new.Hash {
			return failf("two different root hashes for tree size %d", old.Size)
		}
		return nil
	}
	if old.Size == 0 {
		return nil
	}
	proof := make(tlog.TreeProof, len(hashes))
	for i, h := range hashes {
		if len(h) != tlog.HashSize {
			return failf("consistency hash %d is %d bytes, not %d", i, len(h), tlog.HashSize)
		}
		copy(proof[i][:], h)
	}
	if err := tlog.CheckTree(proof, new.Size, new.Hash, old.Size, old.Hash); err != nil {
		return failf("the stored checkpoint of size %d is not a prefix of the new one of size %d: %v", old.Size, new.Size, err)
	}
	return nil
}
