package clustertest

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

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
	c.replicasReady(t, 5*time.Second, "after the restart")
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
	c.replicasReady(t, 10*time.Second, "after the replica answered again")
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

// A replica stopped with pg_ctl's fast mode terminates its connections, some of them while a
// read's rows are coming (after the first ones): under a mixed read load (lookups, the log's
// checkpoint, version lists, queries) no read fails; a read the replica broke mid-way runs
// again, whole, on the primary. Three stops and starts.
func TestReplicaStoppedUnderMixedReads(t *testing.T) {
	c := open(t)
	ns := c.registry(t, "replica-stop")
	c.addRecords(t, ns, 200)
	stop := make(chan struct{})
	l := c.startReads(8, stop, func(i int) string {
		switch i % 4 {
		case 0:
			return c.proxy + "/svc/log/checkpoint"
		case 1:
			return fmt.Sprintf("%s/svc/versions/%s/people/r-%d", c.proxy, ns, i%200)
		case 2:
			return fmt.Sprintf("%s/svc/query/%s/people?page_size=100&page=%d", c.proxy, ns, 1+i%2)
		}
		return fmt.Sprintf("%s/svc/lookup/%s/people/r-%d", c.proxy, ns, i%200)
	})
	for range 3 {
		time.Sleep(time.Second)
		c.script(t, "stop", c.dir, "replica2")
		time.Sleep(time.Second)
		c.start(t, "replica2")
	}
	time.Sleep(time.Second)
	close(stop)
	l.wg.Wait()
	t.Logf("%d reads, %d failed", l.ok.Load()+l.failed.Load(), l.failed.Load())
	if l.failed.Load() != 0 {
		t.Fatalf("%d reads failed while a replica was stopped and started: %v", l.failed.Load(), l.firsts)
	}
	c.replicasReady(t, 10*time.Second, "after the restarts")
}
