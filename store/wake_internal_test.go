package store

import "testing"

// A wake-up names its schema and worker; one that names no schema (the first triggers') is
// taken as the listener's own.
func TestWakeForReadsTheSchema(t *testing.T) {
	for _, c := range []struct {
		payload, schema, worker string
		ours                    bool
	}{
		{"public/log", "public", "log", true},
		{"t_123/webhook", "public", "webhook", false},
		{"public/jobs", "t_123", "jobs", false},
		{"log", "public", "log", true},
		{"/log", "", "log", true},
	} {
		if w, ours := wakeFor(c.payload, c.schema); w != c.worker || ours != c.ours {
			t.Errorf("wakeFor(%q, %q) = %q, %v; want %q, %v", c.payload, c.schema, w, ours, c.worker, c.ours)
		}
	}
}
