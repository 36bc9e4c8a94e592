package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

// logGauges report the transparency log's state, read from the database at each scrape (so
// every instance reports the same, whichever integrates): how many public versions wait, how
// long the oldest of them has waited, and the size of the latest signed checkpoint. A gauge is
// NaN when the database does not answer within a second.
func logGauges(st *store.Store, now func() time.Time) []prometheus.Collector {
	read := func(f func(ctx context.Context) (float64, error)) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			v, err := f(ctx)
			if err != nil {
				return math.NaN()
			}
			return v
		}
	}
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "svc_log_queue_length", Help: "Public versions waiting to be integrated into the transparency log.",
		}, read(func(ctx context.Context) (float64, error) {
			n, err := st.LogQueueLength(ctx)
			return float64(n), err
		})),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "svc_log_oldest_waiting_seconds", Help: "Age of the oldest public version waiting for the transparency log (0 when none waits).",
		}, read(func(ctx context.Context) (float64, error) {
			t, ok, err := st.LogOldestWaiting(ctx)
			if err != nil || !ok {
				return 0, err
			}
			return max(0, now().Sub(t).Seconds()), nil
		})),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "svc_log_checkpoint_size", Help: "Tree size of the transparency log's latest signed checkpoint.",
		}, read(func(ctx context.Context) (float64, error) {
			ls, err := st.LogState(ctx)
			return float64(ls.Size), err
		})),
	}
}

// The transparency log's public reads (docs/transparency-log.md).

const checkpointCacheControl = "public, max-age=1"

func (s *Server) GetLogCheckpoint(ctx context.Context, _ gen.GetLogCheckpointRequestObject) (gen.GetLogCheckpointResponseObject, error) {
	signed, _, err := s.logReader.Checkpoint(ctx)
	if errors.Is(err, translog.ErrNoCheckpoint) {
		return gen.GetLogCheckpoint503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody("The transparency log has not signed its first checkpoint yet")}, nil
	}
	if err != nil {
		return nil, err
	}
	cc := checkpointCacheControl
	return gen.GetLogCheckpoint200TextplainCharsetUtf8Response{Body: bytes.NewReader([]byte(signed)), ContentLength: int64(len(signed)),
		Headers: gen.GetLogCheckpoint200ResponseHeaders{CacheControl: &cc}}, nil
}

func (s *Server) GetLogCosignedCheckpoint(ctx context.Context, _ gen.GetLogCosignedCheckpointRequestObject) (gen.GetLogCosignedCheckpointResponseObject, error) {
	c, err := s.store.LogCosigned(ctx)
	if err != nil {
		return nil, err
	}
	if c.Text == "" {
		return nil, problem(http.StatusNotFound,
			"No checkpoint of the transparency log has been cosigned by its witnesses' quorum yet (or the log has no witnesses)")
	}
	cc := checkpointCacheControl
	return gen.GetLogCosignedCheckpoint200TextplainCharsetUtf8Response{Body: strings.NewReader(c.Text), ContentLength: int64(len(c.Text)),
		Headers: gen.GetLogCosignedCheckpoint200ResponseHeaders{CacheControl: &cc}}, nil
}

func (s *Server) GetLogKey(ctx context.Context, _ gen.GetLogKeyRequestObject) (gen.GetLogKeyResponseObject, error) {
	if s.logKey == "" {
		return gen.GetLogKey503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody("This instance has no transparency log key")}, nil
	}
	return gen.GetLogKey200TextResponse(s.logKey + "\n"), nil
}

func (s *Server) GetLogInclusion(ctx context.Context, req gen.GetLogInclusionRequestObject) (gen.GetLogInclusionResponseObject, error) {
	var size int64
	if req.Params.Size != nil {
		size = *req.Params.Size
	}
	p, err := s.logReader.Inclusion(ctx, req.Version, size)
	if err != nil {
		return nil, inclusionRefusal(err, req.Version, size)
	}
	out := gen.GetLogInclusion200JSONResponse{Message: "Inclusion proof", LogIndex: p.Index, TreeSize: p.TreeSize, Leaf: string(p.Leaf),
		Checkpoint: p.Checkpoint, Hashes: make([][]byte, len(p.Hashes))}
	for i, h := range p.Hashes {
		out.Hashes[i] = h[:]
	}
	return out, nil
}

