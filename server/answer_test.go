package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/ownership"
)

// answer is the one mapping of an error to what the client gets: an apiError keeps its status,
// code and message (also wrapped); the store's and the workflow's refusals get the status of
// their kind and the message they carry; other errors are 500 with the fixed message.
func TestAnswerMapsExpectedOutcomes(t *testing.T) {
	r := httptest.NewRequest("POST", "/svc/x", nil)
	for _, tc := range []struct {
		err    error
		status int
		code   gen.ErrorCode
		msg    string
	}{
		{problem(http.StatusConflict, "Conflict: the record is not a draft"), 409, gen.ErrorCodeConflict, "Conflict: the record is not a draft"},
		{fmt.Errorf("wrapped: %w", problem(http.StatusBadRequest, "Invalid input: x")), 400, gen.ErrorCodeInvalidInput, "Invalid input: x"},
		{problemf(http.StatusUnauthorized, "%s", msgUnauthorized), 401, gen.ErrorCodeUnauthorized, msgUnauthorized},
		{errNamespaceMissing, 404, gen.ErrorCodeNamespaceNotFound, "Namespace not found"},
		{namespaceNotFound(fmt.Errorf("namespace: %w", directory.ErrNotFound)), 404, gen.ErrorCodeNamespaceNotFound, "Namespace not found"},
		{errUserNotFound, 404, gen.ErrorCodeUserNotFound, "User not found"},
		// The code comes from where the outcome is made, never from its text.
		{problem(http.StatusNotFound, "Namespace not found"), 404, gen.ErrorCodeNotFound, "Namespace not found"},
		{problem(http.StatusBadRequest, msgVerificationFailed), 400, gen.ErrorCodeInvalidInput, msgVerificationFailed},
		{directory.ErrNotDraft, 409, gen.ErrorCodeConflict, "Conflict: the record is not a draft"},
		{directory.ErrNameTaken.With("record %q already exists in the registry", "alice"), 409, gen.ErrorCodeConflict,
			`Conflict: the name is taken: record "alice" already exists in the registry`},
		{directory.ErrStaleVersion, 412, gen.ErrorCodePreconditionFailed,
			"Precondition failed: the entry has changed since that version (If-Match); nothing was written"},
		{&ownership.Refusal{Kind: ownership.Forbidden, Message: "Forbidden: no", Err: directory.ErrNotFound}, 403, gen.ErrorCodeForbidden, "Forbidden: no"},
		{directory.ErrConflict, 500, gen.ErrorCodeInternal, msgUnexpected}, // a bare sentinel carries no message
		{directory.ErrNotFound, 500, gen.ErrorCodeInternal, msgUnexpected}, // named by the handler (notFound)
		{errors.New("database exploded"), 500, gen.ErrorCodeInternal, msgUnexpected},
	} {
		if a := answer(tc.err, r); a.Status != tc.status || a.Code != tc.code || a.Message != tc.msg {
			t.Errorf("answer(%v) = %d %s %q; want %d %s %q", tc.err, a.Status, a.Code, a.Message, tc.status, tc.code, tc.msg)
		}
	}
}

// notFound names a store not-found after what the request named, and leaves a refusal that
// says what was missing (and any other error) alone.
func TestNotFoundNamesTheMissingThing(t *testing.T) {
	if got := notFound(fmt.Errorf("registry %q: %w", "x", directory.ErrNotFound), "Registry not found"); !sameProblem(got, 404, "Registry not found") {
		t.Errorf("store not-found: %v", got)
	}
	rf := &ownership.Refusal{Kind: ownership.NotFound, Message: "No verification data for this namespace and domain", Err: directory.ErrNotFound}
	if got := namespaceNotFound(rf); got != error(rf) {
		t.Errorf("refusal: %v", got)
	}
	if got := notFound(directory.ErrNotDraft, "Record not found"); got != error(directory.ErrNotDraft) {
		t.Errorf("conflict: %v", got)
	}
	if got := notFound(nil, "Record not found"); got != nil {
		t.Errorf("nil: %v", got)
	}
}

func sameProblem(err error, status int, msg string) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Status == status && ae.Message == msg
}
