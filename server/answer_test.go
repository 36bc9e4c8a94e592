package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A denial that reaches the error handler (its operation does not list the status) keeps its
// status and message; other errors are 500 with the fixed message.
func TestAnswerKeepsDenials(t *testing.T) {
	r := httptest.NewRequest("POST", "/svc/x", nil)
	for _, tc := range []struct {
		err    error
		status int
		msg    string
	}{
		{&denial{http.StatusConflict, "Conflict: the record is not a draft"}, 409, "Conflict: the record is not a draft"},
		{fmt.Errorf("wrapped: %w", &denial{http.StatusBadRequest, "Invalid input: x"}), 400, "Invalid input: x"},
		{newAPIError(http.StatusUnauthorized, msgUnauthorized), 401, msgUnauthorized},
		{errors.New("database exploded"), 500, msgUnexpected},
	} {
		if status, msg := answer(tc.err, r); status != tc.status || msg != tc.msg {
			t.Errorf("answer(%v) = %d %q; want %d %q", tc.err, status, msg, tc.status, tc.msg)
		}
	}
}
