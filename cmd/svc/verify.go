package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/svc-directory/svc/proof"
)

// errMismatch marks a lookup response that does not verify (exit status 1).
var errMismatch = fmt.Errorf("verification failed")

// cmdVerify recomputes the digest of a saved lookup response offline, trusting nothing but the
// proof package: svc verify --kind namespace|registry|record FILE (- for standard input).
func cmdVerify(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kindName := fs.String("kind", "", "namespace, registry or record (required)")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
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
	fmt.Fprintf(stdout, "OK: %s %s version %s digest %v\n", kind, id, version, p["digest"])
	return nil
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
