// Package clustertest tests a running local cluster (scripts/cluster.sh): HAProxy in front of
// several `svc serve` instances on one Postgres primary with streaming replicas. It runs
// only with SVC_CLUSTER_DIR naming the cluster's directory, as `make cluster-test` does; the
// tests kill and restart the cluster's processes.
package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is what DIR/env describes.
type cluster struct {
	dir        string
	primaryURL string
	proxy      string
	instances  []string
	replicas   []string
	key        string
}

func open(t testing.TB) *cluster {
	t.Helper()
	dir := os.Getenv("SVC_CLUSTER_DIR")
	if dir == "" {
		t.Skip("SVC_CLUSTER_DIR is not set: `make cluster-test` starts a cluster (scripts/cluster.sh) and runs these tests on it")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	c := &cluster{dir: dir, primaryURL: env["PRIMARY_URL"], proxy: env["PROXY_URL"], instances: strings.Split(env["INSTANCE_URLS"], ","),
		replicas: strings.Split(env["REPLICA_URLS"], ","), key: env["API_KEY"]}
	if c.proxy == "" || len(c.instances) < 2 || len(c.replicas) < 1 || c.key == "" {
		t.Fatalf("%s/env lacks the cluster's addresses: %q", dir, raw)
	}
	return c
}

var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// answer is an HTTP answer's status, consistency token and decoded body.
type answer struct {
	status int
	token  string
	body   map[string]any
}

func (a answer) data() map[string]any { d, _ := a.body["data"].(map[string]any); return d }

func (c *cluster) do(method, url string, body any, token string) (answer, error) {
	return c.send(method, url, body, token, c.key)
}

// anon is a GET without an API key, as the public reads of integrators are.
func (c *cluster) anon(url string) (answer, error) { return c.send("GET", url, nil, "", "") }

func (c *cluster) send(method, url string, body any, token, key string) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return answer{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Svc-Consistency-Token", token)
	}
	res, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	a := answer{status: res.StatusCode, token: res.Header.Get("Svc-Consistency-Token")}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return a, err
	}
	_ = json.Unmarshal(raw, &a.body)
	return a, nil
}

// must is do, failing the test unless the answer has the status.
func (c *cluster) must(t testing.TB, status int, method, url string, body any) answer {
	t.Helper()
	a, err := c.do(method, url, body, "")
	if err != nil || a.status != status {
		t.Fatalf("%s %s: %d %v %v; want %d", method, url, a.status, a.body, err, status)
	}
	return a
}

// registry creates a namespace with a registry "people" through the proxy, and returns the
// namespace id once every replica has it.
func (c *cluster) registry(t testing.TB, name string) string {
	t.Helper()
	ns := c.must(t, 201, "POST", c.proxy+"/svc/create-namespace", map[string]any{"name": name}).data()["namespace_id"].(string)
	a := c.must(t, 201, "POST", c.proxy+"/svc/"+ns+"/create-registry", map[string]any{"registry_name": "people", "tag": "custom",
		"schema": map[string]any{"type": "object"}})
	if a.token == "" {
		t.Fatal("a write answered no Svc-Consistency-Token")
	}
	for _, u := range c.instances { // every instance, through a replica that has it
		if r, err := c.do("GET", u+"/svc/lookup/"+ns+"/people", nil, a.token); err != nil || r.status != 200 {
			t.Fatalf("the new registry through %s with its token: %d %v", u, r.status, err)
		}
	}
	return ns
}

