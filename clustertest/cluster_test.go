package clustertest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

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
