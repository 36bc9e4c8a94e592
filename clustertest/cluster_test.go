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
	"net/http/httptest"
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
				a, err := c.anon(fmt.Sprintf("%s/svc/lookup/%s/people/r-%d", url, ns, i%n))
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
					l.firsts = append(l.firsts, fmt.Sprintf("%d %v %v", a.status, a.body, err))
				}
				l.mu.Unlock()
			}
		})
	}
	return l
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

// A write through one instance, then a read with its token through another, both through the
// proxy, always sees the write: 1,000 pairs, each a new record and then an update of it,
// alternate instances (round robin), with 0 stale reads. The same pairs without the token are
// counted for comparison only.
func TestReadYourWritesAcrossInstances(t *testing.T) {
	c := open(t)
	ns := c.registry(t, "ryw")
	stale, untokened := 0, 0
	for i := range 1000 {
		var a answer
		var err error
		if i%2 == 0 {
			a, err = c.do("POST", c.proxy+"/svc/"+ns+"/people/add-record", map[string]any{"record_name": fmt.Sprintf("p-%d", i), "details": map[string]any{"n": i}}, "")
			if err == nil && a.status != 201 {
				err = fmt.Errorf("add-record: %d %v", a.status, a.body)
			}
		} else {
			a, err = c.do("POST", fmt.Sprintf("%s/svc/%s/people/p-%d/update-record", c.proxy, ns, i-1), map[string]any{"details": map[string]any{"n": i}}, "")
			if err == nil && a.status != 200 {
				err = fmt.Errorf("update-record: %d %v", a.status, a.body)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if a.token == "" {
			t.Fatalf("write %d answered no consistency token", i)
		}
		want := a.data()["version"]
		url := fmt.Sprintf("%s/svc/lookup/%s/people/p-%d", c.proxy, ns, i-i%2)
		r, err := c.do("GET", url, nil, a.token)
		if err != nil {
			t.Fatal(err)
		}
		if r.status != 200 || r.data()["version"] != want {
			stale++
			if stale <= 5 {
				t.Errorf("pair %d: read %d version %v, want %v", i, r.status, r.data()["version"], want)
			}
		}
		if i < 200 { // the same write's effect read without a token, for comparison
			if r, err := c.do("GET", fmt.Sprintf("%s/svc/versions/%s/people/p-%d", c.proxy, ns, i-i%2), nil, ""); err == nil && r.status == 200 {
				if vs, _ := r.body["data"].(map[string]any)["versions"].([]any); len(vs) == 0 || vs[0] != want {
					untokened++
				}
			} else {
				untokened++
			}
		}
	}
	if stale != 0 {
		t.Fatalf("%d of 1000 reads with the write's token were stale", stale)
	}
	t.Logf("1000 write-then-read pairs with the token: 0 stale; without it, %d of 200 version lists missed the write", untokened)
}

// kill -9 of a replica under read load through the proxy fails no read; once it is started
// again, reads go to it again.
func TestReplicaKilledUnderReadLoad(t *testing.T) {
	c := open(t)
	ns := c.registry(t, "replica-kill")
	c.addRecords(t, ns, 200)
	victim := replicaName(c.replicas[0])
	before := c.sumMetric(t, "svc_db_read_queries_total", `target="`+victim+`"`)
	stop := make(chan struct{})
	l := c.startLoad(c.proxy, ns, 200, 8, stop)
	time.Sleep(1500 * time.Millisecond)
	during := c.sumMetric(t, "svc_db_read_queries_total", `target="`+victim+`"`)
	if during <= before {
		close(stop)
		l.wg.Wait()
		t.Fatalf("before the kill no read went to %s (%v then %v)", victim, before, during)
	}
	c.kill9(t, "replica1")
	killedAt := l.ok.Load() + l.failed.Load()
	time.Sleep(3 * time.Second)
	down := c.sumMetric(t, "svc_db_read_queries_total", `target="`+victim+`"`)
	c.start(t, "replica1")
	// Reads return to it once its probes find it well.
	deadline := time.Now().Add(20 * time.Second)
	var back float64
	for time.Now().Before(deadline) {
		if back = c.sumMetric(t, "svc_db_read_queries_total", `target="`+victim+`"`); back > down+50 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	close(stop)
	l.wg.Wait()
	t.Logf("%d reads (%d after the kill), %d failed; reads to %s: %v before the kill, %v when restarted, %v after",
		l.ok.Load()+l.failed.Load(), l.ok.Load()+l.failed.Load()-killedAt, l.failed.Load(), victim, during, down, back)
	if l.failed.Load() != 0 {
		t.Fatalf("%d reads failed while a replica died: %v", l.failed.Load(), l.firsts)
	}
	if back <= down+50 {
		t.Fatalf("reads did not return to %s after its restart (%v then %v)", victim, down, back)
	}
	for _, u := range c.instances {
		var rd answer
		for range 50 {
			rd, _ = c.do("GET", u+"/readyz", nil, "")
			if rd.status == 200 && rd.body["replicas_ready"] == float64(len(c.replicas)) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if rd.body["replicas_ready"] != float64(len(c.replicas)) {
			t.Fatalf("%s/readyz after the restart: %v", u, rd.body)
		}
	}
}

// A replica that stops answering (SIGSTOP: its connections stay open, its queries never
// return) under read load fails no read, and holds none for long: its probes time out within
// a second, and the reads waiting on it run again on the primary. Once it answers again, it
// is taken back.
func TestReplicaHangsUnderReadLoad(t *testing.T) {
	c := open(t)
	ns := c.registry(t, "replica-hang")
	c.addRecords(t, ns, 200)
	stop := make(chan struct{})
	l := c.startLoad(c.proxy, ns, 200, 8, stop)
	time.Sleep(time.Second)
	l.slowest.Store(0)
	c.signal(t, "replica2", syscall.SIGSTOP)
	stopped := true
	defer func() {
		if stopped {
			c.signal(t, "replica2", syscall.SIGCONT)
		}
	}()
	time.Sleep(3 * time.Second)
	c.signal(t, "replica2", syscall.SIGCONT)
	stopped = false
	close(stop)
	l.wg.Wait()
	slowest := time.Duration(l.slowest.Load())
	t.Logf("%d reads, %d failed; the slowest took %v", l.ok.Load()+l.failed.Load(), l.failed.Load(), slowest.Round(time.Millisecond))
	if l.failed.Load() != 0 {
		t.Fatalf("%d reads failed while a replica hung: %v", l.failed.Load(), l.firsts)
	}
	if slowest > 2*time.Second {
		t.Fatalf("a read waited %v on a hung replica", slowest)
	}
	for _, u := range c.instances {
		var rd answer
		for range 100 {
			if rd, _ = c.do("GET", u+"/readyz", nil, ""); rd.body["replicas_ready"] == float64(len(c.replicas)) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if rd.body["replicas_ready"] != float64(len(c.replicas)) {
			t.Fatalf("%s/readyz after the replica answered again: %v", u, rd.body)
		}
	}
}

// kill -9 of an instance under read load: the proxy routes around it, and only requests in
// flight on that instance (at most one per load worker) may fail; after it, none do.
func TestInstanceKilledUnderLoad(t *testing.T) {
	c := open(t)
	ns := c.registry(t, "instance-kill")
	c.addRecords(t, ns, 200)
	const workers = 8
	stop := make(chan struct{})
	l := c.startLoad(c.proxy, ns, 200, workers, stop)
	time.Sleep(time.Second)
	c.kill9(t, "svc2")
	time.Sleep(2 * time.Second) // the proxy's checks mark it down within 1 s
	failedSoon := l.failed.Load()
	time.Sleep(2 * time.Second)
	close(stop)
	l.wg.Wait()
	c.start(t, "svc2")
	t.Logf("%d reads, %d failed (all in the 2 s after the kill)", l.ok.Load()+l.failed.Load(), l.failed.Load())
	if failedSoon > workers {
		t.Fatalf("%d reads failed when an instance died; at most the %d in flight may: %v", failedSoon, workers, l.firsts)
	}
	if l.failed.Load() != failedSoon {
		t.Fatalf("reads still failed 2 s after the kill: %d then %d: %v", failedSoon, l.failed.Load(), l.firsts)
	}
	if l.ok.Load() < 100 {
		t.Fatalf("only %d reads succeeded", l.ok.Load())
	}
	// The restarted instance serves again through the proxy.
	if a := c.must(t, 200, "GET", c.instances[1]+"/readyz", nil); a.body["message"] != "ready" {
		t.Fatalf("svc2 after its restart: %v", a.body)
	}
}

// Background work runs once across the instances: every version is integrated into the
// transparency log by exactly one of them (the instances' integrated-leaf counters add up to
// the log's growth), and every webhook event is delivered once (each event id arrives once).
func TestBackgroundWorkRunsOnce(t *testing.T) {
	c := open(t)
	var mu sync.Mutex
	seen := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	ns := c.registry(t, "background")
	c.must(t, 201, "POST", c.proxy+"/svc/watch", map[string]any{"watch_type": "namespace", "target_id": ns, "webhook_url": recv.URL + "/hook"})
	size := func() float64 {
		res, err := client.Get(c.instances[0] + "/svc/log/checkpoint")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		lines := strings.Split(string(raw), "\n")
		if len(lines) < 2 {
			t.Fatalf("checkpoint: %q", raw)
		}
		n, err := strconv.ParseFloat(lines[1], 64)
		if err != nil {
			t.Fatalf("checkpoint size %q: %v", lines[1], err)
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	settle := func(want float64) float64 { // the log's size once it reached want and stopped growing
		prev := -1.0
		for time.Now().Before(deadline) {
			n := size()
			if n >= want && n == prev {
				return n
			}
			prev = n
			time.Sleep(400 * time.Millisecond)
		}
		t.Fatalf("the log did not settle at %v or more (%v)", want, prev)
		return 0
	}
	size0 := settle(0)
	leaves0 := c.sumMetric(t, "svc_log_integrated_leaves_total")
	const n = 300
	c.addRecords(t, ns, n)
	size1 := settle(size0 + n)
	leaves1 := c.sumMetric(t, "svc_log_integrated_leaves_total")
	perInstance := make([]float64, len(c.instances))
	for i, u := range c.instances {
		perInstance[i] = metric(t, u, "svc_log_integrated_leaves_total")
	}
	t.Logf("log %v -> %v leaves; integrated by the instances: %v in all (now %v each)", size0, size1, leaves1-leaves0, perInstance)
	if leaves1-leaves0 != size1-size0 {
		t.Fatalf("the instances integrated %v leaves for a log that grew by %v", leaves1-leaves0, size1-size0)
	}
	for time.Now().Before(deadline) {
		mu.Lock()
		got := len(seen)
		mu.Unlock()
		if got >= n {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second) // a duplicate would arrive now
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n {
		t.Fatalf("%d distinct webhook events arrived, want %d", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("event %s arrived %d times", id, k)
		}
	}
}

// A cached lookup on one instance converges after a write through another within the lookup
// cache's TTL plus the replica lag bound (1 s + 2 s in the cluster), without a token; with the
// write's token it is current at once.
func TestCachedLookupsConverge(t *testing.T) {
	c := open(t)
	ns := c.registry(t, "cache")
	a := c.must(t, 201, "POST", c.instances[0]+"/svc/"+ns+"/people/add-record", map[string]any{"record_name": "x", "details": map[string]any{"v": 1}})
	url := c.instances[1] + "/svc/lookup/" + ns + "/people/x"
	for range 100 { // cached on instance 2
		if r, _ := c.do("GET", url, nil, a.token); r.status == 200 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.must(t, 200, "GET", url, nil)
	w := c.must(t, 200, "POST", c.instances[0]+"/svc/"+ns+"/people/x/update-record", map[string]any{"details": map[string]any{"v": 2}})
	want := w.data()["version"]
	began := time.Now()
	for {
		r, err := c.do("GET", url, nil, "")
		if err == nil && r.data()["version"] == want {
			break
		}
		if time.Since(began) > 3*time.Second {
			t.Fatalf("instance 2 still answered the old version %v after %v", r.data()["version"], time.Since(began))
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(began)
	w = c.must(t, 200, "POST", c.instances[0]+"/svc/"+ns+"/people/x/update-record", map[string]any{"details": map[string]any{"v": 3}})
	if r, err := c.do("GET", url, nil, w.token); err != nil || r.data()["version"] != w.data()["version"] {
		t.Fatalf("with the write's token, instance 2 answered %v %v; want %v", r.data()["version"], err, w.data()["version"])
	}
	t.Logf("instance 2 answered the write without a token after %v", took.Round(time.Millisecond))
}
