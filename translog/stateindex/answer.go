package stateindex

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
)

// Answer is a state answer (GET /svc/log/state/{id}, docs/state-index.md "The state query"):
// the latest leaf of a key, or its absence, proven as of a checkpoint whose last leaf is a
// state leaf. Byte fields are standard base64 in JSON.
type Answer struct {
	Key     AnswerKey `json:"key"`
	Present bool      `json:"present"`
	// Count is the length of the key's list (0 when absent).
	Count uint64 `json:"count"`
	// Latest is the key's latest leaf, with its inclusion proof in the checkpoint's tree; the
	// compact membership proof: ListRoot, the RFC 6962 root of the key's list, and ListProof,
	// the inclusion of its last element (ProveLatest). Absent: none.
	Latest          *AnswerLeaf `json:"latest,omitempty"`
	LatestInclusion [][]byte    `json:"latest_inclusion,omitempty"`
	ListRoot        []byte      `json:"list_root,omitempty"`
	ListProof       [][]byte    `json:"list_proof,omitempty"`
	// State is the checkpoint's last leaf, a state leaf committing the index of the leaves
	// before it, with its inclusion proof in the checkpoint's tree.
	State          AnswerLeaf `json:"state"`
	StateInclusion [][]byte   `json:"state_inclusion"`
	// Proof is the encoded index proof (membership, or absence) at the state leaf's root.
	Proof []byte `json:"proof"`
	// Checkpoint is the signed (with witnesses: cosigned) note of the tree of State.LogIndex+1.
	Checkpoint string `json:"checkpoint"`
}

// AnswerKey is a key as an answer names it: its kind's name and its strings.
type AnswerKey struct {
	Kind  string   `json:"kind"`
	Parts []string `json:"parts"`
}

// AnswerLeaf is a log leaf: its index and its text.
type AnswerLeaf struct {
	LogIndex int64  `json:"log_index"`
	Leaf     string `json:"leaf"`
}

// The outcomes of a check of a state answer (svc verify --current), one word each.
const (
	Current         = "current"
	Superseded      = "superseded"
	Absent          = "absent"
	StaleCheckpoint = "stale_checkpoint"
	BadProof        = "bad_proof"
	Fork            = "fork"
)

// Check is what CheckAnswer checks an answer against.
type Check struct {
	Answer Answer
	// Checkpoint is Answer.Checkpoint opened by the caller, its signature (and the witnesses'
	// cosignatures, when it requires them) verified.
	Checkpoint leaf.Checkpoint
	// CosignedAt is the time of the witnesses' cosignatures (the oldest of the quorum); zero
	// when no witness is required: the state leaf's time (the log's clock) is trusted then.
	CosignedAt time.Time
	// Later, when set, is a later checkpoint of the same log (verified by the caller) and the
	// consistency proof from the answer's tree to it: a tree it does not extend is a fork.
	Later *Later
	// Key is the key asked about; Have, when set, the leaf text of the version the relying
	// party holds (from its lookup): current means it is the key's latest leaf.
	Key  Key
	Have []byte
	// Now and MaxAge: an answer older than MaxAge (0: any age) is stale.
	Now    time.Time
	MaxAge time.Duration
}

// Later is a later checkpoint and the consistency proof to it.
type Later struct {
	Checkpoint  leaf.Checkpoint
	Consistency []tlog.Hash
}

// Verdict is a check's outcome word and its sentence; Latest is the key's latest leaf when
// the answer proved one.
type Verdict struct {
	Outcome string
	Message string
	Latest  *leaf.Leaf
	Index   int64
}

func (v Verdict) String() string { return v.Outcome + ": " + v.Message }

func bad(format string, args ...any) Verdict {
	return Verdict{Outcome: BadProof, Message: fmt.Sprintf(format, args...)}
}

