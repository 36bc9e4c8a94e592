//go:build benchhttp

package httpbench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/store"
)

// The data set: 100,000 records over 10 registries (storetest.SeededNamespaceAt), seeded once
// and kept (the Postgres schema svc_bench_http_100000, the SQLite file of the same name in the
// temp directory).
const (
	dataName       = "svc_bench_http_100000"
	records, regs  = 100_000, 10
	logOrigin      = "bench.example/svc/log"
	pgbenchDB      = "svc_bench_pgbench"
	clients        = "16"
	neverReachedRL = "10000000"
)

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return d
	}
	return def
}

// TestBenchHTTP is make bench-http. BENCH_HTTP_RUNS (default 3) runs of BENCH_HTTP_DURATION
// (default 6s) per phase (BENCH_HTTP_SVC_BIN: a prebuilt svc instead of this tree's); each run measures every phase once, in turn, so that the ratios of a
// run are taken under the same load of the machine.
func TestBenchHTTP(t *testing.T) {
	for _, tool := range []string{"wrk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is required (apt-get install -y wrk)", tool)
		}
	}
	pgbench := findPgbench(t)
	runs := 3
	if v := os.Getenv("BENCH_HTTP_RUNS"); v != "" {
		runs, _ = strconv.Atoi(v)
	}
	dur := envDuration(t, "BENCH_HTTP_DURATION", 6*time.Second)
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	svcBin, echoBin := filepath.Join(dir, "svc"), filepath.Join(dir, "echobase")
	if bin := os.Getenv("BENCH_HTTP_SVC_BIN"); bin != "" {
		svcBin = bin // another build of svc (a comparison with an earlier commit)
	} else {
		run(t, root, "go", "build", "-o", svcBin, "./cmd/svc")
	}
	run(t, root, "go", "build", "-o", echoBin, "./bench/echobase")

	// The data, on both dialects.
	pgStore, pgNS := storetest.SeededNamespaceAt(t, store.DialectPostgres, dataName, records, regs)
	_ = pgStore.Close()
	sqStore, sqNS := storetest.SeededNamespaceAt(t, store.DialectSQLite, dataName, records, regs)
	_ = sqStore.Close()
	pgURL, _ := testdb.PersistentSchema(t, dataName)
	sqURL := "sqlite://" + storetest.SeededSQLitePath(dataName)
	setupPgbench(t, pgbench)

	key := filepath.Join(dir, "log.key")
	run(t, root, svcBin, "log", "key", "create", "--origin", logOrigin, "--out", key)
	start := func(name, dbURL, rps string) string {
		return startSvc(t, svcBin, dir, name, dbURL, key, rps)
	}
	pg, pgRL := start("pg", pgURL, "0"), start("pg-rl", pgURL, neverReachedRL)
	sq, sqRL := start("sqlite", sqURL, "0"), start("sqlite-rl", sqURL, neverReachedRL)
	for _, base := range []string{pg, sq} {
		waitLogIntegrated(t, base)
	}

	hot := fmt.Sprintf("/svc/lookup/%s/r0/%s", pgNS, storetest.PersonName(0))
	body := get(t, pg+hot)
	bodyFile := filepath.Join(dir, "body.json")
	if err := os.WriteFile(bodyFile, body, 0o600); err != nil {
		t.Fatal(err)
	}
	echoBase := startEcho(t, echoBin, bodyFile)
	pgScript, sqScript := uniformScript(t, dir, "pg", pgNS), uniformScript(t, dir, "sq", sqNS)

	type row struct{ name, base, path, script string }
	rows := []row{
		{"svc /healthz", pg, "/healthz", ""},
		{"svc /healthz, rate limiter on", pgRL, "/healthz", ""},
		{"svc hot cached lookup", pg, hot, ""},
		{"svc hot cached lookup, rate limiter on", pgRL, hot, ""},
		{"svc uniform lookup, Postgres", pg, "/", pgScript},
		{"svc uniform lookup, Postgres, rate limiter on", pgRL, "/", pgScript},
		{"svc uniform lookup, SQLite", sq, "/", sqScript},
		{"svc uniform lookup, SQLite, rate limiter on", sqRL, "/", sqScript},
	}
	type result struct {
		echo, echoCPU, pgb float64
		rps, cpu           []float64
	}
	var results []result
	for i := 0; i < runs; i++ {
		var r result
		r.echo, r.echoCPU = wrk(t, echoBase, hot, "", dur)
		r.pgb = runPgbench(t, pgbench, dur)
		for _, w := range rows {
			rps, cpu := wrk(t, w.base, w.path, w.script, dur)
			r.rps, r.cpu = append(r.rps, rps), append(r.cpu, cpu)
		}
		results = append(results, r)
		floor := 1 / (1/r.echo + 1/r.pgb)
		var b strings.Builder
		fmt.Fprintf(&b, "\nrun %d of %d (wrk -t2 -c%s -d%s; pgbench -S -M prepared -c%s -j2)\n", i+1, runs, clients, dur, clients)
		fmt.Fprintf(&b, "| %-48s | %9s | %-44s | %s |\n", "What", "req/s", "against its ceiling", "server CPU µs/req")
		fmt.Fprintf(&b, "|%s|%s|%s|%s|\n", strings.Repeat("-", 50), strings.Repeat("-", 11), strings.Repeat("-", 46), strings.Repeat("-", 19))
		fmt.Fprintf(&b, "| %-48s | %9.0f | %-44s | %17.1f |\n", "echo, the same body from memory (HTTP ceiling)", r.echo, "1.00", r.echoCPU)
		fmt.Fprintf(&b, "| %-48s | %9.0f | %-44s | %17s |\n", "pgbench -S -M prepared (database ceiling, tps)", r.pgb, "-", "-")
		fmt.Fprintf(&b, "| %-48s | %9.0f | %-44s | %17s |\n", "composed floor 1/(1/echo + 1/pgbench)", floor, "1.00", "-")
		for j, w := range rows {
			ratio := fmt.Sprintf("%.2f of echo", r.rps[j]/r.echo)
			if w.script != "" {
				ratio = fmt.Sprintf("%.2f of the composed floor", r.rps[j]/floor)
			}
			if w.name == "svc uniform lookup, SQLite" {
				ratio += fmt.Sprintf(" (%.2f of Postgres)", r.rps[j]/r.rps[4])
			}
			fmt.Fprintf(&b, "| %-48s | %9.0f | %-44s | %17.1f |\n", w.name, r.rps[j], ratio, r.cpu[j])
		}
		fmt.Println(b.String())
	}
}

