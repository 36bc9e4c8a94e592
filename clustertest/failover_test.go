package clustertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// env reads DIR/env again (cluster.sh failover rewrites PRIMARY_URL).
func (c *cluster) env(t testing.TB) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(c.dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	return env
}

// detach stops a replica's streaming from the primary (primary_conninfo emptied and
// reloaded), as a network that fails between them would.
func detach(t testing.TB, replicaURL string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{`ALTER SYSTEM SET primary_conninfo = ''`, `SELECT pg_reload_conf()`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

// monitor runs svc log monitor against the proxy with the state file; it reports its output
// and whether it passed.
func (c *cluster) monitor(t testing.TB, key string) (string, bool) {
	out, err := exec.Command(filepath.Join(c.dir, "bin", "svc"), "log", "monitor", "--url", c.proxy, "--log-key", key,
		"--state", filepath.Join(c.dir, "monitor.json")).CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}

// checkpointSize is the tree size of a signed checkpoint's text.
func checkpointSize(text string) int64 {
	lines := strings.Split(text, "\n")
	var n int64
	if len(lines) > 1 {
		_, _ = fmt.Sscan(lines[1], &n)
	}
	return n
}

// Losing the primary (#33), under 4 writers and 8 readers through the proxy: the replicas'
// streaming is cut (a failing network), 1.5 s later the primary is killed with kill -9, 2 s
// later `cluster.sh failover` promotes a replica, and the load runs 12 s more. No instance is
// restarted. Then:
//   - no read failed (lookups and the log's checkpoint, from the replicas while no primary);
//   - writes succeed again within 10 s of the promotion;
//   - with SYNC=1 every acknowledged write is on the new primary, the last checkpoint served
//     before the kill is consistent with the ones after it (svc log monitor), and the witness
//     cosigns a checkpoint after the failover, consistent with that one;
//   - without it, the acknowledged writes and log leaves lost are counted, and when leaves
//     were lost the log refuses to sign rather than fork: the checkpoint does not grow, the
//     rollback marker is in the new primary's database, the witness cosigns nothing after the
//     kill, and an instance restarted with the marker removed finds the rollback from the
//     witness alone and refuses too.
//
// It reports the figures: read errors, seconds until writes succeed, writes lost, and the
// write rate before the fault (compare the SYNC=1 and the asynchronous runs).
func TestFailover(t *testing.T) {
	c := open(t)
	env := c.env(t)
	sync1 := env["SYNC"] == "1"
	ns := c.registry(t, fmt.Sprintf("failover-%d", time.Now().UnixNano()))
	const base = 200
	c.addRecords(t, ns, base)
	_ = os.Remove(filepath.Join(c.dir, "monitor.json"))
	time.Sleep(time.Second) // the log integrates the base records
	if out, ok := c.monitor(t, env["LOG_VERIFIER_KEY"]); !ok {
		t.Fatalf("svc log monitor before the load: %s", out)
	}

	var (
		readsOK, readsFailed  atomic.Int64
		writesOK, writeFailed atomic.Int64
		mu                    sync.Mutex
		firstReadFailures     []string
		acked                 []string
		lastCheckpoint        string // the last served before the kill
		afterCheckpoints      []string
		killed, promoted      atomic.Int64 // unix ns
		firstWriteAfter       atomic.Int64 // unix ns of the first 201 to a write begun after the kill
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 33))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				url := fmt.Sprintf("%s/svc/lookup/%s/people/r-%d", c.proxy, ns, rng.IntN(base))
				checkpoint := i%4 == 0
				if checkpoint {
					url = c.proxy + "/svc/log/checkpoint"
				}
				began := time.Now().UnixNano()
				res, err := client.Get(url)
				ok := err == nil && res.StatusCode == 200
				var body string
				if err == nil {
					raw := make([]byte, 4096)
					n, _ := res.Body.Read(raw)
					body = string(raw[:n])
					_ = res.Body.Close()
				}
				if !ok {
					readsFailed.Add(1)
					mu.Lock()
					if len(firstReadFailures) < 5 {
						status := 0
						if res != nil {
							status = res.StatusCode
						}
						firstReadFailures = append(firstReadFailures, fmt.Sprintf("%s: %v %d %s", url, err, status, body))
					}
					mu.Unlock()
					continue
				}
				readsOK.Add(1)
				if checkpoint {
					mu.Lock()
					if k := killed.Load(); k == 0 {
						lastCheckpoint = body
					} else if began > k {
						afterCheckpoints = append(afterCheckpoints, body)
					}
					mu.Unlock()
				}
			}
		})
	}
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				began := time.Now().UnixNano()
				a, err := c.do("POST", c.proxy+"/svc/"+ns+"/people/add-record", map[string]any{"record_name": name, "details": map[string]any{"w": w}}, "")
				if err != nil || a.status != 201 {
					writeFailed.Add(1)
					if err == nil && a.status != 503 {
						t.Errorf("a write answered %d (want 201, or 503 while no primary): %v", a.status, a.body)
					}
					if err == nil && a.status == 503 && a.body["code"] != "primary_unavailable" {
						t.Errorf("a write's 503 has code %v", a.body["code"])
					}
					time.Sleep(100 * time.Millisecond)
					continue
				}
				writesOK.Add(1)
				mu.Lock()
				acked = append(acked, name)
				mu.Unlock()
				if k := killed.Load(); k != 0 && began > k {
					firstWriteAfter.CompareAndSwap(0, time.Now().UnixNano())
				}
			}
		})
	}

	const steady = 5 * time.Second
	time.Sleep(steady)
	rate := float64(writesOK.Load()) / steady.Seconds()
	if out, ok := c.monitor(t, env["LOG_VERIFIER_KEY"]); !ok {
		t.Fatalf("svc log monitor under load: %s", out)
	}
	for _, u := range c.replicas {
		detach(t, u)
	}
	time.Sleep(1500 * time.Millisecond)
	c.kill9(t, "primary")
	killed.Store(time.Now().UnixNano())
	time.Sleep(2 * time.Second)
	witnessedAtKill := witnessSize(t, env) // a submission in flight at the kill has landed
	c.script(t, "failover", c.dir)
	promoted.Store(time.Now().UnixNano())
	time.Sleep(12 * time.Second)
	close(stop)
	wg.Wait()

	env = c.env(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env["PRIMARY_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT record_name FROM records WHERE namespace_id = $1`, ns)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		have[n] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, n := range acked {
		if !have[n] {
			lost++
		}
	}
	var logSize int64
	if err := conn.QueryRow(ctx, `SELECT size FROM log_state WHERE id = 1`).Scan(&logSize); err != nil {
		t.Fatal(err)
	}
	before := checkpointSize(lastCheckpoint)
	leavesLost := max(0, before-logSize)
	recovered := -1.0
	if f := firstWriteAfter.Load(); f != 0 {
		recovered = max(0, float64(f-promoted.Load())/1e9)
	}
	var maxAfter int64
	for _, cp := range afterCheckpoints {
		maxAfter = max(maxAfter, checkpointSize(cp))
	}
	witnessed := witnessSize(t, env)
	t.Logf("SYNC=%v: %d reads (%d failed: %v); %d writes acknowledged, %d refused; %.0f writes/s before the fault; writes succeeded again %.2f s after the promotion; %d acknowledged writes lost; log: %d leaves in the last checkpoint before the kill, %d on the new primary (%d lost), largest checkpoint served after the kill %d; the witness held %d 2 s after the kill, %d at the end",
		sync1, readsOK.Load()+readsFailed.Load(), readsFailed.Load(), firstReadFailures, writesOK.Load(), writeFailed.Load(), rate, recovered, lost,
		before, logSize, leavesLost, maxAfter, witnessedAtKill, witnessed)

	if readsFailed.Load() != 0 {
		t.Errorf("%d reads failed: %v", readsFailed.Load(), firstReadFailures)
	}
	if recovered < 0 || recovered > 10 {
		t.Errorf("writes did not succeed within 10 s of the promotion (%.2f s)", recovered)
	}
	if sync1 {
		if lost != 0 || leavesLost != 0 {
			t.Errorf("with SYNC=1, %d acknowledged writes and %d log leaves were lost", lost, leavesLost)
		}
		if maxAfter <= before {
			t.Errorf("the log did not sign after the failover (largest checkpoint %d, %d before the kill)", maxAfter, before)
		}
		cosigned := c.cosignedAfter(t, env, lastCheckpoint)
		t.Logf("with SYNC=1: the witness cosigned a checkpoint of %d after the failover (the last before the kill: %d), consistent with it", cosigned, before)
		if cosigned == 0 {
			t.Errorf("the witness cosigned no checkpoint larger than the last before the kill (%d) after the failover", before)
		}
		c.monitorFrom(t, lastCheckpoint)
		if out, ok := c.monitor(t, env["LOG_VERIFIER_KEY"]); !ok {
			t.Errorf("svc log monitor from the last checkpoint before the kill: %s", out)
		} else {
			t.Logf("svc log monitor from the last checkpoint before the kill (%d): %s", before, out)
		}
		return
	}
	// The instances say how large a log they had signed or seen when they found it rolled back.
	var signed int64
	for i := range len(c.instances) {
		raw, _ := os.ReadFile(filepath.Join(c.dir, "logs", fmt.Sprintf("svc%d.log", i+1)))
		for _, m := range rolledBack.FindAllStringSubmatch(string(raw), -1) {
			var n int64
			_, _ = fmt.Sscan(m[1], &n)
			signed = max(signed, n)
		}
	}
	t.Logf("without SYNC=1: the instances had signed or seen %d leaves, the new primary has %d: %d log leaves lost", signed, logSize, max(0, signed-logSize))
	if lost > 0 && signed == 0 {
		t.Error("acknowledged writes were lost but no instance found the log rolled back")
	}
	if signed > logSize && maxAfter > logSize {
		t.Errorf("after a rollback to %d leaves the log signed a checkpoint of %d: a fork", logSize, maxAfter)
	}
	if witnessed != witnessedAtKill {
		t.Errorf("the witness cosigned after the failover without SYNC=1: %d, %d at the kill", witnessed, witnessedAtKill)
	}
	if signed <= logSize {
		return // no leaf was lost: nothing to refuse
	}
	if behind, found := rollbackMarker(t, conn); behind <= logSize {
		t.Errorf("no rollback marker in the new primary's database (%d, %q)", behind, found)
	} else {
		t.Logf("the rollback marker on the new primary: behind %d (%s)", behind, found)
	}
	if witnessed <= logSize {
		t.Logf("the witness had cosigned %d leaves, no more than the new primary's %d: it cannot tell the rollback to an instance started later", witnessed, logSize)
		return
	}
	c.freshInstanceRefuses(t, conn, logSize)
}

var rolledBack = regexp.MustCompile(`the log was rolled back: the stored log has \d+ leaves, behind the checkpoint of (\d+)`)
