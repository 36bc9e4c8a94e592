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
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// errNotChecked marks a monitor run that concluded nothing about the log: it could not read
// the log (errUnreadable), or its state file (exit status 2, as a usage mistake).
var errNotChecked = errors.New("the log was not checked")

// cmdLogMonitor follows a transparency log from the checkpoint kept in the state file: svc log
// monitor --url URL --log-key VKEY --state FILE [--key KEY] [--retries N] [--max-wait D]. It
// checks the new checkpoint's signature, its consistency with the stored one and every new
// leaf, then stores the new checkpoint and prints the key changes of DeDi publishers the new
// leaves log, one a line (domain, key ids before and after, leaf index), and the changes of
// domain bindings (domain, gained or lost, namespace, leaf index, method, time). Exit 1 names the first
// inconsistency ("FAILED: ..."); exit 2 says why the log could not be checked ("ERROR: ...").
func cmdLogMonitor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("log monitor", flag.ContinueOnError)
	fset.SetOutput(stderr)
	baseURL := fset.String("url", "", "base URL of the service (required)")
	logKey := fset.String("log-key", "", "the log's verifier key, from its operator (required)")
	statePath := fset.String("state", "", "file keeping the last verified checkpoint, the last version_count of every entry (17 bytes an entry), DeDi publishers' key ids and the holders of logged domain bindings (required; created on the first run)")
	apiKey := fset.String("key", "", "an API key to send, so that the key's own rate limit applies (default: none, the client address's limit)")
	retries := fset.Int("retries", 8, "retries of a request answered 429, 502, 503 or 504, or not answered, before giving up (exit 2)")
	maxWait := fset.Duration("max-wait", time.Minute, "the longest wait before a retry; a Retry-After longer than this gives up at once (exit 2)")
	if err := parseFlags(fset, args, 0); err != nil {
		return err
	}
	if *baseURL == "" || *logKey == "" || *statePath == "" {
		return fmt.Errorf("%w: log monitor needs --url, --log-key and --state", errUsage)
	}
	if *retries < 0 || *maxWait <= 0 {
		return fmt.Errorf("%w: --retries must be 0 or more and --max-wait more than 0", errUsage)
	}
	r := &logReader{base: *baseURL, key: *apiKey, retries: *retries, maxWait: *maxWait, now: time.Now}
	err := monitor(ctx, r, *logKey, *statePath, stdout)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errUnreadable) || errors.Is(err, errNotChecked):
		// Before ErrVerify: a tile the tile hash reader could not read is wrapped in both; the
		// read's own error says it.
		var u *unreadable
		if errors.As(err, &u) {
			err = u
		}
		fmt.Fprintln(stdout, "ERROR:", oneLine(err))
		return errNotChecked
	default:
		fmt.Fprintln(stdout, "FAILED:", oneLine(err))
		return errMismatch
	}
}

// monitor is one run of the monitor: an error of errUnreadable or errNotChecked says the log
// was not checked, any other names an inconsistency.
func monitor(ctx context.Context, r *logReader, logKey, statePath string, stdout io.Writer) error {
	var state leaf.MonitorState
	raw, err := os.ReadFile(statePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("%w: %w", errNotChecked, err)
	default:
		if err := json.Unmarshal(raw, &state); err != nil {
			return fmt.Errorf("%w: state file %s: %w", errNotChecked, statePath, err)
		}
	}
	var old leaf.Checkpoint
	if state.Checkpoint != "" {
		if old, err = leaf.OpenCheckpoint([]byte(state.Checkpoint), logKey); err != nil {
			return fmt.Errorf("the stored checkpoint: %w", err)
		}
	}
	signed, err := r.get(ctx, "svc/log/checkpoint")
	if err != nil {
		return err
	}
	cur, err := leaf.OpenCheckpoint(signed, logKey)
	if err != nil {
		return fmt.Errorf("the served checkpoint: %w", err)
	}
	if state.Checkpoint != "" {
		var proof struct {
			Hashes [][]byte `json:"hashes"`
		}
		if old.Size > 0 && old.Size < cur.Size {
			body, err := r.get(ctx, "svc/log/consistency?from="+strconv.FormatInt(old.Size, 10)+"&to="+strconv.FormatInt(cur.Size, 10))
			if err != nil {
				return err
			}
			if err := json.Unmarshal(body, &proof); err != nil {
				return fmt.Errorf("consistency proof: %w", err)
			}
		}
		if err := leaf.VerifyConsistency(old, cur, proof.Hashes); err != nil {
			return err
		}
	}
	// Every leaf, bundle by bundle, each checked against the tree's hash tiles (which the
	// tile hash reader checks against the checkpoint's root): the state index is rebuilt from
	// leaf 0 at each run, and every state leaf's root checked (stateindex.Follower); the new
	// leaves are also checked as leaves (MonitorState.Check).
	var changes []leaf.Change // key changes of DeDi publishers and domain bindings, reported after the verdict
	index := stateindex.NewFollower(stateindex.NewMemStore())
	newStates := 0
	hashes := tlog.TileHashReader(tlog.Tree{N: cur.Size, Hash: cur.Hash}, &httpTiles{ctx: ctx, r: r})
	for n := int64(0); n*leaf.TileWidth < cur.Size; n++ {
		w := min(int64(leaf.TileWidth), cur.Size-n*leaf.TileWidth)
		data, err := r.get(ctx, "svc/log/tile/"+leaf.BundlePath(n, int(w)))
		if err != nil {
			return err
		}
		leaves, err := leaf.SplitBundle(data, int(w))
		if err != nil {
			return fmt.Errorf("entry bundle %d: %w", n, err)
		}
		if err := leaf.CheckLeafHashes(cur, hashes, n*leaf.TileWidth, leaves); err != nil {
			return err
		}
		skip := min(max(old.Size-n*leaf.TileWidth, 0), int64(len(leaves)))
		found, err := state.Check(n*leaf.TileWidth+skip, leaves[skip:])
		if err != nil {
			return err
		}
		for i, text := range leaves {
			if err := index.Apply(text); err != nil {
				return fmt.Errorf("%w: %w", leaf.ErrVerify, err)
			}
			if n*leaf.TileWidth+int64(i) >= old.Size && index.LastState {
				newStates++
			}
		}
		changes = append(changes, found...)
	}
	state.Checkpoint = string(signed)
	if err := writeState(statePath, state); err != nil {
		return fmt.Errorf("%w: state file %s: %w", errNotChecked, statePath, err)
	}
	fmt.Fprintf(stdout, "OK: log %s size %d (%d new leaves); %d state roots checked by rebuilding the index from leaf 0 (%d new)\n",
		cur.Origin, cur.Size, cur.Size-old.Size, index.Checked, newStates)
	for _, c := range changes {
		fmt.Fprintln(stdout, c)
	}
	return nil
}

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