// CheckAnswer checks a state answer: its checkpoint ends in its state leaf (the leaf of index
// size-1, committing the index of every leaf before it), both leaves are in the checkpoint's
// tree, the index proof holds at the state leaf's root, and (when a later checkpoint is given)
// the tree is a prefix of the later one. It then says whether Have is the key's latest leaf
// (current), an older one (superseded), whether the key is absent, and whether the answer is
// older than MaxAge (stale_checkpoint, by the witnesses' time, or the log's when none). It is
// pure: the caller verifies the signatures and fetches what it needs.
func CheckAnswer(c Check) Verdict {
	a, cp := c.Answer, c.Checkpoint
	// The key.
	if a.Key.Kind != c.Key.Kind.String() || !slices.Equal(a.Key.Parts, c.Key.Parts) {
		return bad("the answer is about the key %s %v, not %s", a.Key.Kind, a.Key.Parts, c.Key)
	}
	// The state leaf: the checkpoint's last leaf, in its tree.
	if a.State.LogIndex != cp.Size-1 {
		return bad("the state leaf (index %d) is not the last leaf of the checkpoint of size %d", a.State.LogIndex, cp.Size)
	}
	st, err := leaf.ParseState([]byte(a.State.Leaf))
	if err != nil {
		return bad("the state leaf: %v", err)
	}
	if st.Size != a.State.LogIndex {
		return bad("the state leaf at index %d commits the index of %d leaves, not of the %d before it", a.State.LogIndex, st.Size, a.State.LogIndex)
	}
	if err := included(a.StateInclusion, cp, a.State); err != nil {
		return bad("the state leaf is not in the checkpoint's tree: %v", err)
	}
	root := Hash(st.Root)
	// The index proof.
	var v Verdict
	if a.Present {
		if a.Latest == nil || a.Count == 0 || len(a.ListRoot) != 32 {
			return bad("a present key's answer without its latest leaf, count or list root")
		}
		if a.Latest.LogIndex < 0 || a.Latest.LogIndex >= st.Size {
			return bad("the latest leaf's index %d is not among the %d leaves the state commits", a.Latest.LogIndex, st.Size)
		}
		if err := included(a.LatestInclusion, cp, *a.Latest); err != nil {
			return bad("the latest leaf is not in the checkpoint's tree: %v", err)
		}
		keys, err := KeysOf([]byte(a.Latest.Leaf))
		if err != nil || !slices.ContainsFunc(keys, func(k Key) bool { return k.Kind == c.Key.Kind && slices.Equal(k.Parts, c.Key.Parts) }) {
			return bad("the latest leaf is not a leaf of %s", c.Key)
		}
		lp := make([]Hash, len(a.ListProof))
		for i, h := range a.ListProof {
			if len(h) != 32 {
				return bad("a list proof hash of %d bytes", len(h))
			}
			lp[i] = Hash(h)
		}
		if err := VerifyLatest(root, c.Key, a.Count, Hash(a.ListRoot), uint64(a.Latest.LogIndex), lp, a.Proof); err != nil {
			return bad("%v", err)
		}
		v = Verdict{Outcome: Current, Index: a.Latest.LogIndex}
		if l, err := leaf.Parse([]byte(a.Latest.Leaf)); err == nil {
			v.Latest = &l
		}
	} else {
		if a.Latest != nil || a.Count != 0 {
			return bad("an absent key's answer names a latest leaf")
		}
		if err := VerifyAbsence(root, c.Key, a.Proof); err != nil {
			return bad("%v", err)
		}
		v = Verdict{Outcome: Absent}
	}
	// A later checkpoint must extend this one.
	if c.Later != nil && c.Later.Checkpoint.Size >= cp.Size {
		l := c.Later.Checkpoint
		if l.Size == cp.Size && l.Hash != cp.Hash || l.Size > cp.Size && tlog.CheckTree(c.Later.Consistency, l.Size, l.Hash, cp.Size, cp.Hash) != nil {
			return Verdict{Outcome: Fork, Message: fmt.Sprintf("the answer's tree of size %d (root %x) is not a prefix of the log's checkpoint of size %d (root %x): the log shows two histories",
				cp.Size, cp.Hash[:], l.Size, l.Hash[:])}
		}
	}
	// Its age.
	at, clock := st.At(), "the log's own clock (the state leaf's time; no witness was required)"
	if !c.CosignedAt.IsZero() {
		at, clock = c.CosignedAt, "the witnesses' clock (their cosignature time)"
	}
	age := c.Now.Sub(at).Truncate(time.Millisecond)
	if c.MaxAge > 0 && age > c.MaxAge {
		return Verdict{Outcome: StaleCheckpoint, Message: fmt.Sprintf("the checkpoint of size %d is %s old by %s, more than the %s allowed", cp.Size, age, clock, c.MaxAge)}
	}
	asOf := fmt.Sprintf("as of the checkpoint of size %d (the index of the first %d leaves), %s old by %s", cp.Size, st.Size, age, clock)
	switch {
	case v.Outcome == Absent:
		v.Message = fmt.Sprintf("%s has no leaf in the log %s", c.Key, asOf)
	case c.Have == nil || bytes.Equal(c.Have, []byte(a.Latest.Leaf)):
		v.Message = fmt.Sprintf("the version held is the latest of %s (leaf %d, %d leaves) %s", c.Key, a.Latest.LogIndex, a.Count, asOf)
	default:
		v.Outcome = Superseded
		have, err := leaf.Parse(c.Have)
		if err == nil && v.Latest != nil && have.VersionCount > v.Latest.VersionCount {
			return Verdict{Outcome: StaleCheckpoint, Message: fmt.Sprintf("the version held (version_count %d) is newer than the latest the checkpoint of size %d knows (version_count %d): the answer predates it",
				have.VersionCount, cp.Size, v.Latest.VersionCount)}
		}
		latest := "its latest leaf"
		if v.Latest != nil {
			latest = fmt.Sprintf("version %s (version_count %d)", v.Latest.Version, v.Latest.VersionCount)
		}
		v.Message = fmt.Sprintf("a newer version of %s exists: %s, at log index %d (%d leaves) %s", c.Key, latest, a.Latest.LogIndex, a.Count, asOf)
	}
	return v
}

// included checks the inclusion proof of l in the tree of cp.
func included(hashes [][]byte, cp leaf.Checkpoint, l AnswerLeaf) error {
	p := make(tlog.RecordProof, len(hashes))
	for i, h := range hashes {
		if len(h) != 32 {
			return fmt.Errorf("a hash of %d bytes", len(h))
		}
		p[i] = tlog.Hash(h)
	}
	return tlog.CheckRecord(p, cp.Size, cp.Hash, l.LogIndex, leaf.Hash([]byte(l.Leaf)))
}
