package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
)

// errMismatch marks a lookup response that does not verify (exit status 1).
var errMismatch = fmt.Errorf("verification failed")

// cmdVerify recomputes the digest of a saved lookup response offline, trusting nothing but the
// proof package: svc verify --kind namespace|registry|record FILE (- for standard input). With
// --log-key it also checks that the version is in a checkpoint signed by that key, with the
// inclusion proof of --inclusion FILE or fetched from the service at --url; with --witness-key
// the checkpoint must also be cosigned by --witness-quorum of those witnesses (the cosigned
// checkpoint of --checkpoint FILE, or fetched with the proof in its tree from --url). With
// --current (verifycurrent.go) it checks that the version is the entry's latest. --policy FILE
// (a C2SP tlog-policy) stands for --log-key, --witness-key and --witness-quorum, and --proof
// FILE (a C2SP tlog-proof, GET /svc/log/proof/{version}) for --inclusion; --proof without a
// lookup FILE checks the proof alone (verifyproof.go).
func cmdVerify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kindName := fs.String("kind", "", "namespace, registry or record (required)")
	logKey := fs.String("log-key", "", "transparency-log verifier key: also check the version is in a checkpoint it signed")
	inclusionFile := fs.String("inclusion", "", "with --log-key: the saved inclusion proof (GET /svc/log/inclusion/{version})")
	baseURL := fs.String("url", "", "with --log-key: fetch the inclusion proof from the service at this base URL")
	var w witnessCheck
	fs.Func("witness-key", "with --log-key: a witness's cosignature verifier key (repeat for more); the checkpoint must be cosigned", func(k string) error {
		w.keys = append(w.keys, k)
		return nil
	})
	fs.IntVar(&w.quorum, "witness-quorum", 0, "with --witness-key: how many of the witnesses must have cosigned (default: all given)")
	current := fs.Bool("current", false, "with --log-key: check that the version is the entry's latest logged version (a state answer from --url, or --state FILE)")
	stateFile := fs.String("state", "", "with --current: the saved state answer (GET /svc/log/state/{id})")
	maxAge := fs.Duration("max-age", 0, "with --current: the largest age of the answer's checkpoint accepted (by the witnesses' cosignature time, or the log's when no witness key is given)")
	fs.StringVar(&w.checkpointFile, "checkpoint", "", "with --witness-key and --inclusion: the saved cosigned checkpoint (GET /svc/log/cosigned-checkpoint) the proof is for")
	policyFile := fs.String("policy", "", "a C2SP tlog-policy file (GET /svc/log/policy, or the operator's): the log's key, its witnesses and their quorum, in place of --log-key, --witness-key and --witness-quorum")
	proofFile := fs.String("proof", "", "a C2SP tlog-proof file (GET /svc/log/proof/{version}; - for stdin), in place of --inclusion; without a lookup FILE, the proof alone is checked")
	if err := parseCommandFlags(fs, args); err != nil {
		return err
	}
	if want := 1; fs.NArg() != want && !(*proofFile != "" && fs.NArg() == 0) {
		return fmt.Errorf("%w: verify takes %d argument(s), got %q", errUsage, want, fs.Args())
	}
	if *policyFile != "" && (*logKey != "" || len(w.keys) > 0 || w.quorum != 0) {
		return fmt.Errorf("%w: --policy stands for --log-key, --witness-key and --witness-quorum: give one or the other", errUsage)
	}
	tr := trust{logKey: *logKey}
	if *policyFile != "" {
		p, err := readPolicy(*policyFile)
		if err != nil {
			return err
		}
		tr.policy = p
		if w.checkpointFile != "" && !tr.witnessed() {
			return fmt.Errorf("%w: --checkpoint goes with a policy that requires witnesses", errUsage)
		}
	}
	if w.quorum == 0 {
		w.quorum = len(w.keys)
	}
	switch {
	case *proofFile != "" && (*inclusionFile != "" || *baseURL != "" || w.checkpointFile != "" || *current):
		return fmt.Errorf("%w: --proof holds the inclusion proof and its checkpoint: not with --inclusion, --url, --checkpoint or --current", errUsage)
	case *proofFile == "-" && fs.Arg(0) == "-":
		return fmt.Errorf("%w: --proof - and FILE - cannot both be standard input", errUsage)
	case *proofFile != "" && !tr.set():
		return fmt.Errorf("%w: --proof needs --log-key or --policy", errUsage)
	case len(w.keys) > 0 && *logKey == "":
		return fmt.Errorf("%w: --witness-key needs --log-key", errUsage)
	case len(w.keys) == 0 && tr.policy == nil && (w.checkpointFile != "" || w.quorum != 0):
		return fmt.Errorf("%w: --checkpoint and --witness-quorum need --witness-key", errUsage)
	case w.quorum < 1 && len(w.keys) > 0, w.quorum > len(w.keys):
		return fmt.Errorf("%w: --witness-quorum must be between 1 and the %d witness keys given", errUsage, len(w.keys))
	case w.checkpointFile != "" && *baseURL != "":
		return fmt.Errorf("%w: --checkpoint goes with --inclusion, not --url (which fetches the cosigned checkpoint)", errUsage)
	}
	tr.w = w
	if *proofFile != "" && fs.NArg() == 0 {
		return cmdVerifyProofAlone(*proofFile, stdin, stdout, tr)
	}
	if *current {
		switch {
		case !tr.set():
			return fmt.Errorf("%w: --current needs --log-key or --policy", errUsage)
		case *stateFile != "" && *baseURL != "":
			return fmt.Errorf("%w: --current takes the state answer from --state FILE, --url URL or the lookup's own state_proof (prove=current), not two of them", errUsage)
		case *inclusionFile != "" || w.checkpointFile != "":
			return fmt.Errorf("%w: --current takes its proofs from the state answer, not --inclusion or --checkpoint", errUsage)
		case *maxAge < 0:
			return fmt.Errorf("%w: --max-age must not be negative", errUsage)
		}
	} else if *stateFile != "" || *maxAge != 0 {
		return fmt.Errorf("%w: --state and --max-age go with --current", errUsage)
	}
	if !tr.set() && (*inclusionFile != "" || *baseURL != "") {
		return fmt.Errorf("%w: --inclusion and --url need --log-key or --policy", errUsage)
	}
	if tr.set() && !*current && *proofFile == "" && (*inclusionFile == "") == (*baseURL == "") {
		return fmt.Errorf("%w: --log-key and --policy need exactly one of --inclusion FILE, --proof FILE and --url URL", errUsage)
	}
	kinds := map[string]proof.Kind{"namespace": proof.KindNamespace, "registry": proof.KindRegistry, "record": proof.KindRecord}
	kind, ok := kinds[*kindName]
	if !ok && !((*current || *proofFile != "") && *kindName == "") {
		return fmt.Errorf("%w: --kind must be namespace, registry or record", errUsage)
	}
	var raw []byte
	var err error
	if name := fs.Arg(0); name == "-" {
		raw, err = io.ReadAll(io.LimitReader(stdin, 64<<20))
	} else {
		raw, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	v, err := proof.ParseJSON(raw, 256)
	if err != nil {
		fmt.Fprintln(stdout, "FAILED:", err)
		return errMismatch
	}
	if !ok { // --current or --proof without --kind: the lookup's ids say it
		for _, k := range []string{"record", "registry", "namespace"} {
			if d := lookupData(v, k); d != nil {
				*kindName = kindOfLookup(d)
				break
			}
		}
		kind = kinds[*kindName]
	}
	data := lookupData(v, *kindName)
	if data == nil {
		fmt.Fprintln(stdout, "FAILED: the file holds no lookup data (want {\"message\":…, \"data\":{…}})")
		return errMismatch
	}
	if err := proof.CheckLookup(kind, data, time.Now().UTC().Year()); err != nil {
		if *current {
			fmt.Fprintln(stdout, "bad_proof: the lookup's digest does not verify:", oneLine(err))
		} else {
			fmt.Fprintln(stdout, "FAILED:", err)
		}
		return errMismatch
	}
	id, _ := data[proof.IDField(kind)].(string)
	version, _ := data["version"].(string)
	p, _ := data["proof"].(map[string]any)
	if *current {
		return verifyCurrent(ctx, stdout, kind, *kindName, v, data, currentCheck{tr: tr, baseURL: *baseURL, stateFile: *stateFile, maxAge: *maxAge})
	}
	logged := ""
	if tr.set() {
		var c leaf.Checkpoint
		if *proofFile != "" {
			c, err = verifyLoggedProof(*kindName, data, *proofFile, stdin, tr)
		} else {
			c, err = verifyLogged(ctx, *kindName, data, tr, *inclusionFile, *baseURL)
		}
		if errors.Is(err, errUsage) {
			return err
		}
		if err != nil {
			fmt.Fprintln(stdout, "FAILED:", oneLine(err))
			return errMismatch
		}
		logged = fmt.Sprintf(", in log %s at tree size %d%s", c.Origin, c.Size, tr.describe())
	}
	fmt.Fprintf(stdout, "OK: %s %s version %s digest %v%s\n", kind, id, version, p["digest"], logged)
	return nil
}

