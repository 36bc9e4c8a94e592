package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// BenchmarkPublishRecords1000: POST publish-records of 1,000 drafts through the whole echo stack
// in-process, per dialect (issue #29's target: under 1 s). Each iteration first adds 1,000 new
// drafts with add-records, outside the timer.
func BenchmarkPublishRecords1000(b *testing.B) {
	for _, d := range storetest.Dialects {
		b.Run(d, func(b *testing.B) {
			st, _ := storetest.OpenWith(b, d, store.Options{})
			e := benchServer(b, st)
			key, _, err := st.CreateAPIKey(context.Background(), "owner@example.com")
			if err != nil {
				b.Fatal(err)
			}
			send := func(path string, body any, want int) {
				j, _ := json.Marshal(body)
				req := httptest.NewRequest("POST", path, bytes.NewReader(j))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				if rec.Code != want {
					b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
				}
			}
			ns := createBenchNamespace(b, e, key)
			send("/svc/"+ns+"/create-registry", map[string]any{"registry_name": "people", "schema": map[string]any{"type": "object"}}, http.StatusCreated)
			reg := "/svc/" + ns + "/people"
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				recs := make([]map[string]any, 1000)
				names := make([]string, 1000)
				for j := range recs {
					names[j] = fmt.Sprintf("p%d-%d", i, j)
					recs[j] = map[string]any{"record_name": names[j], "state": "draft", "details": map[string]any{"name": names[j], "n": j}}
				}
				send(reg+"/add-records", map[string]any{"records": recs}, http.StatusCreated)
				b.StartTimer()
				send(reg+"/publish-records", map[string]any{"records": names}, http.StatusOK)
			}
		})
	}
}

func createBenchNamespace(b *testing.B, e *echo.Echo, key string) string {
	req := httptest.NewRequest("POST", "/svc/create-namespace", bytes.NewReader([]byte(`{"name":"Bench"}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	var out struct {
		Data struct {
			NamespaceID string `json:"namespace_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Data.NamespaceID == "" {
		b.Fatalf("create-namespace: %d %s", rec.Code, rec.Body.String())
	}
	return out.Data.NamespaceID
}
