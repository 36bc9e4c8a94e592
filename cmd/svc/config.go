package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/translog"
)

// Config is every setting of `svc serve` (docs/operator-guide.md): each comes from its environment
// variable and can be overridden by the flag of the same name.
type Config struct {
	Addr        string
	DatabaseURL string
	// ReplicaURLs are Postgres streaming replicas for the reads of GET requests; a replica
	// lagging more than ReplicaMaxLag is skipped, and a read with a consistency token waits
	// up to ConsistencyWait for a replica to reach it before the primary serves it.
	ReplicaURLs      []string
	ReplicaMaxLag    time.Duration
	ConsistencyWait  time.Duration
	DIDHost          string
	DNSServer        string
	VerifyHTTPPort   int
	VerifyInsecure   bool
	WebhookInsecure  bool
	ReverifyInterval time.Duration
	ReverifyGrace    time.Duration
	ReverifySweep    time.Duration
	// DediCrawlInterval is how often each DeDi publisher is crawled at most apart.
	DediCrawlInterval time.Duration
	// DediCrawlBudget bounds the fetching of one publisher's crawl; DediMaxFiles caps the
	// files of a manifest that are fetched; DediCrawlConcurrency is how many publishers are
	// crawled at once (docs/dedi-files.md, "Bounds of a crawl").
	DediCrawlBudget      time.Duration
	DediMaxFiles         int
	DediCrawlConcurrency int
	ShutdownTimeout      time.Duration
	DrainDelay           time.Duration
	LookupCacheTTL       time.Duration
	AuthCacheTTL         time.Duration
	RateLimitRPS         float64
	RateLimitBurst       int
	CORSOrigins          []string
	LogLevel             string
	// PprofAddr is the loopback address of the opt-in profiling listener ("": off).
	PprofAddr  string
	LogKeyFile string
	LogOrigin  string
	// logOriginDerived: SVC_LOG_ORIGIN was unset and LogOrigin follows the DID host.
	logOriginDerived bool
	// LogWitnesses are the transparency log's witnesses; a checkpoint counts as cosigned once
	// LogWitnessQuorum of them cosigned it (default: all of them).
	LogWitnesses     []translog.WitnessConfig
	LogWitnessQuorum int
	// StateIndexDir keeps the log's state index on disk ("": beside an embedded database file,
	// else a temporary directory for the run); StateIndexCacheMB is its block cache.
	StateIndexDir     string
	StateIndexCacheMB int
}

// settleIdentities fills in the settings that follow from the address the listener holds:
// without SVC_DID_HOST the DID host is localhost and the port served (localhost%3A18181 when
// serving on :18181; the port actually bound when the address asks for port 0), and without
// SVC_LOG_ORIGIN the log origin is that host decoded, plus /svc/log. It says whether the
// DID host was derived.
func (c *Config) settleIdentities(bound net.Addr) (derived bool) {
	if c.DIDHost == "" {
		port := "8080"
		if _, p, err := net.SplitHostPort(bound.String()); err == nil {
			port = p
		}
		c.DIDHost, derived = derivedDIDHost(port), true
	}
	if c.LogOrigin == "" {
		c.LogOrigin, c.logOriginDerived = defaultLogOrigin(c.DIDHost), true
	}
	return derived
}

// derivedDIDHost is the DID host of a server that serves port without SVC_DID_HOST.
func derivedDIDHost(port string) string { return "localhost%3A" + port }

// settleDIDHostOffline is settleIdentities for a command that serves nothing (svc dedi crawl):
// the DID host the server derives from the port of SVC_ADDR, which must then name one.
func (c *Config) settleDIDHostOffline() error {
	if c.DIDHost != "" {
		return nil
	}
	_, port, err := net.SplitHostPort(c.Addr)
	if err != nil || port == "" || port == "0" {
		return fmt.Errorf("%w: the server's DID host: set SVC_DID_HOST (svc serve derives it from the port it serves, and SVC_ADDR %q names none)", errUsage, c.Addr)
	}
	c.DIDHost = derivedDIDHost(port)
	return nil
}

// ServerDID is the server's own DID (did:web:{DID host}): the creator of the entries it
// indexes from DeDi publishers, whichever command crawls them.
func (c Config) ServerDID() string { return "did:web:" + c.DIDHost }

