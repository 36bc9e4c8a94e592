package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/svc-directory/svc/trqp/schemas"
)

// The Trust Registry Query Protocol v2.0 (docs/trqp.md): TRQP asks the service's
// POST /authorization or POST /recognition, checks the answer against TRQP's own JSON Schemas
// (trqp/schemas), and checks its evidence offline (trqpevidence.go): the version that decided
// recomputes to its digest, its leaf is in the log under the log's key, and the state proof
// shows that what decided is current (or that the name asked is not listed).
//
//	t := client.TRQP{BaseURL: "https://directory.example.com", LogKey: logKey}
//	a, err := t.Authorization(ctx, client.TRQPQuery{EntityID: "alice", AuthorityID: "did:web:board.example",
//		Action: "issue", Resource: "engineer-license"})
//	// err == nil: a.Yes is the answer, a.Evidence what proves it

// TRQPQuery is a TRQP query (its request body).
type TRQPQuery struct {
	EntityID    string `json:"entity_id"`
	AuthorityID string `json:"authority_id"`
	Action      string `json:"action"`
	Resource    string `json:"resource"`
	// Context holds string members only: "time" (RFC 3339 with a Z offset; now when absent),
	// "locator" and any other, which the answer echoes.
	Context map[string]string `json:"context,omitempty"`
}

// TRQPAnswer is an answer whose schema and evidence were checked.
type TRQPAnswer struct {
	Yes           bool // authorized (POST /authorization) or recognized (POST /recognition)
	Message       string
	TimeEvaluated string
	TimeRequested string // "" when the query had no context.time
	// Context is the answer's context: the query's members and the evidence's (svc_*).
	Context map[string]string
	// Body is the answer as served.
	Body []byte
	// Evidence is what the evidence showed; nil for an answer without evidence (a query about
	// an instant before the registry existed).
	Evidence *TRQPEvidence
}

// TRQPProblem is a TRQP error answer (RFC 7807 Problem Details), such as a 404 for an
// authority, action or resource the service does not know.
type TRQPProblem struct {
	Status                    int
	Type, Title, Detail, Code string
}

func (p *TRQPProblem) Error() string {
	return fmt.Sprintf("TRQP %d %s: %s", p.Status, p.Title, p.Detail)
}

// ErrNotYetLogged is the error of an answer whose version is not in the transparency log yet
// (its answer has no svc_log_index): ask again after the log's next checkpoint, a second or two.
var ErrNotYetLogged = errors.New("the version that decided is not in the transparency log yet: ask again after the log's next checkpoint")

// TRQP asks a service TRQP queries and checks the answers.
type TRQP struct {
	// BaseURL is the service's root, such as "https://directory.example.com".
	BaseURL string
	// HTTP is the client the requests go through (nil: http.DefaultClient).
	HTTP *http.Client
	// LogKey is the transparency log's verifier key (a note verifier key), obtained out of band:
	// the evidence is checked against it, never against a key the service serves.
	LogKey string
	// CheckState checks the state answer of the evidence (nil: CheckStateAnswer(LogKey, MaxAge)).
	CheckState StateCheck
	// MaxAge bounds the age of the state answer's checkpoint for the default CheckState (0: any).
	MaxAge time.Duration
}

// Authorization asks POST /authorization and checks the answer and its evidence.
func (t *TRQP) Authorization(ctx context.Context, q TRQPQuery) (*TRQPAnswer, error) {
	return t.ask(ctx, "authorization", q)
}

// Recognition asks POST /recognition and checks the answer and its evidence.
func (t *TRQP) Recognition(ctx context.Context, q TRQPQuery) (*TRQPAnswer, error) {
	return t.ask(ctx, "recognition", q)
}

func (t *TRQP) ask(ctx context.Context, kind string, q TRQPQuery) (*TRQPAnswer, error) {
	body, err := json.Marshal(q)
	if err != nil {
		return nil, err
	}
	if err := CheckTRQPDocument(kind, "request", body); err != nil {
		return nil, fmt.Errorf("the query: %w", err)
	}
	status, raw, ctype, err := t.do(ctx, http.MethodPost, "/"+kind, body)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, problemOf(status, ctype, raw)
	}
	a, err := ParseTRQPAnswer(kind, q, raw)
	if err != nil {
		return nil, err
	}
	if a.Evidence, err = t.checkEvidence(ctx, q, a); err != nil {
		return a, err
	}
	return a, nil
}