// witnessCheck is what svc verify requires of the witnesses: cosignatures of quorum of keys,
// on the checkpoint of checkpointFile when one is given.
type witnessCheck struct {
	keys           []string
	quorum         int
	checkpointFile string
}

// verifyLogged checks that the lookup's version is in a checkpoint signed by logKey, with the
// inclusion proof read from file or fetched from the service at baseURL; with witness keys the
// checkpoint must be cosigned by their quorum (the cosigned checkpoint, and the proof in its
// tree).
func verifyLogged(ctx context.Context, kind string, data map[string]any, tr trust, file, baseURL string) (leaf.Checkpoint, error) {
	want, err := leaf.FromLookup(kind, data)
	if err != nil {
		return leaf.Checkpoint{}, err
	}
	w := tr.w
	var cosigned []byte
	if tr.witnessed() {
		switch {
		case w.checkpointFile != "":
			cosigned, err = os.ReadFile(w.checkpointFile)
		case baseURL != "":
			cosigned, err = httpGet(ctx, baseURL, "svc/log/cosigned-checkpoint")
		}
		if err != nil {
			return leaf.Checkpoint{}, fmt.Errorf("cosigned checkpoint: %w", err)
		}
	}
	path := "svc/log/inclusion/" + url.PathEscape(want.Version)
	if cosigned != nil {
		c, _, _, err := tr.open(cosigned)
		if err != nil {
			return leaf.Checkpoint{}, err
		}
		path += "?size=" + strconv.FormatInt(c.Size, 10)
	}
	var raw []byte
	if file != "" {
		raw, err = os.ReadFile(file)
	} else {
		raw, err = httpGet(ctx, baseURL, path)
	}
	if err != nil {
		return leaf.Checkpoint{}, fmt.Errorf("inclusion proof: %w", err)
	}
	var p leaf.InclusionProof
	if err := json.Unmarshal(raw, &p); err != nil {
		return leaf.Checkpoint{}, fmt.Errorf("inclusion proof: %w", err)
	}
	if tr.witnessed() {
		if cosigned == nil { // the inclusion file's own checkpoint must be the cosigned one
			cosigned = []byte(p.Checkpoint)
			if _, _, _, err := tr.open(cosigned); err != nil {
				return leaf.Checkpoint{}, err
			}
		}
		p.Checkpoint = string(cosigned)
	}
	// The log's key: the flag's, or the policy's log that signed the checkpoint.
	_, _, logKey, err := tr.open([]byte(p.Checkpoint))
	if err != nil {
		return leaf.Checkpoint{}, err
	}
	return leaf.VerifyInclusion(p, logKey, want)
}

