package tlogproof_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/tlogproof"
)

// The generator of testdata/vectors.json (TestVectors; testdata/README.md says what each part
// means). Keys are made from fixed seeds and cosignatures at fixed times, so the file is the
// same at every run.

const origin = "log.example/svc/log"

// vectorsFile is testdata/vectors.json.
type vectorsFile struct {
	Comment  string            `json:"comment"`
	Leaves   []string          `json:"leaves"`
	Policies []policyCase      `json:"policies"`
	Proofs   []proofCase       `json:"proofs"`
	Formats  []formatCase      `json:"formats"`
	Keys     map[string]string `json:"keys"`
}

type policyCase struct {
	Name      string            `json:"name"`
	Text      string            `json:"text"`
	OK        bool              `json:"ok"`
	Logs      []string          `json:"logs,omitempty"`
	Witnesses []policyWitness   `json:"witnesses,omitempty"`
	Groups    []tlogproof.Group `json:"groups,omitempty"`
	Quorum    string            `json:"quorum,omitempty"`
}

type policyWitness struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

type proofCase struct {
	Name   string  `json:"name"`
	Proof  string  `json:"proof"`
	Policy string  `json:"policy"`
	Leaf   *string `json:"leaf"`
	OK     bool    `json:"ok"`
	// Stage is where a refused proof fails (parse, checkpoint, inclusion, leaf).
	Stage string `json:"stage,omitempty"`
	// What an accepted proof proves.
	Index      *int64   `json:"index,omitempty"`
	Size       *int64   `json:"size,omitempty"`
	Origin     string   `json:"origin,omitempty"`
	ProvenLeaf string   `json:"proven_leaf,omitempty"`
	Witnesses  []string `json:"witnesses,omitempty"`
	CosignedAt int64    `json:"cosigned_at,omitempty"`
}

// formatCase: NewPolicy of a log key, witness keys and a quorum writes text.
type formatCase struct {
	Name        string   `json:"name"`
	LogKey      string   `json:"log_key"`
	WitnessKeys []string `json:"witness_keys"`
	Quorum      int      `json:"quorum"`
	Text        string   `json:"text"`
}

type signer struct {
	name string
	priv ed25519.PrivateKey
	vkey string // the note key (0x01) for a log, the cosignature/v1 key (0x04) for a witness
	hash uint32
}

func seeded(seed byte) ed25519.PrivateKey {
	s := make([]byte, ed25519.SeedSize)
	for i := range s {
		s[i] = seed
	}
	return ed25519.NewKeyFromSeed(s)
}

func vkeyOf(name string, typ byte, pub ed25519.PublicKey) (string, uint32) {
	b := append([]byte{typ}, pub...)
	h := sha256.Sum256(append([]byte(name+"\n"), b...))
	return name + "+" + hex.EncodeToString(h[:4]) + "+" + base64.StdEncoding.EncodeToString(b), binary.BigEndian.Uint32(h[:4])
}

func newSigner(name string, seed, typ byte) signer {
	priv := seeded(seed)
	v, h := vkeyOf(name, typ, priv.Public().(ed25519.PublicKey))
	return signer{name: name, priv: priv, vkey: v, hash: h}
}

// sigLine is a note signature line of s over msg, with prefix (the timestamp of a cosignature)
// before the signature.
func (s signer) sigLine(msg, prefix []byte) string {
	b := binary.BigEndian.AppendUint32(nil, s.hash)
	b = append(append(b, prefix...), ed25519.Sign(s.priv, msg)...)
	return "\u2014 " + s.name + " " + base64.StdEncoding.EncodeToString(b) + "\n"
}

// sign signs a checkpoint body as the log.
func (s signer) sign(body string) string { return s.sigLine([]byte(body), nil) }

