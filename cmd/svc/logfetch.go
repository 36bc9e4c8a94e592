package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
)

// errUnreadable marks a part of the log the monitor could not read: the service did not
// answer, or answered an error (after the retries of a 429, a 502, 503 or 504). Nothing is
// concluded about the log then (svc log monitor's exit status 2).
var errUnreadable = errors.New("could not read the log")

// unreadable is a read of the log that did not succeed, with its reason.
type unreadable struct{ reason string }

func (e *unreadable) Error() string        { return errUnreadable.Error() + ": " + e.reason }
func (e *unreadable) Is(target error) bool { return target == errUnreadable }

// logReader reads a log's checkpoint, proofs, tiles and bundles from a service for the
// monitor. It sends the API key, when there is one, so that the key's own rate limit applies.
// An answer of 429, 502, 503 or 504, or a request that got no answer, is retried up to retries
// times: after the answer's Retry-After (seconds or an HTTP date), or else after 1 s, 2 s,
// 4 s... A wait is at most maxWait: a Retry-After longer than that ends the run.
type logReader struct {
	base    string
	key     string
	retries int
	maxWait time.Duration
	now     func() time.Time
}

// get reads path under the service's base URL.
func (r *logReader) get(ctx context.Context, path string) ([]byte, error) {
	u := strings.TrimRight(r.base, "/") + "/" + path
	for try := 0; ; try++ {
		body, resp, err := r.once(ctx, u)
		if err == nil && resp.StatusCode == http.StatusOK {
			return body, nil
		}
		var failed *unreadable
		wait := backoff(try, r.maxWait)
		switch {
		case err != nil:
			var ue *url.Error // "Get "URL": reason": the URL is said already
			if errors.As(err, &ue) {
				err = ue.Err
			}
			failed = &unreadable{fmt.Sprintf("GET %s: %v", u, err)}
			if ctx.Err() != nil {
				return nil, failed
			}
		default:
			var m struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(body, &m)
			failed = &unreadable{fmt.Sprintf("GET %s: %s %s", u, resp.Status, m.Message)}
			if !retryable(resp.StatusCode) {
				return nil, failed
			}
			if h := resp.Header.Get("Retry-After"); h != "" {
				d, ok := retryAfter(h, r.now())
				if ok && d > r.maxWait {
					return nil, &unreadable{fmt.Sprintf("%s; it asks to retry after %s, longer than --max-wait %s", failed.reason, d, r.maxWait)}
				}
				if ok {
					wait = d
				}
			}
		}
		if try >= r.retries {
			return nil, &unreadable{fmt.Sprintf("%s; gave up after %d tries", failed.reason, try+1)}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, failed
		case <-t.C:
		}
	}
}

// once makes one request (within 30 s) and reads its answer (at most 64 MiB).
func (r *logReader) once(ctx context.Context, u string) ([]byte, *http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, nil, err
	}
	return body, resp, nil
}

// retryable is whether an answer may succeed later: the service (or a proxy before it) is
// limiting, unavailable or timing out.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// backoff is the wait before retry try+1 when the service names none: 1 s, doubling, at most
// max.
func backoff(try int, max time.Duration) time.Duration {
	d := time.Second << min(try, 20)
	return min(d, max)
}

// retryAfter reads a Retry-After header (RFC 9110): seconds, or an HTTP date (a date past is
// no wait).
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	if secs, err := strconv.ParseInt(strings.TrimSpace(h), 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, 1<<30)) * time.Second, true
	}
	at, err := http.ParseTime(h)
	if err != nil {
		return 0, false
	}
	return max(at.Sub(now), 0), true
}

// httpTiles reads the log's hash tiles from the service (a tlog.TileReader). It keeps the
// tiles above level 0 and the partial ones, which every bundle's check reads again, once the
// tile hash reader has checked them.
type httpTiles struct {
	ctx   context.Context
	r     *logReader
	saved map[tlog.Tile][]byte
}

func (t *httpTiles) Height() int { return leaf.TileHeight }

func (t *httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		if b, ok := t.saved[tile]; ok {
			out[i] = b
			continue
		}
		b, err := t.r.get(t.ctx, "svc/log/"+leaf.TileServicePath(tile))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (t *httpTiles) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	if t.saved == nil {
		t.saved = map[tlog.Tile][]byte{}
	}
	for i, tile := range tiles {
		if tile.L > 0 || tile.W < leaf.TileWidth {
			t.saved[tile] = data[i]
		}
	}
}