// metric sums the samples of a metric whose labels contain every one of match, on one
// instance's /metrics.
func metric(t testing.TB, instance, name string, match ...string) float64 {
	t.Helper()
	res, err := client.Get(instance + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
next:
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, name+"{") && !strings.HasPrefix(l, name+" ") {
			continue
		}
		for _, m := range match {
			if !strings.Contains(l, m) {
				continue next
			}
		}
		v, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

// sumMetric is metric summed over every instance.
func (c *cluster) sumMetric(t testing.TB, name string, match ...string) float64 {
	t.Helper()
	sum := 0.0
	for _, u := range c.instances {
		sum += metric(t, u, name, match...)
	}
	return sum
}

func (c *cluster) pid(t testing.TB, name string) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(c.dir, "pids", name+".pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// kill9 kills the process and its children with SIGKILL, as a machine that dies would.
func (c *cluster) kill9(t testing.TB, name string) {
	t.Helper()
	pid := c.pid(t, name)
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %s (%d): %v", name, pid, err)
	}
	for _, f := range strings.Fields(string(out)) {
		if child, err := strconv.Atoi(f); err == nil {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	}
	for range 100 { // gone
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signal sends sig to the process and its children.
func (c *cluster) signal(t testing.TB, name string, sig syscall.Signal) {
	t.Helper()
	pid := c.pid(t, name)
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output()
	pids := []int{pid}
	for _, f := range strings.Fields(string(out)) {
		if child, err := strconv.Atoi(f); err == nil {
			pids = append(pids, child)
		}
	}
	for _, p := range pids {
		if err := syscall.Kill(p, sig); err != nil && p == pid {
			t.Fatalf("signal %v to %s (%d): %v", sig, name, pid, err)
		}
	}
}

// start starts a killed process again (scripts/cluster.sh start).
func (c *cluster) start(t testing.TB, name string) {
	t.Helper()
	cmd := exec.Command("bash", "../scripts/cluster.sh", "start", c.dir, name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("start %s: %v\n%s", name, err, out)
	}
}

// replicaName is the name a replica URL has in the metrics: its host:port.
func replicaName(url string) string {
	s := strings.TrimPrefix(url, "postgres://")
	s = s[strings.IndexByte(s, '@')+1:]
	return s[:strings.IndexByte(s, '/')]
}

// load runs lookups of the namespace's records r-0..r-(n-1) from workers goroutines through
// url until stop closes, and counts them and the failed ones (an error or a status other than
// 200), with the first failures' descriptions.
type load struct {
	ok, failed atomic.Int64
	slowest    atomic.Int64 // ns
	mu         sync.Mutex
	firsts     []string
	wg         sync.WaitGroup
}

func (c *cluster) startLoad(url, ns string, n, workers int, stop <-chan struct{}) *load {
	return c.startReads(workers, stop, func(i int) string { return fmt.Sprintf("%s/svc/lookup/%s/people/r-%d", url, ns, i%n) })
}

// startReads is startLoad over the URLs that url(i) gives for i = w, w+1, ... in worker w.
func (c *cluster) startReads(workers int, stop <-chan struct{}, url func(i int) string) *load {
	l := &load{}
	for w := range workers {
		l.wg.Go(func() {
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				began := time.Now()
				u := url(i)
				a, err := c.anon(u)
				for took := int64(time.Since(began)); ; {
					if old := l.slowest.Load(); took <= old || l.slowest.CompareAndSwap(old, took) {
						break
					}
				}
				if err == nil && a.status == 200 {
					l.ok.Add(1)
					continue
				}
				l.failed.Add(1)
				l.mu.Lock()
				if len(l.firsts) < 5 {
					l.firsts = append(l.firsts, fmt.Sprintf("%s: %d %v %v", u, a.status, a.body, err))
				}
				l.mu.Unlock()
			}
		})
	}
	return l
}

// replicasReady waits up to wait (polling every 100 ms) until every instance's /readyz answers
// 200 with all the cluster's replicas ready, and fails the test naming the first that did not
// (when: the moment, in the message).
func (c *cluster) replicasReady(t testing.TB, wait time.Duration, when string) {
	for _, u := range c.instances {
		var rd answer
		for range int(wait / (100 * time.Millisecond)) {
			rd, _ = c.do("GET", u+"/readyz", nil, "")
			if rd.status == 200 && rd.body["replicas_ready"] == float64(len(c.replicas)) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if rd.body["replicas_ready"] != float64(len(c.replicas)) {
			t.Fatalf("%s/readyz %s: %v", u, when, rd.body)
		}
	}
}

// replayed waits until every running replica has replayed the primary's WAL past tok, so that
// reads without a token see what was written before it.
func (c *cluster) replayed(t testing.TB, tok string) {
	t.Helper()
	ctx := context.Background()
	for _, u := range c.replicas {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			continue // a stopped replica serves no reads
		}
		ok := false
		for range 200 {
			if err := conn.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn`, tok).Scan(&ok); err != nil || ok {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		_ = conn.Close(ctx)
		if !ok {
			t.Fatalf("replica %s did not replay past %s", u, tok)
		}
	}
}

// addRecords adds r-0..r-(n-1) in batches, and returns once every replica has them.
func (c *cluster) addRecords(t testing.TB, ns string, n int) {
	t.Helper()
	tok := ""
	for lo := 0; lo < n; lo += 500 {
		var in []map[string]any
		for i := lo; i < min(n, lo+500); i++ {
			in = append(in, map[string]any{"record_name": fmt.Sprintf("r-%d", i), "details": map[string]any{"i": i}})
		}
		tok = c.must(t, 201, "POST", c.proxy+"/svc/"+ns+"/people/add-records", map[string]any{"records": in}).token
	}
	c.replayed(t, tok)
}
