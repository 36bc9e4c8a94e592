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
	"strings"
	"time"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog"
)

// errMismatch marks a lookup response that does not verify (exit status 1).
var errMismatch = fmt.Errorf("verification failed")

// cmdVerify recomputes the digest of a saved lookup response offline, trusting nothing but the
// proof package: svc verify --kind namespace|registry|record FILE (- for standard input). With
// --log-key it also checks that the version is in a checkpoint signed by that key, with the
// inclusion proof of --inclusion FILE or fetched from the service at --url.
func cmdVerify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kindName := fs.String("kind", "", "namespace, registry or record (required)")
	logKey := fs.String("log-key", "", "transparency-log verifier key: also check the version is in a checkpoint it signed")
	inclusionFile := fs.String("inclusion", "", "with --log-key: the saved inclusion proof (GET /svc/log/inclusion/{version})")
	baseURL := fs.String("url", "", "with --log-key: fetch the inclusion proof from the service at this base URL")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if *logKey == "" && (*inclusionFile != "" || *baseURL != "") {
		return fmt.Errorf("%w: --inclusion and --url need --log-key", errUsage)
	}
	if *logKey != "" && (*inclusionFile == "") == (*baseURL == "") {
		return fmt.Errorf("%w: --log-key needs exactly one of --inclusion FILE and --url URL", errUsage)
	}
	kinds := map[string]proof.Kind{"namespace": proof.KindNamespace, "registry": proof.KindRegistry, "record": proof.KindRecord}
	kind, ok := kinds[*kindName]
	if !ok {
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
	data := lookupData(v, *kindName)
	if data == nil {
		fmt.Fprintln(stdout, "FAILED: the file holds no lookup data (want {\"message\":…, \"data\":{…}})")
		return errMismatch
	}
	if err := proof.CheckLookup(kind, data, time.Now().UTC().Year()); err != nil {
		fmt.Fprintln(stdout, "FAILED:", err)
		return errMismatch
	}
	id, _ := data[proof.IDField(kind)].(string)
	version, _ := data["version"].(string)
	p, _ := data["proof"].(map[string]any)
	logged := ""
	if *logKey != "" {
		c, err := verifyLogged(ctx, *kindName, data, *logKey, *inclusionFile, *baseURL)
		if err != nil {
			fmt.Fprintln(stdout, "FAILED:", oneLine(err))
			return errMismatch
		}
		logged = fmt.Sprintf(", in log %s at tree size %d", c.Origin, c.Size)
	}
	fmt.Fprintf(stdout, "OK: %s %s version %s digest %v%s\n", kind, id, version, p["digest"], logged)
	return nil
}

// verifyLogged checks that the lookup's version is in a checkpoint signed by logKey, with the
// inclusion proof read from file or fetched from the service at baseURL.
func verifyLogged(ctx context.Context, kind string, data map[string]any, logKey, file, baseURL string) (translog.Checkpoint, error) {
	leaf, err := translog.LeafFromLookup(kind, data)
	if err != nil {
		return translog.Checkpoint{}, err
	}
	var raw []byte
	if file != "" {
		raw, err = os.ReadFile(file)
	} else {
		raw, err = httpGet(ctx, baseURL, "svc/log/inclusion/"+url.PathEscape(leaf.Version))
	}
	if err != nil {
		return translog.Checkpoint{}, fmt.Errorf("inclusion proof: %w", err)
	}
	var p translog.InclusionProof
	if err := json.Unmarshal(raw, &p); err != nil {
		return translog.Checkpoint{}, fmt.Errorf("inclusion proof: %w", err)
	}
	return translog.VerifyInclusion(p, logKey, leaf)
}

// httpGet fetches path under the service's base URL; anything but 200 is an error naming the
// status and the service's message.
func httpGet(ctx context.Context, baseURL, path string) ([]byte, error) {
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
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
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
	if errors.Is(err, translog.ErrVerify) {
		msg = strings.ReplaceAll(msg, translog.ErrVerify.Error()+": ", "")
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
