// Package witnesstest is a witness for tests: an HTTP server that follows the C2SP tlog-witness
// protocol (add-checkpoint) for the logs it is told about, keeps the latest checkpoint of each in
// memory, and cosigns with a C2SP tlog-cosignature (cosignature/v1, Ed25519). It can be made to
// be down, to refuse, or to answer with a bad cosignature. New serves one for a Go test; Make
// makes one to serve elsewhere (the command witnesstest/witness, the local cluster's witness).
package witnesstest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Mode is how the witness answers.
type Mode int

const (
	Honest  Mode = iota // follows the protocol
	Down                // 503 to everything
	Refuse              // 403 to everything
	Forge               // 200 with a cosignature that does not verify
	TwoKeys             // 200 with the cosignature of another key of the witness first, then its own
)

// Witness is a running test witness.
type Witness struct {
	// Name is its key name; VerifierKey its cosignature/v1 verifier key (type 0x04); URL the base
	// its add-checkpoint endpoint is under.
	Name, VerifierKey, URL string

	signer note.Signer
	second note.Signer // another key of the witness (TwoKeys)
	mu     sync.Mutex
	mode   Mode
	logs   map[string]note.Verifier // by origin
	latest map[string]tlog.Tree     // by origin
	calls  int
}

// New starts a witness named name that witnesses the logs of the given verifier keys; it stops
// when the test ends.
func New(t testing.TB, name string, logVerifierKeys ...string) *Witness {
	t.Helper()
	w, err := Make(name, logVerifierKeys...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	w.URL = srv.URL
	return w
}

// Make returns a witness named name, with new keys, that witnesses the logs of the given
// verifier keys; it answers add-checkpoint as an http.Handler (its URL is left to the caller).
func Make(name string, logVerifierKeys ...string) (*Witness, error) {
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		return nil, err
	}
	signer, err := fnote.NewSignerForCosignatureV1(skey)
	if err != nil {
		return nil, err
	}
	cosigKey, err := fnote.VKeyToCosignatureV1(vkey)
	if err != nil {
		return nil, err
	}
	skey2, _, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		return nil, err
	}
	second, err := fnote.NewSignerForCosignatureV1(skey2)
	if err != nil {
		return nil, err
	}
	w := &Witness{Name: name, VerifierKey: cosigKey, signer: signer, second: second, logs: map[string]note.Verifier{}, latest: map[string]tlog.Tree{}}
	for _, k := range logVerifierKeys {
		v, err := note.NewVerifier(k)
		if err != nil {
			return nil, fmt.Errorf("log verifier key %q: %w", k, err)
		}
		w.logs[v.Name()] = v
	}
	return w, nil
}

// ServeHTTP answers POST /add-checkpoint.
func (w *Witness) ServeHTTP(rw http.ResponseWriter, r *http.Request) { w.serve(rw, r) }

// SetMode changes how the witness answers from now on.
func (w *Witness) SetMode(m Mode) {
	w.mu.Lock()
	w.mode = m
	w.mu.Unlock()
}

// Latest is the size of the latest checkpoint of origin the witness cosigned (0: none).
func (w *Witness) Latest(origin string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.latest[origin].N
}

// Calls is how many add-checkpoint requests the witness received.
func (w *Witness) Calls() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls
}

func (w *Witness) serve(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/add-checkpoint" {
		http.Error(rw, "not found", http.StatusNotFound)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	switch w.mode {
	case Down:
		http.Error(rw, "down", http.StatusServiceUnavailable)
		return
	case Refuse:
		http.Error(rw, "refused", http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	old, proof, signed, err := parseRequest(body)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	// The checkpoint's origin is its first line; the witness knows the log by it.
	origin, _, _ := strings.Cut(string(signed), "\n")
	v, ok := w.logs[origin]
	if !ok {
		http.Error(rw, "unknown log", http.StatusNotFound)
		return
	}
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		http.Error(rw, "checkpoint signature: "+err.Error(), http.StatusForbidden)
		return
	}
	cur, err := parseCheckpoint(n.Text)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	if old > cur.N {
		http.Error(rw, "old size is larger than the checkpoint's", http.StatusBadRequest)
		return
	}
	prev := w.latest[origin]
	if old != prev.N {
		rw.Header().Set("Content-Type", "text/x.tlog.size")
		rw.WriteHeader(http.StatusConflict)
		fmt.Fprintf(rw, "%d\n", prev.N)
		return
	}
	switch {
	case old == cur.N:
		if len(proof) != 0 || (old > 0 && cur.Hash != prev.Hash) {
			http.Error(rw, "same size, another tree", http.StatusConflict)
			return
		}
	case old > 0:
		if err := tlog.CheckTree(proof, cur.N, cur.Hash, old, prev.Hash); err != nil {
			http.Error(rw, "consistency proof: "+err.Error(), http.StatusUnprocessableEntity)
			return
		}
	}
	line, err := cosign(n.Text, w.signer)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	switch w.mode {
	case Forge:
		line = forge(line)
	case TwoKeys:
		other, err := cosign(n.Text, w.second)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		line = other + line
	}
	w.latest[origin] = cur
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(rw, line)
}

// cosign is the signature line of signer over the checkpoint text.
func cosign(text string, signer note.Signer) (string, error) {
	cosigned, err := note.Sign(&note.Note{Text: text}, signer)
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(cosigned), "\n"), "\n")
	return lines[len(lines)-1] + "\n", nil
}

// parseRequest reads an add-checkpoint body: "old N", proof lines, a blank line, the checkpoint.
func parseRequest(body []byte) (old int64, proof tlog.TreeProof, signed []byte, err error) {
	head, rest, ok := bytes.Cut(body, []byte("\n\n"))
	if !ok {
		return 0, nil, nil, fmt.Errorf("no blank line before the checkpoint")
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	if !sc.Scan() {
		return 0, nil, nil, fmt.Errorf("no old line")
	}
	s, ok := strings.CutPrefix(sc.Text(), "old ")
	if !ok {
		return 0, nil, nil, fmt.Errorf("want old N first")
	}
	if old, err = strconv.ParseInt(s, 10, 64); err != nil || old < 0 {
		return 0, nil, nil, fmt.Errorf("bad old size %q", s)
	}
	for sc.Scan() {
		h, err := base64.StdEncoding.DecodeString(sc.Text())
		if err != nil || len(h) != tlog.HashSize {
			return 0, nil, nil, fmt.Errorf("bad proof line %q", sc.Text())
		}
		proof = append(proof, tlog.Hash(h))
	}
	return old, proof, rest, nil
}

func parseCheckpoint(text string) (tlog.Tree, error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 {
		return tlog.Tree{}, fmt.Errorf("malformed checkpoint")
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 0 {
		return tlog.Tree{}, fmt.Errorf("malformed checkpoint size")
	}
	h, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(h) != tlog.HashSize {
		return tlog.Tree{}, fmt.Errorf("malformed checkpoint root")
	}
	return tlog.Tree{N: n, Hash: tlog.Hash(h)}, nil
}

// forge flips a bit of the signature in a signature line.
func forge(line string) string {
	i := strings.LastIndexByte(line, ' ')
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(line[i+1:]))
	if err != nil || len(sig) == 0 {
		return line
	}
	sig[len(sig)-1] ^= 1
	return line[:i+1] + base64.StdEncoding.EncodeToString(sig) + "\n"
}