// inclusionRefusal is the answer to a failed proof of a version's inclusion (in the tree of
// size, 0: the latest), for GET /svc/log/inclusion/{version} and /svc/log/proof/{version}.
func inclusionRefusal(err error, version string, size int64) error {
	switch {
	case errors.Is(err, translog.ErrNotLogged):
		return problem(http.StatusNotFound,
			"Version "+version+" is not in the transparency log: no such version, or a draft")
	case errors.Is(err, translog.ErrNotIntegrated):
		msg := "Version " + version + " is not in the transparency log yet: it is waiting to be integrated (retry in a second)"
		if size > 0 {
			msg = fmt.Sprintf("Version %s is not in the transparency log's tree of size %d: it entered the log after that tree, or is waiting to be integrated", version, size)
		}
		return &apiError{Status: http.StatusNotFound, Code: gen.ErrorCodeNotIntegrated, Message: msg}
	case errors.Is(err, translog.ErrBadSize):
		return problem(http.StatusBadRequest, "Invalid input: query parameter size: "+strings.TrimPrefix(err.Error(), translog.ErrBadSize.Error()+": "))
	case errors.Is(err, translog.ErrNoCheckpoint):
		return &apiError{Status: http.StatusServiceUnavailable, Code: gen.ErrorCodeUnavailable, RetryAfter: retryAfterSeconds,
			Message: "The transparency log has not signed its first checkpoint yet"}
	}
	return err
}

func (s *Server) GetLogConsistency(ctx context.Context, req gen.GetLogConsistencyRequestObject) (gen.GetLogConsistencyResponseObject, error) {
	p, err := s.logReader.Consistency(ctx, req.Params.From, req.Params.To)
	switch {
	case errors.Is(err, translog.ErrBadSize):
		return nil, problem(http.StatusBadRequest, "No consistency proof: "+err.Error())
	case errors.Is(err, translog.ErrNoCheckpoint):
		return gen.GetLogConsistency503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody("The transparency log has not signed its first checkpoint yet")}, nil
	case err != nil:
		return nil, err
	}
	out := gen.GetLogConsistency200JSONResponse{Message: "Consistency proof", Hashes: make([][]byte, len(p))}
	for i, h := range p {
		out.Hashes[i] = h[:]
	}
	return out, nil
}

// Cache-Control of the log's tiles: a full tile never changes; a partial one is replaced by a
// wider one as the log grows.
const (
	fullTileCacheControl    = "public, max-age=31536000, immutable"
	partialTileCacheControl = "public, max-age=60"
)

func (s *Server) GetLogTile(ctx context.Context, req gen.GetLogTileRequestObject) (gen.GetLogTileResponseObject, error) {
	p, err := translog.ParseTilePath(req.TilePath)
	if err != nil {
		return nil, problem(http.StatusBadRequest, "Invalid input: path parameter tile_path: "+err.Error())
	}
	data, err := s.logReader.Tile(ctx, p.Level, p.N, p.W)
	if errors.Is(err, translog.ErrNoTile) {
		return nil, problem(http.StatusNotFound, "Tile "+req.TilePath+" is not in the transparency log (yet)")
	}
	if err != nil {
		return nil, err
	}
	cc := partialTileCacheControl
	if p.Full() {
		cc = fullTileCacheControl
	}
	return gen.GetLogTile200ApplicationoctetStreamResponse{Body: bytes.NewReader(data), ContentLength: int64(len(data)),
		Headers: gen.GetLogTile200ResponseHeaders{CacheControl: &cc}}, nil
}
