package translog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/store"
)

// This file holds the reader's side: pure checks of what the log publishes (checkpoints,
// inclusion and consistency proofs, entry bundles) against a verifier key. Nothing here reads
// the store; `svc verify` and `svc log monitor` use it over HTTP or files.

// ErrVerify marks a proof, checkpoint or leaf that does not verify; its message says why.
var ErrVerify = errors.New("log verification failed")

func failf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrVerify, fmt.Sprintf(format, args...))
}

// InclusionProof is the body of GET /svc/log/inclusion/{version}.
type InclusionProof struct {
	LogIndex   int64    `json:"log_index"`
	TreeSize   int64    `json:"tree_size"`
	Leaf       string   `json:"leaf"`
	Hashes     [][]byte `json:"hashes"`
	Checkpoint string   `json:"checkpoint"`
}

// OpenCheckpoint checks the signed checkpoint against the verifier key and parses its body;
// the checkpoint's origin must be the key's name.
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

// VerifyCosigned checks a cosigned checkpoint: signed by the log's verifierKey (as
// OpenCheckpoint), and cosigned (C2SP tlog-cosignature, cosignature/v1) by at least quorum of
// the witnesses whose verifier keys are given. Signatures of other keys are ignored. It
// returns the checkpoint.
func VerifyCosigned(signed []byte, verifierKey string, witnessKeys []string, quorum int) (Checkpoint, error) {
	if quorum < 1 || quorum > len(witnessKeys) {
		return Checkpoint{}, fmt.Errorf("translog: witness quorum %d: want 1 to %d (the witness keys given)", quorum, len(witnessKeys))
	}
	c, err := OpenCheckpoint(signed, verifierKey)
	if err != nil {
		return Checkpoint{}, err
	}
	vs := make([]note.Verifier, 0, len(witnessKeys))
	for _, k := range witnessKeys {
		v, err := fnote.NewVerifierForCosignatureV1(strings.TrimSpace(k))
		if err != nil {
			return Checkpoint{}, fmt.Errorf("translog: witness key %q: %w", k, err)
		}
		vs = append(vs, v)
	}
	n, err := note.Open(signed, note.VerifierList(vs...))
	var none *note.UnverifiedNoteError
	switch {
	case errors.As(err, &none):
		return Checkpoint{}, failf("no cosignature of the given witnesses (%d needed)", quorum)
	case err != nil:
		return Checkpoint{}, failf("cosignature: %v", err)
	}
	witnessed := map[string]bool{}
	for _, s := range n.Sigs {
		witnessed[s.Name] = true
	}
	if len(witnessed) < quorum {
		return Checkpoint{}, failf("%d of the given witnesses cosigned the checkpoint, %d needed", len(witnessed), quorum)
	}
	return c, nil
}

// LeafFromLookup builds the leaf a lookup's data shows (kind namespace, registry or record):
// its ids, version, version_count and proof digest.
func LeafFromLookup(kind string, data map[string]any) (store.LogLeaf, error) {
	str := func(k string) string { s, _ := data[k].(string); return s }
	l := store.LogLeaf{Kind: kind, NamespaceID: str("namespace_id"), Version: str("version")}
	if kind != "namespace" {
		l.RegistryID = str("registry_id")
	}
	if kind == "record" {
		l.RecordID = str("record_id")
	}
	if p, ok := data["proof"].(map[string]any); ok {
		l.Digest, _ = p["digest"].(string)
	}
	switch n := data["version_count"].(type) {
	case float64:
		l.VersionCount = int64(n)
	case json.Number:
		l.VersionCount, _ = n.Int64()
	case int64:
		l.VersionCount = n
	}
	if l.NamespaceID == "" || l.Version == "" || l.Digest == "" || l.VersionCount < 1 ||
		(kind != "namespace" && l.RegistryID == "") || (kind == "record" && l.RecordID == "") {
		return store.LogLeaf{}, failf("the lookup lacks the %s leaf fields (ids, version, version_count, proof.digest)", kind)
	}
	return l, nil
}

