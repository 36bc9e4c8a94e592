package server

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/svc-directory/svc/gen"
)

// /healthz's answer encoded once is the generated response's, headers and bytes.
func TestHealthzAnswerIsTheGeneratedOne(t *testing.T) {
	ok, err := newHealthzOK()
	if err != nil {
		t.Fatal(err)
	}
	want, got := httptest.NewRecorder(), httptest.NewRecorder()
	if err := (gen.Healthz200JSONResponse{MessageJSONResponse: gen.MessageJSONResponse{Message: "ok"}}).VisitHealthzResponse(want); err != nil {
		t.Fatal(err)
	}
	if err := ok.VisitHealthzResponse(got); err != nil {
		t.Fatal(err)
	}
	if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
		t.Fatalf("answered %d %v %q, the generated response %d %v %q", got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
	}
}