// ParseTRQPAnswer checks a 200 answer of kind (authorization, recognition) against TRQP's
// response schema and against the query it answers (the same entity, authority, action and
// resource), and reads it. Its evidence is not checked.
func ParseTRQPAnswer(kind string, q TRQPQuery, raw []byte) (*TRQPAnswer, error) {
	if err := CheckTRQPDocument(kind, "response", raw); err != nil {
		return nil, err
	}
	var doc struct {
		EntityID      string            `json:"entity_id"`
		AuthorityID   string            `json:"authority_id"`
		Action        string            `json:"action"`
		Resource      string            `json:"resource"`
		Authorized    *bool             `json:"authorized"`
		Recognized    *bool             `json:"recognized"`
		Message       string            `json:"message"`
		TimeEvaluated string            `json:"time_evaluated"`
		TimeRequested string            `json:"time_requested"`
		Context       map[string]string `json:"context"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("the %s answer: %w", kind, err)
	}
	if doc.EntityID != q.EntityID || doc.AuthorityID != q.AuthorityID || doc.Action != q.Action || doc.Resource != q.Resource {
		return nil, fmt.Errorf("the %s answer is about (%q, %q, %q, %q), not the query's (%q, %q, %q, %q)", kind,
			doc.EntityID, doc.AuthorityID, doc.Action, doc.Resource, q.EntityID, q.AuthorityID, q.Action, q.Resource)
	}
	yes := doc.Authorized
	if kind == "recognition" {
		yes = doc.Recognized
	}
	if yes == nil { // the schema requires it
		return nil, fmt.Errorf("the %s answer has no authorized or recognized member", kind)
	}
	return &TRQPAnswer{Yes: *yes, Message: doc.Message, TimeEvaluated: doc.TimeEvaluated, TimeRequested: doc.TimeRequested,
		Context: doc.Context, Body: raw}, nil
}

var (
	trqpSchemaOnce sync.Once
	trqpSchemas    map[string]*jsonschema.Schema
	trqpSchemaErr  error
)

// CheckTRQPDocument checks a TRQP document (kind authorization or recognition, side request or
// response) against TRQP v2.0's JSON Schema (trqp/schemas), formats asserted; nil means valid.
func CheckTRQPDocument(kind, side string, doc []byte) error {
	trqpSchemaOnce.Do(func() {
		trqpSchemas = map[string]*jsonschema.Schema{}
		for _, k := range schemas.Kinds {
			for _, s := range schemas.Sides {
				if trqpSchemas[k+"/"+s], trqpSchemaErr = schemas.Compile(k, s); trqpSchemaErr != nil {
					return
				}
			}
		}
	})
	if trqpSchemaErr != nil {
		return trqpSchemaErr
	}
	sch, ok := trqpSchemas[kind+"/"+side]
	if !ok {
		return fmt.Errorf("no TRQP schema of a %s %s (kinds: authorization, recognition; sides: request, response)", kind, side)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("the %s %s is not JSON: %w", kind, side, err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("the %s %s does not validate against TRQP's schema: %w", kind, side, err)
	}
	return nil
}

// problemOf reads an error answer as a TRQPProblem.
func problemOf(status int, ctype string, raw []byte) error {
	p := &TRQPProblem{Status: status, Title: http.StatusText(status), Detail: strings.TrimSpace(string(raw))}
	var doc struct{ Type, Title, Detail, Code string }
	if strings.HasPrefix(ctype, "application/problem+json") && json.Unmarshal(raw, &doc) == nil {
		p.Type, p.Title, p.Detail, p.Code = doc.Type, doc.Title, doc.Detail, doc.Code
	}
	return p
}

// maxBody bounds what is read of an answer (a state answer is a few KiB, a lookup at most the
// service's limits).
const maxBody = 16 << 20

// do sends a request to a path of the service (a path the answer gave: relative to the root).
func (t *TRQP) do(ctx context.Context, method, path string, body []byte) (int, []byte, string, error) {
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		return 0, nil, "", fmt.Errorf("%q is not a path of the service", path)
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(t.BaseURL, "/")+path, r)
	if err != nil {
		return 0, nil, "", err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	hc := t.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	if err != nil {
		return 0, nil, "", err
	}
	if len(raw) > maxBody {
		return 0, nil, "", fmt.Errorf("%s %s: the answer is over %d bytes", method, path, maxBody)
	}
	return res.StatusCode, raw, res.Header.Get("Content-Type"), nil
}
