package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
)

// cmdLogMonitor follows a transparency log from the checkpoint kept in the state file: svc log
// monitor --url URL --log-key VKEY --state FILE. It checks the new checkpoint's signature, its
// consistency with the stored one and every new leaf, then stores the new checkpoint and prints
// the key changes of DeDi publishers the new leaves log, one a line (domain, key ids before and
// after, leaf index); exit 1 names the first inconsistency.
func cmdLogMonitor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("log monitor", flag.ContinueOnError)
	fset.SetOutput(stderr)
	baseURL := fset.String("url", "", "base URL of the service (required)")
	logKey := fset.String("log-key", "", "the log's verifier key, from its operator (required)")
	statePath := fset.String("state", "", "file keeping the last verified checkpoint, per-entry version counts and DeDi publishers' key ids (required; created on the first run)")
	if err := parseFlags(fset, args, 0); err != nil {
		return err
	}
	if *baseURL == "" || *logKey == "" || *statePath == "" {
		return fmt.Errorf("%w: log monitor needs --url, --log-key and --state", errUsage)
	}
	fail := func(err error) error {
		fmt.Fprintln(stdout, "FAILED:", oneLine(err))
		return errMismatch
	}
	state := leaf.MonitorState{Counts: map[string]int64{}}
	raw, err := os.ReadFile(*statePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(raw, &state); err != nil {
			return fmt.Errorf("state file %s: %w", *statePath, err)
		}
		if state.Counts == nil {
			state.Counts = map[string]int64{}
		}
	}
	var old leaf.Checkpoint
	if state.Checkpoint != "" {
		if old, err = leaf.OpenCheckpoint([]byte(state.Checkpoint), *logKey); err != nil {
			return fail(fmt.Errorf("the stored checkpoint: %w", err))
		}
	}
	signed, err := httpGet(ctx, *baseURL, "svc/log/checkpoint")
	if err != nil {
		return err
	}
	cur, err := leaf.OpenCheckpoint(signed, *logKey)
	if err != nil {
		return fail(fmt.Errorf("the served checkpoint: %w", err))
	}
	if state.Checkpoint != "" {
		var proof struct {
			Hashes [][]byte `json:"hashes"`
		}
		if old.Size > 0 && old.Size < cur.Size {
			body, err := httpGet(ctx, *baseURL, "svc/log/consistency?from="+strconv.FormatInt(old.Size, 10)+"&to="+strconv.FormatInt(cur.Size, 10))
			if err != nil {
				return err
			}
			if err := json.Unmarshal(body, &proof); err != nil {
				return fail(fmt.Errorf("consistency proof: %w", err))
			}
		}
		if err := leaf.VerifyConsistency(old, cur, proof.Hashes); err != nil {
			return fail(err)
		}
	}
	// The new leaves, bundle by bundle, each checked against the tree's hash tiles (which the
	// tile hash reader checks against the checkpoint's root).
	var changes []leaf.KeyChange // of DeDi publishers, reported after the verdict
	hashes := tlog.TileHashReader(tlog.Tree{N: cur.Size, Hash: cur.Hash}, &httpTiles{ctx: ctx, base: *baseURL})
	for n := old.Size / leaf.TileWidth; n*leaf.TileWidth < cur.Size; n++ {
		w := min(int64(leaf.TileWidth), cur.Size-n*leaf.TileWidth)
		data, err := httpGet(ctx, *baseURL, "svc/log/tile/"+leaf.BundlePath(n, int(w)))
		if err != nil {
			return err
		}
		leaves, err := leaf.SplitBundle(data, int(w))
		if err != nil {
			return fail(fmt.Errorf("entry bundle %d: %w", n, err))
		}
		skip := max(old.Size-n*leaf.TileWidth, 0)
		if err := leaf.CheckLeafHashes(cur, hashes, n*leaf.TileWidth+skip, leaves[skip:]); err != nil {
			return fail(err)
		}
		found, err := state.Check(n*leaf.TileWidth+skip, leaves[skip:])
		if err != nil {
			return fail(err)
		}
		changes = append(changes, found...)
	}
	state.Checkpoint = string(signed)
	if err := writeState(*statePath, state); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "OK: log %s size %d (%d new leaves)\n", cur.Origin, cur.Size, cur.Size-old.Size)
	for _, c := range changes {
		fmt.Fprintln(stdout, c)
	}
	return nil
}

// httpTiles reads the log's hash tiles from the service (a tlog.TileReader).
type httpTiles struct {
	ctx  context.Context
	base string
}

func (r *httpTiles) Height() int { return leaf.TileHeight }

func (r *httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := httpGet(r.ctx, r.base, "svc/log/"+leaf.TileServicePath(t))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (r *httpTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// writeState replaces the state file (a new file renamed over it).
func writeState(path string, s leaf.MonitorState) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".svc-monitor-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