// run runs a command in dir and fails the test with its output when it fails.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func findPgbench(t *testing.T) string {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	if len(m) == 0 {
		t.Fatal("pgbench is required (it comes with the Postgres server, /usr/lib/postgresql/*/bin)")
	}
	return m[len(m)-1]
}

// pgArgs are pgbench's connection arguments for the database db on the test server.
func pgArgs(t *testing.T, db string) []string {
	conn := testdb.RequirePostgres(t)
	cfg := conn.Config()
	_ = conn.Close(context.Background())
	return []string{"-h", cfg.Host, "-p", strconv.Itoa(int(cfg.Port)), "-U", cfg.User, db}
}

// setupPgbench makes the pgbench database (scale 1: 100,000 accounts) once.
func setupPgbench(t *testing.T, pgbench string) {
	conn := testdb.RequirePostgres(t)
	ctx := context.Background()
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, pgbenchDB).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		return
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgbenchDB); err != nil {
		t.Fatal(err)
	}
	run(t, ".", pgbench, append([]string{"-i", "-s", "1", "-q"}, pgArgs(t, pgbenchDB)...)...)
}

var tpsRe = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

func runPgbench(t *testing.T, pgbench string, dur time.Duration) float64 {
	args := append([]string{"-S", "-M", "prepared", "-c", clients, "-j", "2", "-n", "-T", strconv.Itoa(int(dur.Seconds()))}, pgArgs(t, pgbenchDB)...)
	out := run(t, ".", pgbench, args...)
	m := tpsRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("pgbench: no tps in:\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

var rpsRe = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

// wrk runs wrk against url (with a Lua script, when given) and returns the requests per second;
// any answer that is not 2xx or 3xx fails the test (a limiter that limits, a lookup that misses).
func wrk(t *testing.T, base, path, script string, dur time.Duration) (rps, cpuUS float64) {
	url := base + path
	before := cpuTime(t, pids[base])
	args := []string{"-t2", "-c" + clients, "-d" + dur.String()}
	if script != "" {
		args = append(args, "-s", script)
	}
	out := run(t, ".", "wrk", append(args, url)...)
	if strings.Contains(out, "Non-2xx") || strings.Contains(out, "Socket errors") {
		t.Fatalf("wrk %s: errors:\n%s", url, out)
	}
	cpu := cpuTime(t, pids[base]) - before
	m := rpsRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("wrk: no Requests/sec in:\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v, float64(cpu.Microseconds()) / (v * dur.Seconds())
}

// uniformScript writes the wrk script of lookups drawn uniformly over the data set.
func uniformScript(t *testing.T, dir, name, nsID string) string {
	p := filepath.Join(dir, name+".lua")
	src := fmt.Sprintf(`math.randomseed(os.time())
request = function()
  local i = math.random(0, %d)
  return wrk.format("GET", string.format("/svc/lookup/%s/r%%d/person-%%07d", i %% %d, i))
end
`, records-1, nsID, regs)
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// pids are the processes serving each base URL, for their CPU time.
var pids = map[string]int{}

// cpuTime is the user and system time a process has used (/proc/PID/stat).
func cpuTime(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startSvc starts svc serve on dbURL, its log in dir/name.log, and waits for /healthz.
func startSvc(t *testing.T, bin, dir, name, dbURL, key, rps string) string {
	addr := freeAddr(t)
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "SVC_DATABASE_URL="+dbURL, "SVC_ADDR="+addr, "SVC_LOG_KEY_FILE="+key,
		"SVC_LOG_ORIGIN="+logOrigin, "SVC_RATE_LIMIT_RPS="+rps, "SVC_LOG_LEVEL=info")
	if p := os.Getenv("BENCH_HTTP_PPROF_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))); p != "" {
		cmd.Env = append(cmd.Env, "SVC_PPROF_ADDR="+p)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		_ = logf.Close()
	})
	base := "http://" + addr
	pids[base] = cmd.Process.Pid
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logf.Name())
			t.Fatalf("%s did not come up: %v\n%s", name, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startEcho starts the echo baseline and returns its base URL.
func startEcho(t *testing.T, bin, bodyFile string) string {
	cmd := exec.Command(bin, "-body", bodyFile)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + strings.TrimSpace(addr)
	pids[base] = cmd.Process.Pid
	return base
}

func get(t *testing.T, url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, b)
	}
	return b
}

// waitLogIntegrated waits until the log's checkpoint stops growing: the first start on the
// seeded data integrates its 100,000 leaves, which must not weigh on the figures.
func waitLogIntegrated(t *testing.T, base string) {
	last, same := "", 0
	deadline := time.Now().Add(10 * time.Minute)
	for same < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the log kept growing for 10 minutes")
		}
		time.Sleep(time.Second)
		resp, err := http.Get(base + "/svc/log/checkpoint")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		lines := strings.SplitN(string(b), "\n", 3)
		if len(lines) > 1 && lines[1] == last {
			same++
		} else if len(lines) > 1 {
			last, same = lines[1], 0
		}
	}
}
