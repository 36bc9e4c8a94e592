package clustertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// cpuSeconds is the CPU time (user and system) a process and its children still running have
// used so far, from /proc (the Postgres servers' backends are children of their postmaster).
func cpuSeconds(pid int) float64 {
	total := 0.0
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	total += (ut + st) / 100 // clock ticks (USER_HZ is 100 on Linux)
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output()
	for _, c := range strings.Fields(string(out)) {
		if child, err := strconv.Atoi(c); err == nil {
			total += cpuSeconds(child)
		}
	}
	return total
}

// selects counts the SELECT statements each database server ran since the last call
// (pg_stat_statements, reset at each call): the primary's, then each running replica's.
func (c *cluster) selects(t testing.TB, urls []string) []float64 {
	t.Helper()
	out := make([]float64, len(urls))
	for i, u := range urls {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		err = conn.QueryRow(ctx, `SELECT COALESCE(SUM(calls), 0)::float8 FROM pg_stat_statements
			WHERE query ~* '^\s*(select|with)' AND query !~* 'pg_stat_statements'`).Scan(&out[i])
		if err == nil {
			_, err = conn.Exec(ctx, `SELECT pg_stat_statements_reset()`)
		}
		_ = conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// processes are the cluster's processes by name, with their pids.
func (c *cluster) processes(t testing.TB) map[string]int {
	out := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(c.dir, "pids", "*.pid"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pid")
		out[name] = c.pid(t, name)
	}
	return out
}

func (c *cluster) script(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("bash", append([]string{"../scripts/cluster.sh"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("cluster.sh %v: %v\n%s", args, err, out)
	}
}

// Read throughput through the proxy with 2, 1 and 0 replicas running (the instances keep
// probing the stopped ones), under a load of lookups (4 in 5) and searches (1 in 5) from 16
// workers for 10 s each: requests per second, the share of the requests' reads the primary
// served (svc_db_read_queries_total), and the CPU each process used per request.
func BenchmarkClusterReads(b *testing.B) {
	c := open(b)
	ns := c.registry(b, fmt.Sprintf("bench-reads-%d", time.Now().UnixNano()))
	const records = 5000
	c.addRecords(b, ns, records)
	time.Sleep(time.Second)
	const phase = 10 * time.Second
	c.selects(b, []string{c.primaryURL})
	time.Sleep(phase)
	idle := c.selects(b, []string{c.primaryURL})[0]
	b.Logf("idle: the primary ran %.0f SELECTs in %v (the instances' background work: probes, log integration, webhook and job polling)", idle, phase)
	for _, running := range []int{2, 1, 0} {
		for r := len(c.replicas); r > running; r-- {
			if _, err := os.Stat(filepath.Join(c.dir, "pids", fmt.Sprintf("replica%d.pid", r))); err == nil {
				c.script(b, "stop", c.dir, fmt.Sprintf("replica%d", r))
			}
		}
		time.Sleep(time.Second) // the probes notice
		procs := c.processes(b)
		cpu0 := map[string]float64{}
		for name, pid := range procs {
			cpu0[name] = cpuSeconds(pid)
		}
		servers := append([]string{c.primaryURL}, c.replicas[:running]...)
		c.selects(b, servers)
		primary0 := c.sumMetric(b, "svc_db_read_queries_total", `target="primary"`)
		all0 := c.sumMetric(b, "svc_db_read_queries_total")
		var ok, failed atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for {
					select {
					case <-stop:
						return
					default:
					}
					i := rng.IntN(records)
					url := fmt.Sprintf("%s/svc/lookup/%s/people/r-%d", c.proxy, ns, i)
					if rng.IntN(5) == 0 {
						url = fmt.Sprintf("%s/svc/search/%s?i=%d", c.proxy, ns, i)
					}
					if a, err := c.anon(url); err == nil && a.status == 200 {
						ok.Add(1)
					} else {
						failed.Add(1)
					}
				}
			})
		}
		time.Sleep(phase)
		close(stop)
		wg.Wait()
		n := float64(ok.Load())
		sel := c.selects(b, servers)
		var selAll float64
		for _, v := range sel {
			selAll += v
		}
		primary := c.sumMetric(b, "svc_db_read_queries_total", `target="primary"`) - primary0
		all := c.sumMetric(b, "svc_db_read_queries_total") - all0
		var names []string
		for name := range procs {
			names = append(names, name)
		}
		slices.Sort(names)
		var cpu []string
		for _, name := range names {
			cpu = append(cpu, fmt.Sprintf("%s %.0f", name, (cpuSeconds(procs[name])-cpu0[name])/n*1e6))
		}
		b.Logf("%d replicas: %.0f req/s (%d failed); the primary served %.1f%% of the requests' %.0f routed reads (metrics) and ran %.1f%% of the %.0f SELECTs of all servers, background work included (pg_stat_statements: %v); CPU µs per request: %s",
			running, n/phase.Seconds(), failed.Load(), 100*primary/max(all, 1), all, 100*sel[0]/max(selAll, 1), selAll, sel, strings.Join(cpu, ", "))
		b.ReportMetric(n/phase.Seconds(), fmt.Sprintf("req/s_%d_replicas", running))
	}
	for r := 1; r <= len(c.replicas); r++ {
		if _, err := os.Stat(filepath.Join(c.dir, "pids", fmt.Sprintf("replica%d.pid", r))); err != nil {
			c.start(b, fmt.Sprintf("replica%d", r))
		}
	}
}

// Token waits at about 2,000 record writes per second: add-records batches of 100, 20 a
// second, through the proxy, while 8 workers write one record and read it back with the
// write's token through the proxy. Reports the wait the instances measured
// (svc_db_consistency_token_wait_seconds: p50 and p99 from its buckets), the fallbacks to the
// primary, and the write rate reached.
func BenchmarkClusterTokenWait(b *testing.B) {
	c := open(b)
	ns := c.registry(b, fmt.Sprintf("bench-token-%d", time.Now().UnixNano()))
	const dur = 15 * time.Second
	buckets0 := c.tokenBuckets(b)
	fallbacks0 := c.sumMetric(b, "svc_db_consistency_fallbacks_total", `reason="timeout"`)
	noReplica0 := c.sumMetric(b, "svc_db_consistency_fallbacks_total", `reason="no_replica"`)
	var written, pairs, stale atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the write load
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		var inflight sync.WaitGroup
		defer inflight.Wait()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			inflight.Go(func() {
				in := make([]map[string]any, 100)
				for i := range in {
					in[i] = map[string]any{"record_name": fmt.Sprintf("w-%d-%d", k, i), "details": map[string]any{"k": k}}
				}
				if a, err := c.do("POST", c.proxy+"/svc/"+ns+"/people/add-records", map[string]any{"records": in}, ""); err == nil && a.status == 201 {
					written.Add(100)
				}
			})
		}
	})
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("t-%d-%d", w, i)
				a, err := c.do("POST", c.proxy+"/svc/"+ns+"/people/add-record", map[string]any{"record_name": name, "details": map[string]any{}}, "")
				if err != nil || a.status != 201 {
					continue
				}
				written.Add(1)
				r, err := c.do("GET", c.proxy+"/svc/lookup/"+ns+"/people/"+name, nil, a.token)
				pairs.Add(1)
				if err != nil || r.status != 200 {
					stale.Add(1)
				}
			}
		})
	}
	time.Sleep(dur)
	close(stop)
	wg.Wait()
	buckets := c.tokenBuckets(b)
	for i := range buckets {
		buckets[i].n -= buckets0[i].n
	}
	p50, p99 := quantile(buckets, 0.5), quantile(buckets, 0.99)
	fallbacks := c.sumMetric(b, "svc_db_consistency_fallbacks_total", `reason="timeout"`) - fallbacks0
	noReplica := c.sumMetric(b, "svc_db_consistency_fallbacks_total", `reason="no_replica"`) - noReplica0
	b.Logf("%.0f record writes/s; %d token reads (%d stale), %.0f of them counted by the instances; token wait p50 ≤ %s, p99 ≤ %s; the primary served %.0f after the wait ran out and %.0f because no replica was within the lag bound",
		float64(written.Load())/dur.Seconds(), pairs.Load(), stale.Load(), buckets[len(buckets)-1].n, p50, p99, fallbacks, noReplica)
	b.ReportMetric(float64(written.Load())/dur.Seconds(), "writes/s")
	if stale.Load() != 0 {
		b.Fatalf("%d reads with a token missed their write", stale.Load())
	}
}

type bucket struct {
	le string
	n  float64
}

// tokenBuckets sums the token-wait histogram's cumulative buckets over the instances.
func (c *cluster) tokenBuckets(t testing.TB) []bucket {
	var out []bucket
	for _, le := range []string{"0", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.02", "0.03", "0.05", "0.075", "0.1", "0.15", "0.2", "0.25", "+Inf"} {
		out = append(out, bucket{le, c.sumMetric(t, "svc_db_consistency_token_wait_seconds_bucket", `le="`+le+`"`)})
	}
	return out
}

// quantile is the upper bound of the bucket that holds the q quantile.
func quantile(bs []bucket, q float64) string {
	total := bs[len(bs)-1].n
	for _, b := range bs {
		if b.n >= q*total {
			return b.le + " s"
		}
	}
	return "+Inf"
}