// cosign is a cosignature/v1 line of the witness s over body at Unix time t.
func (s signer) cosign(body string, t uint64) string {
	msg := "cosignature/v1\ntime " + strconv.FormatUint(t, 10) + "\n" + body
	return s.sigLine([]byte(msg), binary.BigEndian.AppendUint64(nil, t))
}

// memTree is a tree of leaves in memory.
type memTree struct{ hashes []tlog.Hash }

func (m *memTree) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = m.hashes[x]
	}
	return out, nil
}

func (m *memTree) add(t testing.TB, n int64, text []byte) {
	hs, err := tlog.StoredHashes(n, text, m)
	if err != nil {
		t.Fatal(err)
	}
	m.hashes = append(m.hashes, hs...)
}

func vectorLeaves(t testing.TB) [][]byte {
	var out [][]byte
	for i := range 13 {
		l := leaf.Leaf{Kind: leaf.KindRecord, NamespaceID: "did:svc:2Ujr5hdB8Hn1nBi5WXYYqW", RegistryID: "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
			RecordID: fmt.Sprintf("0190f2a1-b2c3-7d4e-8f60-7182930000%02d", i), Version: fmt.Sprintf("0x%064x", i+1), VersionCount: 1,
			Digest: fmt.Sprintf("0x%064x", 1000+i)}
		text, err := l.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, text)
	}
	return out
}

