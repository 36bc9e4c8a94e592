// Package server builds the HTTP service: the echo instance with the generated strict server,
// the contract middleware (authentication, strict JSON, kin-openapi validation) and the
// hand-written handlers, which turn a request into a domain call and its result into a typed
// response. Handlers return expected outcomes as generated response types and anything
// unexpected as an error, which the one error handler answers with 500.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	svc "github.com/svc-directory/svc"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/entries"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/internal/cache"
	"github.com/svc-directory/svc/ownership"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/tlogproof"
	"github.com/svc-directory/svc/trqp"
)

// Config is what the server needs; the binary fills it from its own configuration.
type Config struct {
	Store   *store.Store
	Logger  *slog.Logger
	DIDHost string // host part of did:web identifiers, e.g. localhost%3A8080
	Now     func() time.Time
	// LookupCacheTTL bounds how long a rendered latest-version lookup is served from memory
	// (0 turns the cache off). Writes committed through this instance's store empty it at once
	// (store.OnCommit); writes of other instances sharing the database are seen within this time.
	LookupCacheTTL time.Duration
	// Checker runs the DNS and HTTP checks of domain verification.
	Checker *domainverify.Checker
	// Reverify times the re-verification of verified domains.
	Reverify ReverifyConfig
	// RateLimit limits each client (0 RPS: off).
	RateLimit RateLimit
	// CORSOrigins are the browser origins allowed to call the API ("*" for any; none: no CORS).
	CORSOrigins []string
	// NoMetrics turns the Prometheus metrics off (benchmarks compare with and without).
	NoMetrics bool
	// Collectors are more metrics to serve at /metrics: those of the parts that run beside the
	// server (the transparency log's integrator).
	Collectors []prometheus.Collector
	// LogVerifierKey is the transparency log's verifier key, served at /svc/log/key ("": none).
	LogVerifierKey string
	// LogState is the instance's serving state index (GET /svc/log/state/{id}); nil: the
	// state query answers 503.
	LogState *translog.StateServer
	// LogWitnessKeys are the verifier keys of the log's witnesses, LogWitnessQuorum of whom
	// must cosign a checkpoint: the explorer's verify button checks their cosignatures
	// (docs/explorer.md), GET /svc/log/policy names them, and GET /svc/log/proof/{version}
	// proves against the cosigned checkpoint when there are any.
	LogWitnessKeys   []string
	LogWitnessQuorum int
	// WebhookInsecure (TESTS ONLY, SVC_WEBHOOK_INSECURE) lets watch subscriptions name plain
	// http and loopback webhook URLs.
	WebhookInsecure bool
}

// ReverifyConfig times re-verification (docs/operator-guide.md): sources are checked again every
// Interval; a failing source keeps the domain for Grace; Sweep is how often due sources are
// looked for.
type ReverifyConfig struct {
	Interval, Grace, Sweep time.Duration
}

// Server implements the generated strict server interface.
type Server struct {
	// webhookInsecure: watch subscriptions may name http and loopback URLs (tests only).
	webhookInsecure bool
	store           *store.Store
	log             *slog.Logger
	access          accessWriter // the logger's own writer of the access line (nil: the logger logs it)
	didHost         string
	now             func() time.Time
	ops             map[opKey]*operation
	spec            []byte
	entries         *entries.Service
	cache           *cache.Cache[string, cachedLookup]
	domains         *ownership.Service
	trqp            *trqp.Service
	echo            *echo.Echo
	metrics         *metrics
	limiter         *limiter
	// networkGenesis identifies the deployment's anchoring network (fixed at migration).
	networkGenesis string
	// draining is set once shutdown has begun: /readyz answers 503 from then on.
	draining atomic.Bool
	// The transparency log's reads and verifier key.
	logReader *translog.Reader
	logState  *translog.StateServer
	logKey    string
	// logPolicy is GET /svc/log/policy's text (nil without a log key); logWitnessed: the log
	// has witnesses, so its offline proofs are against the cosigned checkpoint.
	logPolicy    []byte
	logWitnessed bool
	// replicaReads: the store has replicas, which GETs' reads may go to (consistency.go).
	replicaReads bool
	// healthz is /healthz's answer, encoded once.
	healthz gen.HealthzResponseObject
	// origins are the namespaces indexed from DeDi publishers: read-only (dedi.go).
	origins origins
}

var _ gen.StrictServerInterface = (*Server)(nil)

// Echo is the HTTP handler of the server.
func (s *Server) Echo() *echo.Echo { return s.echo }

// Verification is the server's domain-verification workflow (Run: the re-verification sweep).
func (s *Server) Verification() *ownership.Service { return s.domains }

