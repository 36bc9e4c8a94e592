package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	genclient "github.com/svc-directory/svc/gen/client"
	"github.com/svc-directory/svc/proof"
)

// VerifyLookup checks a lookup response as the service returned it (the body of a lookup of a
// namespace, registry or record, kind "namespace", "registry" or "record") offline: it
// recomputes the digest from the entry's digest fields (RFC 8785 canonical JSON, BLAKE2b-256)
// and compares it, and checks the proof's type and identifiers. nil means it verifies. It needs
// no API key and no service.
func VerifyLookup(kind string, body []byte) error {
	k, err := lookupKind(kind)
	if err != nil {
		return err
	}
	v, err := proof.ParseJSON(body, 256)
	if err != nil {
		return err
	}
	envelope, _ := v.(map[string]any)
	data, ok := envelope["data"].(map[string]any)
	if !ok {
		return fmt.Errorf("not a lookup response: no data object")
	}
	return proof.CheckLookup(k, data, time.Now().UTC().Year())
}

// LookupResponse is what VerifyLookupResponse takes: the answer of a generated lookup method
// (LookupNamespaceWithResponse, LookupRegistryWithResponse, LookupRecordWithResponse) or its
// JSON200.
type LookupResponse interface {
	*genclient.LookupNamespaceResult | *genclient.LookupRegistryResult | *genclient.LookupRecordResult |
		*genclient.NamespaceLookupResponse | *genclient.RegistryLookupResponse | *genclient.RecordLookupResponse
}

// VerifyLookupResponse is VerifyLookup for the generated client's typed answers:
//
//	res, err := c.LookupRecordWithResponse(ctx, ns, "employees", "alice", nil)
//	err = client.VerifyLookupResponse("record", res)         // the answer: its body as served
//	err = client.VerifyLookupResponse("record", res.JSON200) // or the decoded lookup
//
// An answer is checked on its body, exactly as served, and must be a 200; a decoded lookup
// (JSON200) is encoded again first, which keeps every field the digest covers. kind must be the
// kind of the lookup.
func VerifyLookupResponse[R LookupResponse](kind string, res R) error {
	if _, err := lookupKind(kind); err != nil {
		return err
	}
	switch r := any(res).(type) {
	case *genclient.LookupNamespaceResult:
		if r == nil {
			return verifyAnswer(kind, "namespace", nil, nil)
		}
		return verifyAnswer(kind, "namespace", r.Body, r.HTTPResponse)
	case *genclient.LookupRegistryResult:
		if r == nil {
			return verifyAnswer(kind, "registry", nil, nil)
		}
		return verifyAnswer(kind, "registry", r.Body, r.HTTPResponse)
	case *genclient.LookupRecordResult:
		if r == nil {
			return verifyAnswer(kind, "record", nil, nil)
		}
		return verifyAnswer(kind, "record", r.Body, r.HTTPResponse)
	case *genclient.NamespaceLookupResponse:
		return verifyDecoded(kind, "namespace", r, r == nil)
	case *genclient.RegistryLookupResponse:
		return verifyDecoded(kind, "registry", r, r == nil)
	case *genclient.RecordLookupResponse:
		return verifyDecoded(kind, "record", r, r == nil)
	}
	return fmt.Errorf("%T is not a lookup response", res) // unreachable: R allows only the cases above
}

// verifyAnswer checks the body of a generated lookup answer, which must be a 200 of the kind.
func verifyAnswer(kind, of string, body []byte, res *http.Response) error {
	switch {
	case kind != of:
		return fmt.Errorf("kind %q: the response is of a %s lookup", kind, of)
	case res == nil:
		return fmt.Errorf("no %s lookup answer to verify", kind)
	case res.StatusCode != http.StatusOK:
		return fmt.Errorf("the %s lookup answered %d, not 200: nothing to verify", kind, res.StatusCode)
	}
	return VerifyLookup(kind, body)
}

// verifyDecoded checks a decoded lookup (a JSON200), encoded again.
func verifyDecoded(kind, of string, lookup any, isNil bool) error {
	switch {
	case kind != of:
		return fmt.Errorf("kind %q: the response is of a %s lookup", kind, of)
	case isNil:
		return fmt.Errorf("no %s lookup to verify (JSON200 is nil: the lookup did not answer 200)", kind)
	}
	b, err := json.Marshal(lookup)
	if err != nil {
		return fmt.Errorf("encoding the %s lookup: %w", kind, err)
	}
	return VerifyLookup(kind, b)
}

func lookupKind(kind string) (proof.Kind, error) {
	kinds := map[string]proof.Kind{"namespace": proof.KindNamespace, "registry": proof.KindRegistry, "record": proof.KindRecord}
	k, ok := kinds[kind]
	if !ok {
		return 0, fmt.Errorf("kind %q: want namespace, registry or record", kind)
	}
	return k, nil
}