func makeVectors(t testing.TB) vectorsFile {
	leaves := vectorLeaves(t)
	m := &memTree{}
	for i, l := range leaves {
		m.add(t, int64(i), l)
	}
	log := newSigner(origin, 1, 0x01)
	other := newSigner(origin, 2, 0x01) // another key of the same name
	w1 := newSigner("w1.example", 11, 0x04)
	w2 := newSigner("w2.example", 12, 0x04)
	w3 := newSigner("w3.example", 13, 0x04)
	stranger := newSigner("w4.example", 14, 0x04)
	w1note := newSigner("w1.example", 11, 0x01) // w1's public key as a note key

	body := func(n int64) string {
		root, err := tlog.TreeHash(n, m)
		if err != nil {
			t.Fatal(err)
		}
		return origin + "\n" + strconv.FormatInt(n, 10) + "\n" + base64.StdEncoding.EncodeToString(root[:]) + "\n"
	}
	const size = 13
	b13 := body(size)
	note13 := b13 + "\n" + log.sign(b13)
	const t1, t2, t3 = 1795809600, 1795809660, 1795809720
	cosigned := func(ws ...signer) string {
		out := b13 + "\n" + log.sign(b13)
		for i, w := range ws {
			out += w.cosign(b13, uint64(t1+60*i))
		}
		return out
	}
	proofOf := func(idx int64, n int64, checkpoint string, extra []byte) string {
		rp, err := tlog.ProveRecord(n, idx, m)
		if err != nil {
			t.Fatal(err)
		}
		return string(tlogproof.Proof{Extra: extra, Index: idx, Hashes: rp, Checkpoint: []byte(checkpoint)}.Format())
	}

	pNone := "log " + log.vkey + "\nquorum none\n"
	pW1 := "log " + log.vkey + "\nwitness w1 " + w1.vkey + "\nquorum w1\n"
	p2of3 := "log " + log.vkey + "\nwitness w1 " + w1.vkey + "\nwitness w2 " + w2.vkey + "\nwitness w3 " + w3.vkey + "\ngroup g 2 w1 w2 w3\nquorum g\n"
	pNested := "# two organisations\nlog " + log.vkey + " https://log.example/svc/log\n\nwitness w1 " + w1.vkey + "\nwitness w2 " + w2.vkey +
		"\ngroup a all w1 w2\n\twitness\tw3\t" + w3.vkey + "  \ngroup b any w3\ngroup both all a b\nquorum both\n"
	pNoteKey := "log " + log.vkey + "\nwitness w1 " + w1note.vkey + "\nquorum w1\n"

	l := func(i int) *string { s := string(leaves[i]); return &s }
	ok := func(name, proof, policy string, want *string, idx, n int64, proven int, ws []string, at int64) proofCase {
		return proofCase{Name: name, Proof: proof, Policy: policy, Leaf: want, OK: true, Index: &idx, Size: &n, Origin: origin,
			ProvenLeaf: string(leaves[proven]), Witnesses: ws, CosignedAt: at}
	}
	bad := func(name, stage, proof, policy string, want *string) proofCase {
		return proofCase{Name: name, Proof: proof, Policy: policy, Leaf: want, Stage: stage}
	}
	good5 := proofOf(5, size, note13, leaves[5])
	b1 := body(1)
	note1 := b1 + "\n" + log.sign(b1)
	flipSig := b13 + "\n" + flipSigByte(t, log.sign(b13))
	hashes5 := strings.Split(strings.SplitN(good5, "\nindex 5\n", 2)[1], "\n\n")[0]
	firstHash := strings.SplitN(hashes5, "\n", 2)[0]
	badCosig := b13 + "\n" + log.sign(b13) + flipSigByte(t, w1.cosign(b13, t1))

	proofs := []proofCase{
		ok("index 5 of 13, the leaf from extra, no witnesses", good5, pNone, nil, 5, size, 5, nil, 0),
		ok("index 5 of 13, the leaf expected given and equal to extra", good5, pNone, l(5), 5, size, 5, nil, 0),
		ok("index 0 of 13", proofOf(0, size, note13, leaves[0]), pNone, nil, 0, size, 0, nil, 0),
		ok("index 12 of 13, the last leaf", proofOf(12, size, note13, leaves[12]), pNone, nil, 12, size, 12, nil, 0),
		ok("no extra line, the leaf expected given", proofOf(7, size, note13, nil), pNone, l(7), 7, size, 7, nil, 0),
		ok("a tree of one leaf: no hash lines", proofOf(0, 1, note1, leaves[0]), pNone, nil, 0, 1, 0, nil, 0),
		ok("cosigned by the one witness of the quorum", proofOf(5, size, cosigned(w1), leaves[5]), pW1, nil, 5, size, 5, []string{"w1"}, t1),
		ok("a witness key given as a note key (0x01) verifies its cosignature/v1 line", proofOf(5, size, cosigned(w1), leaves[5]), pNoteKey, nil, 5, size, 5, []string{"w1"}, t1),
		ok("2 of 3 witnesses: w1 and w3 cosigned; the time is the older of the two", proofOf(5, size, cosigned(w1, w3), leaves[5]), p2of3, nil, 5, size, 5, []string{"w1", "w3"}, t1),
		ok("2 of 3 witnesses: all three cosigned; the time is the second newest", proofOf(5, size, cosigned(w1, w2, w3), leaves[5]), p2of3, nil, 5, size, 5, []string{"w1", "w2", "w3"}, t2),
		ok("nested groups: all of (all of w1 w2) and (any of w3)", proofOf(5, size, cosigned(w1, w2, w3), leaves[5]), pNested, nil, 5, size, 5, []string{"w1", "w2", "w3"}, t1),
		ok("a cosignature of a witness outside the policy is ignored", proofOf(5, size, cosigned(w1, stranger), leaves[5]), pW1, nil, 5, size, 5, []string{"w1"}, t1),
		ok("a quorum none policy ignores cosignatures", proofOf(5, size, cosigned(w1), leaves[5]), pNone, nil, 5, size, 5, nil, 0),

		bad("bad signature: a byte of the log's signature changed", tlogproof.StageCheckpoint, proofOf(5, size, flipSig, leaves[5]), pNone, nil),
		bad("signed by another key of the log's name", tlogproof.StageCheckpoint, proofOf(5, size, b13+"\n"+other.sign(b13), leaves[5]), pNone, nil),
		bad("the checkpoint's origin is not a log of the policy", tlogproof.StageCheckpoint, proofOf(5, size, note13, leaves[5]),
			"log "+newSigner("other.example/log", 1, 0x01).vkey+"\nquorum none\n", nil),
		bad("the quorum's witness did not cosign", tlogproof.StageCheckpoint, good5, pW1, nil),
		bad("1 of the 2 of 3 witnesses needed", tlogproof.StageCheckpoint, proofOf(5, size, cosigned(w2), leaves[5]), p2of3, nil),
		bad("nested groups: group a lacks w2", tlogproof.StageCheckpoint, proofOf(5, size, cosigned(w1, w3), leaves[5]), pNested, nil),
		bad("nested groups: group b lacks w3", tlogproof.StageCheckpoint, proofOf(5, size, cosigned(w1, w2), leaves[5]), pNested, nil),
		bad("a cosignature of a policy witness that does not verify", tlogproof.StageCheckpoint, proofOf(5, size, badCosig, leaves[5]), pW1, nil),
		bad("only a stranger cosigned", tlogproof.StageCheckpoint, proofOf(5, size, cosigned(stranger), leaves[5]), pW1, nil),
		bad("extra lines: a line after the signatures", tlogproof.StageCheckpoint, good5+"garbage\n", pNone, nil),
		bad("extra lines: an empty line after the signatures", tlogproof.StageCheckpoint, good5+"\n", pNone, nil),
		bad("truncated: the signature lines cut off", tlogproof.StageCheckpoint, good5[:len(good5)-len(log.sign(b13))], pNone, nil),
		bad("wrong index: the proof of index 5 given as index 4", tlogproof.StageInclusion, strings.Replace(good5, "\nindex 5\n", "\nindex 4\n", 1), pNone, nil),
		bad("wrong index: the index is the tree's size", tlogproof.StageInclusion, strings.Replace(good5, "\nindex 5\n", "\nindex 13\n", 1), pNone, nil),
		bad("wrong extra: the text of leaf 6 with the proof of leaf 5", tlogproof.StageInclusion, proofOf(5, size, note13, leaves[6]), pNone, nil),
		bad("wrong extra: the expected leaf 5 but extra holds leaf 6", tlogproof.StageLeaf, proofOf(5, size, note13, leaves[6]), pNone, l(5)),
		bad("the expected leaf is another leaf than the proof's", tlogproof.StageInclusion, proofOf(5, size, note13, nil), pNone, l(6)),
		bad("no extra and no expected leaf: nothing to prove", tlogproof.StageLeaf, proofOf(5, size, note13, nil), pNone, nil),
		bad("a hash changed", tlogproof.StageInclusion, strings.Replace(good5, firstHash, base64.StdEncoding.EncodeToString(make([]byte, 32)), 1), pNone, nil),
		bad("a hash line missing", tlogproof.StageInclusion, strings.Replace(good5, firstHash+"\n", "", 1), pNone, nil),
		bad("a hash line too many", tlogproof.StageInclusion, strings.Replace(good5, firstHash+"\n", firstHash+"\n"+firstHash+"\n", 1), pNone, nil),
		bad("truncated: no checkpoint", tlogproof.StageParse, strings.SplitN(good5, "\n\n", 2)[0]+"\n", pNone, nil),
		bad("truncated: cut inside the last signature line", tlogproof.StageParse, good5[:len(good5)-5], pNone, nil),
		bad("truncated: the header only", tlogproof.StageParse, tlogproof.Header+"\n", pNone, nil),
		bad("empty", tlogproof.StageParse, "", pNone, nil),
		bad("another header", tlogproof.StageParse, strings.Replace(good5, tlogproof.Header, "c2sp.org/tlog-proof@v2", 1), pNone, nil),
		bad("extra lines: an empty line before the index", tlogproof.StageParse, strings.Replace(good5, "\nindex 5\n", "\n\nindex 5\n", 1), pNone, nil),
		bad("extra lines: the index line twice", tlogproof.StageParse, strings.Replace(good5, "\nindex 5\n", "\nindex 5\nindex 5\n", 1), pNone, nil),
		bad("extra lines: two extra lines", tlogproof.StageParse, strings.Replace(good5, "\nextra ", "\nextra "+base64.StdEncoding.EncodeToString(leaves[5])+"\nextra ", 1), pNone, nil),
		bad("the extra line after the index", tlogproof.StageParse, proofOf(5, size, note13, nil)[:len(tlogproof.Header)+1]+"index 5\nextra "+base64.StdEncoding.EncodeToString(leaves[5])+"\n"+strings.SplitN(proofOf(5, size, note13, nil), "index 5\n", 2)[1], pNone, nil),
		bad("an index with a leading zero", tlogproof.StageParse, strings.Replace(good5, "\nindex 5\n", "\nindex 05\n", 1), pNone, nil),
		bad("an index with a plus sign", tlogproof.StageParse, strings.Replace(good5, "\nindex 5\n", "\nindex +5\n", 1), pNone, nil),
		bad("a negative index", tlogproof.StageParse, strings.Replace(good5, "\nindex 5\n", "\nindex -1\n", 1), pNone, nil),
		bad("an index past 2^63 - 1", tlogproof.StageParse, strings.Replace(good5, "\nindex 5\n", "\nindex 9223372036854775808\n", 1), pNone, nil),
		bad("an empty extra", tlogproof.StageParse, strings.Replace(good5, "\nextra "+base64.StdEncoding.EncodeToString(leaves[5])+"\n", "\nextra \n", 1), pNone, nil),
		bad("an extra without its padding", tlogproof.StageParse, strings.Replace(good5, "\nextra "+base64.StdEncoding.EncodeToString(leaves[5])+"\n", "\nextra "+base64.RawStdEncoding.EncodeToString(leaves[5])+"\n", 1), pNone, nil),
		bad("a hash of 31 bytes", tlogproof.StageParse, strings.Replace(good5, firstHash, base64.StdEncoding.EncodeToString(make([]byte, 31)), 1), pNone, nil),
		bad("a hash in URL-safe base64", tlogproof.StageParse, strings.Replace(good5, firstHash, "-_"+firstHash[2:], 1), pNone, nil),
		bad("CRLF line endings", tlogproof.StageParse, strings.ReplaceAll(good5, "\n", "\r\n"), pNone, nil),
		bad("a space after the index", tlogproof.StageParse, strings.Replace(good5, "\nindex 5\n", "\nindex 5 \n", 1), pNone, nil),
		bad("64 hash lines", tlogproof.StageParse, strings.Replace(good5, "\nindex 5\n", "\nindex 5\n"+strings.Repeat(firstHash+"\n", 64), 1), pNone, nil),
	}

	return vectorsFile{
		Comment:  "Known-answer vectors of C2SP tlog-proof@v1 and tlog-policy as svc reads and writes them (testdata/README.md); generated by go test ./translog/tlogproof -run TestVectors -update",
		Leaves:   stringsOf(leaves),
		Keys:     map[string]string{"log": log.vkey, "log_other": other.vkey, "w1": w1.vkey, "w1_note": w1note.vkey, "w2": w2.vkey, "w3": w3.vkey, "w4": stranger.vkey},
		Policies: makePolicyCases(t, log, other, w1, w2, w3, w1note, pNone, pW1, p2of3, pNested),
		Proofs:   proofs,
		Formats:  makeFormatCases(t, log, w1, w2, w3, w1note),
	}
}

func stringsOf(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

// flipSigByte changes the last byte of a signature line's signature.
func flipSigByte(t testing.TB, line string) string {
	i := strings.LastIndexByte(line, ' ')
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(line[i+1:]))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 1
	return line[:i+1] + base64.StdEncoding.EncodeToString(b) + "\n"
}