// NewServer builds the server: its echo instance (Echo) and its domain-verification workflow
// (Verification), whose re-verification sweep the caller runs.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: a store is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	doc, err := gen.GetSpec()
	if err != nil {
		return nil, err
	}
	// Validation matches by the echo route, not by the document's servers.
	doc.Servers = openapi3.Servers{}
	ops, err := loadOperations(doc)
	if err != nil {
		return nil, err
	}
	gctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	genesis, err := cfg.Store.NetworkGenesis(gctx)
	if err != nil {
		return nil, fmt.Errorf("server: the store is not migrated: %w", err)
	}
	s := &Server{store: cfg.Store, log: cfg.Logger, didHost: cfg.DIDHost, now: cfg.Now, ops: ops, spec: svc.OpenAPI,
		entries: entries.New(cfg.Store, recordschema.NewCache(4096)), networkGenesis: genesis, cache: newLookupCache(cfg.LookupCacheTTL, 100_000, cfg.Now),
		logReader: translog.NewReader(cfg.Store), logKey: cfg.LogVerifierKey, webhookInsecure: cfg.WebhookInsecure, logState: cfg.LogState}
	if cfg.LogVerifierKey != "" {
		p, err := tlogproof.NewPolicy(cfg.LogVerifierKey, cfg.LogWitnessKeys, cfg.LogWitnessQuorum)
		if err != nil {
			return nil, fmt.Errorf("server: the log's policy: %w", err)
		}
		s.logPolicy, s.logWitnessed = p.Format(), len(cfg.LogWitnessKeys) > 0
	}
	s.access, _ = cfg.Logger.Handler().(accessWriter)
	s.replicaReads = cfg.Store.HasReplicas()
	healthz, err := newHealthzOK()
	if err != nil {
		return nil, err
	}
	s.healthz = healthz // boxed once
	if s.cache != nil {
		// A committed write empties the lookup cache before the writing request is answered
		// (the re-verification sweep's writes too).
		cfg.Store.OnCommit(s.cache.Clear)
	}
	vcfg := ownership.Config{Store: cfg.Store, Logger: cfg.Logger, Now: cfg.Now,
		Interval: cfg.Reverify.Interval, Grace: cfg.Reverify.Grace, Sweep: cfg.Reverify.Sweep,
		Outcome: func(outcome string) {
			if s.metrics != nil {
				s.metrics.reverify.WithLabelValues(outcome).Inc()
			}
		}}
	if cfg.Checker != nil {
		vcfg.Checker = cfg.Checker
	}
	s.domains = ownership.New(vcfg)
	s.trqp = trqp.New(cfg.Store, func(ctx context.Context, namespaceID, registry string) (string, bool, error) {
		f, hosted, err := s.originFile(ctx, namespaceID, registry)
		return f.State, hosted, err
	}, cfg.Now, cfg.LookupCacheTTL)
	// A committed write empties the TRQP caches too (a declaration, a domain, a log index).
	cfg.Store.OnCommit(s.trqp.Clear)

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	// The client address is the connection's: forwarded headers are not trusted by default.
	e.IPExtractor = echo.ExtractIPDirect()
	e.Pre(headAsGet) // HEAD wherever GET: routed, checked and handled as GET
	e.Pre(noSniff)   // X-Content-Type-Options: nosniff on every answer (nosniff.go)
	if len(cfg.CORSOrigins) > 0 {
		// Before routing, so that a preflight of any path is answered here (never a 404/405/500).
		e.Pre(middleware.CORSWithConfig(middleware.CORSConfig{
			AllowOrigins:  cfg.CORSOrigins,
			AllowMethods:  []string{http.MethodGet, http.MethodPost, http.MethodOptions},
			AllowHeaders:  []string{echo.HeaderAuthorization, echo.HeaderContentType, "If-Match", "If-None-Match", consistencyHeader},
			ExposeHeaders: []string{"ETag", "Retry-After", echo.HeaderXRequestID, consistencyHeader},
			MaxAge:        3600,
		}))
	}
	if !cfg.NoMetrics {
		s.metrics = newMetrics(s, cfg.Collectors)
	}
	ids, err := newRequestIDs()
	if err != nil {
		return nil, err
	}
	chain := []echo.MiddlewareFunc{ids.middleware, // from the outermost
		s.observe, // the metrics, and one line per request with the request id
		middleware.RecoverWithConfig(middleware.RecoverConfig{
			DisableStackAll:   true,
			DisablePrintStack: true,
			LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
				s.log.ErrorContext(c.Request().Context(), "panic", "request_id", requestID(c), "error", err, "stack", string(stack))
				return err // answered 500 by the error handler
			},
		}),
	}
	if s.limiter = newLimiter(cfg.RateLimit); s.limiter != nil {
		chain = append(chain, s.rateLimit)
	}
	chain = append(chain, s.contract, s.originReadOnly, s.consistency)
	e.Use(composed(chain...))

	// Handler errors (and parameter binding errors) return through echo's error handler above.
	gen.RegisterHandlers(e, gen.NewStrictHandler(s, nil))
	e.GET("/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/yaml", s.spec)
	})
	if s.metrics != nil {
		e.GET("/metrics", echo.WrapHandler(s.metrics.handler()))
	}
	s.registerDocs(e)
	if err := s.registerExplorer(e, cfg.LogWitnessKeys, cfg.LogWitnessQuorum); err != nil {
		return nil, err
	}
	s.echo = e
	return s, nil
}
