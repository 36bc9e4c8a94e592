// Package jsonlog is the service's log handler: slog's JSON handler, and beside it a writer of
// the one record every request logs (the access line) that encodes it by hand, byte for byte
// as the JSON handler would, without slog's general machinery (its handler state, its
// json.Marshal of a float). Every other record goes through slog's JSON handler.
package jsonlog

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Handler is slog's JSON handler (with HandlerOptions.Level only: no source, no ReplaceAttr)
// over a writer, with WriteAccess beside it. Its WithAttrs and WithGroup return slog's own
// handler: records with attributes of the handler's own are no longer the ones WriteAccess
// writes, so the logger they make has no access fast path.
type Handler struct {
	json  slog.Handler
	out   *lockedWriter
	level slog.Leveler
}

// New returns the handler writing JSON lines to w, at level and above (nil: info).
func New(w io.Writer, level slog.Leveler) *Handler {
	if level == nil {
		level = slog.LevelInfo
	}
	out := &lockedWriter{w: w}
	return &Handler{json: slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level}), out: out, level: level}
}

func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.json.Enabled(ctx, l) }
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	return h.json.Handle(ctx, r)
}
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler { return h.json.WithAttrs(attrs) }
func (h *Handler) WithGroup(name string) slog.Handler       { return h.json.WithGroup(name) }

// Access is the access line of one request (server's access log): message "request" at level
// info, with these attributes in this order.
type Access struct {
	Time       time.Time
	Method     string
	Route      string
	Status     int
	DurationMS float64
	RequestID  string
}

// Attrs are the access line's attributes as slog attributes, in the order WriteAccess writes
// them: a logger without this handler logs the same line with them.
func (a Access) Attrs() []slog.Attr {
	return []slog.Attr{
		slog.String("method", a.Method),
		slog.String("route", a.Route),
		slog.Int("status", a.Status),
		slog.Float64("duration_ms", a.DurationMS),
		slog.String("request_id", a.RequestID),
	}
}

var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// WriteAccess writes the access line when the handler's level lets info records through. A
// line AppendAccess cannot write as slog would (a duration that is not a finite number, a time
// outside years 0-9999) goes through slog's handler instead.
func (h *Handler) WriteAccess(a Access) {
	if slog.LevelInfo < h.level.Level() {
		return
	}
	bp := bufs.Get().(*[]byte)
	b, ok := AppendAccess((*bp)[:0], a)
	if ok {
		_, _ = h.out.Write(b) // as slog's handler, a line that cannot be written is dropped
	} else {
		r := slog.NewRecord(a.Time, slog.LevelInfo, "request", 0)
		r.AddAttrs(a.Attrs()...)
		_ = h.json.Handle(context.Background(), r)
	}
	if cap(b) <= 16<<10 {
		*bp = b
		bufs.Put(bp)
	}
}

// lockedWriter serializes the writes of slog's handler and of WriteAccess, so that each line
// reaches w whole and in one Write, whatever w is.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