// verifyLoggedProof checks that the lookup's version is what the tlog-proof file proves.
func verifyLoggedProof(kind string, data map[string]any, file string, stdin io.Reader, tr trust) (leaf.Checkpoint, error) {
	want, err := leaf.FromLookup(kind, data)
	if err != nil {
		return leaf.Checkpoint{}, err
	}
	text, err := want.Canonical()
	if err != nil {
		return leaf.Checkpoint{}, err
	}
	v, err := verifyProofFile(file, stdin, tr, text)
	return v.Checkpoint, err
}

// httpGet fetches path under the service's base URL; anything but 200 is an error naming the
// status and the service's message.
func httpGet(ctx context.Context, baseURL, path string) ([]byte, error) {
	return httpGetAnswer(ctx, baseURL, path, 64<<20, http.StatusOK)
}

// httpGetAnswer fetches path under the service's base URL, reading at most limit bytes; a
// status not among ok is an error naming the status and the service's message.
func httpGetAnswer(ctx context.Context, baseURL, path string, limit int64, ok ...int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	u := strings.TrimRight(baseURL, "/") + "/" + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if !slices.Contains(ok, resp.StatusCode) {
		var m struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(body, &m)
		return nil, fmt.Errorf("GET %s: %s %s", u, resp.Status, m.Message)
	}
	return body, nil
}

// oneLine keeps an error message on one line.
func oneLine(err error) string {
	msg := err.Error()
	if errors.Is(err, leaf.ErrVerify) {
		msg = strings.ReplaceAll(msg, leaf.ErrVerify.Error()+": ", "")
	}
	return strings.Join(strings.Fields(msg), " ")
}

// lookupData finds the data of a saved lookup response: {message, data}, the verify request
// form {<kind>_lookup_response: {message, data}}, or the data itself.
func lookupData(v any, kind string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if inner, ok := m[kind+"_lookup_response"].(map[string]any); ok {
		m = inner
	}
	if d, ok := m["data"].(map[string]any); ok {
		return d
	}
	if _, ok := m["proof"]; ok {
		return m
	}
	return nil
}
