package clustertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
)

// The cluster's witness (scripts/cluster.sh: translog/witnesstest/witness) in TestFailover.

// logOrigin is the origin of the cluster's log (scripts/cluster.sh).
const logOrigin = "cluster.example/svc/log"

// witnessSize is the size of the latest checkpoint of the cluster's log the witness cosigned.
func witnessSize(t testing.TB, env map[string]string) int64 {
	t.Helper()
	res, err := client.Get(env["WITNESS_URL"] + "/size?origin=" + url.QueryEscape(logOrigin))
	if err != nil {
		t.Fatalf("the witness: %v", err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("the witness's size: %d %q", res.StatusCode, raw)
	}
	return n
}

// cosignedAfter waits up to 15 s for the cosigned checkpoint served through the proxy to be
// larger than size, checks the log's signature and the witness's cosignature on it, and checks
// that it is consistent with the checkpoint before (a consistency proof served by the proxy,
// checked by translog/leaf). It returns the cosigned checkpoint's size (0 when none came).
func (c *cluster) cosignedAfter(t testing.TB, env map[string]string, before string) int64 {
	t.Helper()
	old, err := leaf.OpenCheckpoint([]byte(before), env["LOG_VERIFIER_KEY"])
	if err != nil {
		t.Fatalf("the checkpoint before the kill: %v", err)
	}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		res, err := client.Get(c.proxy + "/svc/log/cosigned-checkpoint")
		if err != nil {
			continue
		}
		raw, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != 200 {
			continue
		}
		cp, err := translog.VerifyCosigned(raw, env["LOG_VERIFIER_KEY"], []string{env["WITNESS_KEY"]}, 1)
		if err != nil {
			t.Fatalf("the cosigned checkpoint: %v\n%s", err, raw)
		}
		if cp.Size <= old.Size {
			continue
		}
		var proof struct {
			Hashes [][]byte `json:"hashes"`
		}
		a, err := c.anon(fmt.Sprintf("%s/svc/log/consistency?from=%d&to=%d", c.proxy, old.Size, cp.Size))
		if err != nil || a.status != 200 {
			continue // a replica that has not the tree yet
		}
		b, _ := json.Marshal(a.body)
		if err := json.Unmarshal(b, &proof); err != nil {
			t.Fatal(err)
		}
		if err := leaf.VerifyConsistency(old, cp, proof.Hashes); err != nil {
			t.Fatalf("the cosigned checkpoint of %d is not consistent with the last one before the kill (%d): %v", cp.Size, old.Size, err)
		}
		return cp.Size
	}
	return 0
}

// monitorFrom makes svc log monitor's state start from the checkpoint checkpoint (the last
// served before the kill), so that its next run checks the log from there.
func (c *cluster) monitorFrom(t testing.TB, checkpoint string) {
	t.Helper()
	path := filepath.Join(c.dir, "monitor.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st leaf.MonitorState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if checkpointSize(checkpoint) < checkpointSize(st.Checkpoint) {
		t.Fatalf("the monitor's state (%d) is ahead of the last checkpoint before the kill (%d)", checkpointSize(st.Checkpoint), checkpointSize(checkpoint))
	}
	st.Checkpoint = checkpoint
	raw, err = json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rollbackMarker reads the log's rollback marker on the primary: the size it is behind (0:
// none) and how it was found.
func rollbackMarker(t testing.TB, conn *pgx.Conn) (int64, string) {
	t.Helper()
	var behind int64
	var found string
	if err := conn.QueryRow(context.Background(), `SELECT rolled_back_behind, rolled_back_found FROM log_state WHERE id = 1`).Scan(&behind, &found); err != nil {
		t.Fatal(err)
	}
	return behind, found
}

// freshInstanceRefuses is the rollback found by an instance started after it, from the witness
// alone: the marker is removed, svc1 is restarted (nothing in its memory), and it must find the
// log behind the witness's size, record the marker again and sign nothing.
func (c *cluster) freshInstanceRefuses(t testing.TB, conn *pgx.Conn, logSize int64) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `UPDATE log_state SET rolled_back_behind = 0, rolled_back_size = 0, rolled_back_found = '', rolled_back_at = 0 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	c.script(t, "stop", c.dir, "svc1")
	c.start(t, "svc1")
	// svc1 integrates the queued leaves at its start; a write wakes every integrator once more.
	_, _ = c.do("POST", c.proxy+"/svc/create-namespace", map[string]any{"name": "after-the-restart"}, "")
	var behind int64
	var found string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && behind == 0; time.Sleep(200 * time.Millisecond) {
		behind, found = rollbackMarker(t, conn)
	}
	var size int64
	if err := conn.QueryRow(ctx, `SELECT size FROM log_state WHERE id = 1`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	t.Logf("an instance restarted after the rollback, its marker removed: marker behind %d (%s); the log holds %d", behind, found, size)
	if behind <= logSize || !strings.Contains(found, "witness") {
		t.Errorf("the restarted instance did not find the rollback from the witness (marker %d, %q)", behind, found)
	}
	if size != logSize {
		t.Errorf("the log was signed after the rollback: %d leaves, %d found after the failover", size, logSize)
	}
}
