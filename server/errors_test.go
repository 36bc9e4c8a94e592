package server_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// A panic or an unexpected error answers 500 with the fixed message and is logged with the
// request id; nothing of the cause reaches the client.
func TestUnexpectedErrorsAre500AndLogged(t *testing.T) {
	var logs bytes.Buffer
	srv, err := server.NewServer(server.Config{Store: storetest.Open(t, store.DialectSQLite),
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e := srv.Echo()
	e.GET("/test-panic", func(echo.Context) error { panic("secret detail") })
	for _, path := range []string{"/test-panic"} {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		var body map[string]string
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		if rec.Code != 500 || body["message"] != "An unexpected error occurred" || strings.Contains(rec.Body.String(), "secret") {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		id := rec.Header().Get(echo.HeaderXRequestID)
		if id == "" || !strings.Contains(logs.String(), id) || !strings.Contains(logs.String(), "secret detail") {
			t.Fatalf("the log lacks the request id %q or the cause:\n%s", id, logs.String())
		}
	}
}
