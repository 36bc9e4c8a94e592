package jsonlog

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWriteAccessWritesSlogsLine(t *testing.T) {
	var buf bytes.Buffer
	h := New(&buf, nil)
	a := Access{Time: time.Now(), Method: "GET", Route: "/svc/lookup/:namespace", Status: 404, DurationMS: 1.5, RequestID: "r\"1"}
	h.WriteAccess(a)
	if got, want := buf.String(), slogLine(t, a); got != want {
		t.Fatalf("WriteAccess wrote %q, want %q", got, want)
	}
	// Other records are slog's JSON handler's.
	buf.Reset()
	slog.New(h).Info("hello", "n", 1)
	if !strings.Contains(buf.String(), `"level":"INFO","msg":"hello","n":1}`) {
		t.Fatalf("Info wrote %q", buf.String())
	}
}

func TestWriteAccessFollowsTheLevel(t *testing.T) {
	var buf bytes.Buffer
	lv := new(slog.LevelVar)
	lv.Set(slog.LevelWarn)
	h := New(&buf, lv)
	h.WriteAccess(Access{Time: time.Now(), Method: "GET"})
	if buf.Len() != 0 {
		t.Fatalf("at warn, WriteAccess wrote %q", buf.String())
	}
	lv.Set(slog.LevelDebug)
	h.WriteAccess(Access{Time: time.Now(), Method: "GET"})
	if !strings.Contains(buf.String(), `"msg":"request","method":"GET"`) {
		t.Fatalf("at debug, WriteAccess wrote %q", buf.String())
	}
}

func TestWriteAccessFallsBackToSlog(t *testing.T) {
	var buf bytes.Buffer
	h := New(&buf, nil)
	h.WriteAccess(Access{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Method: "GET", DurationMS: math.NaN()})
	if got := buf.String(); !strings.Contains(got, `"duration_ms":"!ERROR:`) || !strings.HasSuffix(got, "}\n") {
		t.Fatalf("a NaN duration: %q, want slog's own line", got)
	}
}

// A handler with attributes or a group writes records WriteAccess would not: it is slog's own.
func TestWithAttrsLeavesTheFastPath(t *testing.T) {
	h := New(&bytes.Buffer{}, nil)
	for _, d := range []slog.Handler{h.WithAttrs([]slog.Attr{slog.String("k", "v")}), h.WithGroup("g")} {
		if _, ok := d.(interface{ WriteAccess(Access) }); ok {
			t.Fatalf("%T has WriteAccess", d)
		}
	}
}

// Lines written at once from many goroutines, through both paths, reach the writer whole.
func TestConcurrentLinesStayWhole(t *testing.T) {
	var buf bytes.Buffer
	h := New(&buf, nil)
	log := slog.New(h)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				h.WriteAccess(Access{Time: time.Now(), Method: "GET", Route: strings.Repeat("r", 100), RequestID: "id"})
				log.LogAttrs(context.Background(), slog.LevelInfo, "other", slog.Int("i", i))
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 8*200*2 {
		t.Fatalf("%d lines, want %d", len(lines), 8*200*2)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"time":"`) || !strings.HasSuffix(l, "}") {
			t.Fatalf("a broken line: %q", l)
		}
	}
}