// crawler is the DeDi crawler's configuration, the same for svc serve and svc dedi crawl: the
// bounds of a crawl, and the server's DID as the creator of what it indexes.
func (c Config) crawler(st ingest.Store, f ingest.Fetcher, log *slog.Logger) ingest.Config {
	return ingest.Config{Store: st, Fetcher: f, Logger: log, Now: time.Now, Interval: c.DediCrawlInterval, CreatorDID: c.ServerDID(),
		Budget: c.DediCrawlBudget, MaxFiles: c.DediMaxFiles, Concurrency: c.DediCrawlConcurrency}
}

// envOr returns the variable's value, or def when unset or empty.
func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// registerDatabaseFlag is shared by every command that opens the database.
func registerDatabaseFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "database-url", envOr("SVC_DATABASE_URL", "sqlite://svc.db"), "sqlite://PATH (embedded) or postgres://... [SVC_DATABASE_URL]")
}

// parseServeConfig reads the environment, then the flags.
// Help (-h) comes back as flag.ErrHelp after the help text went to out; other errors are
// errUsage.
func parseServeConfig(args []string, out io.Writer) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.Addr, "addr", envOr("SVC_ADDR", ":8080"), "listen address [SVC_ADDR]")
	registerDatabaseFlag(fs, &c.DatabaseURL)
	fs.StringVar(&c.DIDHost, "did-host", envOr("SVC_DID_HOST", ""), "host part of did:web identifiers (default: localhost and the port served, e.g. localhost%3A8080) [SVC_DID_HOST]")
	fs.StringVar(&c.DNSServer, "dns-server", envOr("SVC_DNS_SERVER", ""), "host:port of the DNS server used for domain verification; empty = system resolver [SVC_DNS_SERVER]")
	fs.StringVar(&c.StateIndexDir, "state-index-dir", envOr("SVC_STATE_INDEX_DIR", ""), "directory of the log's state index, this instance's own (default: beside an embedded database file, DB.index; else a temporary directory, rebuilt at each start) [SVC_STATE_INDEX_DIR]")
	indexCache, err := envInt("SVC_STATE_INDEX_CACHE_MB", 32)
	if err != nil {
		return c, err
	}
	fs.IntVar(&c.StateIndexCacheMB, "state-index-cache-mb", indexCache, "the state index's block cache, in MiB, of each of its two stores [SVC_STATE_INDEX_CACHE_MB]")
	fs.StringVar(&c.LogKeyFile, "log-key-file", envOr("SVC_LOG_KEY_FILE", ""), "the transparency log's signer key (svc log key create); required on Postgres, created beside an embedded database when empty [SVC_LOG_KEY_FILE]")
	fs.StringVar(&c.LogOrigin, "log-origin", envOr("SVC_LOG_ORIGIN", ""), "the transparency log's origin (default: the DID host decoded, plus /svc/log) [SVC_LOG_ORIGIN]")
	var witnesses string
	fs.StringVar(&witnesses, "log-witnesses", envOr("SVC_LOG_WITNESSES", ""), "the transparency log's witnesses, comma-separated, each \"VERIFIER_KEY URL\" (C2SP tlog-witness; empty: none) [SVC_LOG_WITNESSES]")
	quorum, err := envInt("SVC_LOG_WITNESS_QUORUM", 0)
	if err != nil {
		return c, err
	}
	fs.IntVar(&c.LogWitnessQuorum, "log-witness-quorum", quorum, "how many witnesses must cosign a checkpoint (0: all of them) [SVC_LOG_WITNESS_QUORUM]")
	fs.StringVar(&c.PprofAddr, "pprof-addr", envOr("SVC_PPROF_ADDR", ""), "loopback host:port of Go's pprof handlers for profiling this instance (empty = off) [SVC_PPROF_ADDR]")
	fs.StringVar(&c.LogLevel, "log-level", envOr("SVC_LOG_LEVEL", "info"), "debug, info, warn or error [SVC_LOG_LEVEL]")
	rps, err := envFloat("SVC_RATE_LIMIT_RPS", 50)
	if err != nil {
		return c, err
	}
	fs.Float64Var(&c.RateLimitRPS, "rate-limit-rps", rps, "requests per second per authenticated API key, else per client address (IPv6: per /64); 0 = off [SVC_RATE_LIMIT_RPS]")
	burst, err := envInt("SVC_RATE_LIMIT_BURST", 100)
	if err != nil {
		return c, err
	}
	fs.IntVar(&c.RateLimitBurst, "rate-limit-burst", burst, "burst allowed above the rate [SVC_RATE_LIMIT_BURST]")
	maxFiles, err := envInt("SVC_DEDI_MAX_FILES", ingest.DefaultMaxFiles)
	if err != nil {
		return c, err
	}
	fs.IntVar(&c.DediMaxFiles, "dedi-max-files", maxFiles, "how many files of a DeDi publisher's manifest are fetched; the entries past it are refused as invalid [SVC_DEDI_MAX_FILES]")
	crawlers, err := envInt("SVC_DEDI_CRAWL_CONCURRENCY", ingest.DefaultConcurrency)
	if err != nil {
		return c, err
	}
	fs.IntVar(&c.DediCrawlConcurrency, "dedi-crawl-concurrency", crawlers, "how many DeDi publishers are crawled at once [SVC_DEDI_CRAWL_CONCURRENCY]")
	var replicas string
	fs.StringVar(&replicas, "database-replica-urls", envOr("SVC_DATABASE_REPLICA_URLS", ""), "comma-separated postgres://... URLs of streaming replicas of the primary, for the reads of GET requests (empty: every read on the primary) [SVC_DATABASE_REPLICA_URLS]")
	var origins string
	fs.StringVar(&origins, "cors-origins", envOr("SVC_CORS_ORIGINS", ""), "comma-separated browser origins allowed by CORS (\"*\" for any; empty: none) [SVC_CORS_ORIGINS]")
	port, err := envInt("SVC_VERIFY_HTTP_PORT", 443)
	if err != nil {
		return c, err
	}
	fs.IntVar(&c.VerifyHTTPPort, "verify-http-port", port, "port for .well-known fetches [SVC_VERIFY_HTTP_PORT]")
	insecure, err := envBool("SVC_VERIFY_INSECURE", false)
	if err != nil {
		return c, err
	}
	fs.BoolVar(&c.VerifyInsecure, "verify-insecure", insecure, "TESTS ONLY: plain HTTP and loopback targets for verification [SVC_VERIFY_INSECURE]")
	webhookInsecure, err := envBool("SVC_WEBHOOK_INSECURE", false)
	if err != nil {
		return c, err
	}
	fs.BoolVar(&c.WebhookInsecure, "webhook-insecure", webhookInsecure, "TESTS ONLY: plain HTTP and loopback webhook URLs for watch subscriptions [SVC_WEBHOOK_INSECURE]")
	for _, d := range []struct {
		dst  *time.Duration
		flag string
		env  string
		def  time.Duration
		help string
	}{
		{&c.ReverifyInterval, "reverify-interval", "SVC_REVERIFY_INTERVAL", 8760 * time.Hour, "how often a verified domain source is checked again"},
		{&c.ReverifyGrace, "reverify-grace", "SVC_REVERIFY_GRACE", 168 * time.Hour, "how long a failing source stays in its grace period"},
		{&c.ReverifySweep, "reverify-sweep", "SVC_REVERIFY_SWEEP", time.Minute, "how often the re-verification sweep looks for due sources"},
		{&c.DediCrawlInterval, "dedi-crawl-interval", "SVC_DEDI_CRAWL_INTERVAL", time.Hour, "how often each DeDi publisher is crawled (sooner when a file's next_update comes)"},
		{&c.DediCrawlBudget, "dedi-crawl-budget", "SVC_DEDI_CRAWL_BUDGET", ingest.DefaultBudget, "how long the fetches of one DeDi publisher's crawl may take; files not fetched by then are unreachable for that crawl"},
		{&c.ShutdownTimeout, "shutdown-timeout", "SVC_SHUTDOWN_TIMEOUT", 15 * time.Second, "how long in-flight requests get to finish on SIGTERM"},
		{&c.DrainDelay, "drain-delay", "SVC_DRAIN_DELAY", 0, "how long the server keeps serving on SIGTERM, with /readyz answering 503, before it stops taking connections"},
		{&c.AuthCacheTTL, "auth-cache-ttl", "SVC_AUTH_CACHE_TTL", time.Second, "how long a successful API-key check is remembered (0 = off; revocations take effect within it)"},
		{&c.ReplicaMaxLag, "replica-max-lag", "SVC_REPLICA_MAX_LAG", 2 * time.Second, "a replica whose replay is further behind the primary is skipped"},
		{&c.ConsistencyWait, "consistency-wait", "SVC_CONSISTENCY_WAIT", 200 * time.Millisecond, "how long a read with an Svc-Consistency-Token waits for a replica to replay past it before the primary serves it"},
		{&c.LookupCacheTTL, "lookup-cache-ttl", "SVC_LOOKUP_CACHE_TTL", time.Second, "how long a rendered latest lookup may be served from memory (0 = off; local writes empty it at once)"},
	} {
		v, err := envDuration(d.env, d.def)
		if err != nil {
			return c, err
		}
		fs.DurationVar(d.dst, d.flag, v, d.help+" ["+d.env+"]")
	}
	if err := parseCommandFlags(fs, args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: serve: unexpected arguments %q", errUsage, fs.Args())
	}
	if _, err := parseLogLevel(c.LogLevel); err != nil {
		return c, fmt.Errorf("%w: serve: %v", errUsage, err)
	}
	if c.PprofAddr != "" {
		if err := checkPprofAddr(c.PprofAddr); err != nil {
			return c, err
		}
	}
	if c.LogWitnesses, err = translog.ParseWitnesses(witnesses); err != nil {
		return c, fmt.Errorf("%w: serve: %v", errUsage, err)
	}
	if c.LogWitnessQuorum == 0 {
		c.LogWitnessQuorum = len(c.LogWitnesses)
	}
	if c.LogWitnessQuorum < 0 || c.LogWitnessQuorum > len(c.LogWitnesses) {
		return c, fmt.Errorf("%w: serve: the witness quorum %d is not between 1 and the %d witnesses", errUsage, c.LogWitnessQuorum, len(c.LogWitnesses))
	}
	for _, u := range strings.Split(replicas, ",") {
		if u = strings.TrimSpace(u); u != "" {
			c.ReplicaURLs = append(c.ReplicaURLs, u)
		}
	}
	if len(c.ReplicaURLs) > 0 && !strings.HasPrefix(c.DatabaseURL, "postgres") {
		return c, fmt.Errorf("%w: serve: replicas (SVC_DATABASE_REPLICA_URLS) need a Postgres primary (SVC_DATABASE_URL)", errUsage)
	}
	for _, o := range strings.Split(origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.CORSOrigins = append(c.CORSOrigins, o)
		}
	}
	if !strings.HasPrefix(c.DatabaseURL, "sqlite://") && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return c, fmt.Errorf("%w: serve: the database URL must be sqlite://PATH or postgres://... (SVC_DATABASE_URL)", errUsage)
	}
	if c.DediMaxFiles <= 0 || c.DediCrawlConcurrency <= 0 {
		return c, fmt.Errorf("%w: serve: SVC_DEDI_MAX_FILES and SVC_DEDI_CRAWL_CONCURRENCY must be positive", errUsage)
	}
	if c.RateLimitRPS < 0 || c.RateLimitBurst < 0 {
		return c, fmt.Errorf("%w: serve: rate limits must not be negative", errUsage)
	}
	if c.ReverifyInterval <= 0 || c.DediCrawlInterval <= 0 || c.DediCrawlBudget <= 0 || c.ReverifyGrace < 0 || c.ReverifySweep <= 0 || c.ShutdownTimeout <= 0 || c.DrainDelay < 0 || c.LookupCacheTTL < 0 || c.AuthCacheTTL < 0 ||
		c.ReplicaMaxLag <= 0 || c.ConsistencyWait <= 0 {
		return c, fmt.Errorf("%w: serve: durations must be positive", errUsage)
	}
	if c.StateIndexCacheMB < 1 {
		return c, fmt.Errorf("%w: serve: --state-index-cache-mb must be 1 or more", errUsage)
	}
	return c, nil
}

func envInt(name string, def int) (int, error) {
	v := envOr(name, "")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not a whole number", name, v)
	}
	return n, nil
}

func envFloat(name string, def float64) (float64, error) {
	v := envOr(name, "")
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not a number", name, v)
	}
	return f, nil
}

func envBool(name string, def bool) (bool, error) {
	v := envOr(name, "")
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: not a boolean", name, v)
	}
	return b, nil
}

func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := envOr(name, "")
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not a duration (e.g. 8760h, 1m)", name, v)
	}
	return d, nil
}

// parseLogLevel accepts debug, info, warn and error (any case).
func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q: want debug, info, warn or error (SVC_LOG_LEVEL, --log-level)", s)
}