// VerifyInclusion checks an inclusion proof: the checkpoint is signed by verifierKey, the leaf
// text is the canonical leaf of want, and the audit path leads from the leaf at log_index to
// the checkpoint's root at tree_size. It returns the checkpoint.
func VerifyInclusion(p InclusionProof, verifierKey string, want store.LogLeaf) (Checkpoint, error) {
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
	wantText, err := want.Canonical()
	if err != nil {
		return Checkpoint{}, err
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
	if err := tlog.CheckRecord(proof, c.Size, c.Hash, p.LogIndex, tlog.RecordHash([]byte(p.Leaf))); err != nil {
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

// ParseLeaf parses a leaf text and checks that it is the canonical leaf of its fields.
func ParseLeaf(text []byte) (store.LogLeaf, error) {
	var raw struct {
		Kind         string `json:"kind"`
		NamespaceID  string `json:"namespace_id"`
		RegistryID   string `json:"registry_id"`
		RecordID     string `json:"record_id"`
		Version      string `json:"version"`
		VersionCount int64  `json:"version_count"`
		Digest       string `json:"digest"`
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return store.LogLeaf{}, failf("leaf %q: %v", text, err)
	}
	l := store.LogLeaf(raw)
	switch l.Kind {
	case "namespace", "registry", "record":
	default:
		return store.LogLeaf{}, failf("leaf %q: unknown kind", text)
	}
	canon, err := l.Canonical()
	if err != nil || !bytes.Equal(canon, text) || l.VersionCount < 1 {
		return store.LogLeaf{}, failf("leaf %q is not a canonical leaf", text)
	}
	return l, nil
}

// LeafEntryID names the entry a leaf is a version of: kind and ids.
func LeafEntryID(l store.LogLeaf) string {
	switch l.Kind {
	case "namespace":
		return "namespace " + l.NamespaceID
	case "registry":
		return "registry " + l.NamespaceID + "/" + l.RegistryID
	}
	return "record " + l.NamespaceID + "/" + l.RegistryID + "/" + l.RecordID
}

// BundlePath is the C2SP tlog-tiles path (after "tile/") of entry bundle n cut to w entries
// (TileWidth: the full bundle): entries/x001/234[.p/W].
func BundlePath(n int64, w int) string {
	p := tlog.Tile{H: TileHeight, L: 0, N: n, W: w}.Path() // tile/8/0/N[.p/W]
	return "entries/" + strings.TrimPrefix(p, "tile/"+strconv.Itoa(TileHeight)+"/0/")
}

// SplitBundle returns the leaves of an entry bundle (each a big-endian 16-bit length and the
// leaf); want is how many it must hold.
func SplitBundle(data []byte, want int) ([][]byte, error) {
	var out [][]byte
	for off := 0; off < len(data); {
		if off+2 > len(data) {
			return nil, failf("entry bundle is truncated")
		}
		l := int(data[off])<<8 | int(data[off+1])
		if off+2+l > len(data) {
			return nil, failf("entry bundle is truncated")
		}
		out = append(out, data[off+2:off+2+l])
		off += 2 + l
	}
	if len(out) != want {
		return nil, failf("entry bundle holds %d leaves, want %d", len(out), want)
	}
	return out, nil
}

// MonitorState is what a monitor keeps between runs: the last checkpoint it verified and the
// last version_count of every entry it has seen in the log.
type MonitorState struct {
	Checkpoint string           `json:"checkpoint"`
	Counts     map[string]int64 `json:"counts"`
}

// CheckLeaves checks the leaves that follow the state's tree in log order: each parses as a
// canonical leaf and the version_count of each entry grows by exactly one per leaf (from 1), or
// for records (whose draft versions are not logged) grows. It updates counts; first is the log
// index of leaves[0].
func CheckLeaves(counts map[string]int64, first int64, leaves [][]byte) error {
	for i, text := range leaves {
		l, err := ParseLeaf(text)
		if err != nil {
			return fmt.Errorf("leaf %d: %w", first+int64(i), err)
		}
		id := LeafEntryID(l)
		prev := counts[id]
		// Draft record versions are not logged, so a record's logged versions may skip the
		// counts of its drafts; they still only grow.
		if l.Kind == "record" && l.VersionCount <= prev {
			return failf("leaf %d: %s has version_count %d after %d (want more)", first+int64(i), id, l.VersionCount, prev)
		}
		if l.Kind != "record" && l.VersionCount != prev+1 {
			return failf("leaf %d: %s has version_count %d after %d (want %d)", first+int64(i), id, l.VersionCount, prev, prev+1)
		}
		counts[id] = l.VersionCount
	}
	return nil
}

// CheckLeafHashes checks that leaves (from log index first on) are the leaves of the tree of c:
// their RFC 6962 leaf hashes equal the tree's, as hashes reads them (a tlog.TileHashReader
// checks each tile it reads against c's root hash).
func CheckLeafHashes(c Checkpoint, hashes tlog.HashReader, first int64, leaves [][]byte) error {
	idx := make([]int64, len(leaves))
	for i := range leaves {
		idx[i] = tlog.StoredHashIndex(0, first+int64(i))
	}
	got, err := hashes.ReadHashes(idx)
	if err != nil {
		return failf("leaf hashes of %d..%d in tree %d: %v", first, first+int64(len(leaves))-1, c.Size, err)
	}
	for i, text := range leaves {
		if got[i] != tlog.RecordHash(text) {
			return failf("leaf %d of the entry bundle is not the tree's leaf %d", first+int64(i), first+int64(i))
		}
	}
	return nil
}

// TileServicePath is where a service publishes tile t of this log's height, after its log
// prefix (`tile/{L}/{N}[.p/{W}]`, `tile/entries/...` for level -1).
func TileServicePath(t tlog.Tile) string {
	if t.L == -1 {
		return "tile/" + BundlePath(t.N, t.W)
	}
	return "tile/" + strings.TrimPrefix(t.Path(), "tile/"+strconv.Itoa(TileHeight)+"/")
}
