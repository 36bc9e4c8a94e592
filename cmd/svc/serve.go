package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/internal/jsonlog"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/webhook"
)

// logInterval is the least time between two integrations of the transparency log: a write
// wakes the integrator at once (store.Listen), and a burst of writes is integrated at most this
// often (a new checkpoint within a second of a write).
const logInterval = 250 * time.Millisecond

// webhookInterval is the least time between two looks of the webhook sender for due events
// when writes wake it.
const webhookInterval = 500 * time.Millisecond

// importInterval is the least time between two looks of the import worker for waiting CSV
// jobs when new jobs wake it.
const importInterval = time.Second

// idlePoll is how often the integrator, the webhook sender and the import worker look for work
// that no wake-up announced (store.Listen: the writes that give them work wake them at once, no
// sooner than their intervals above after their last look): a safety net, so that an idle
// instance queries its database seldom, and so that the work no write announces (the leases of
// an instance that died: its webhook events, its import job) is taken up within that time.
const idlePoll = 10 * time.Second

// witnessInterval is how often the latest checkpoint is offered to the log's witnesses (when it
// grew since the last cosigned one).
const witnessInterval = time.Second

// newLogger returns the JSON logger of a command; level has been checked by parseLogLevel
// (the operator commands pass a constant).
func newLogger(w io.Writer, level string) *slog.Logger {
	l, err := parseLogLevel(level)
	if err != nil {
		l = slog.LevelInfo
	}
	// slog's JSON handler, with the access line of every request written by hand as it would
	// write it (jsonlog).
	return slog.New(jsonlog.New(w, l))
}

// logLinger is how long the log's flusher gathers lines before it writes them (asyncWriter).
const logLinger = 2 * time.Millisecond

// cmdServe checks its configuration and binds the listener before it touches the database
// (a busy port or a missing Postgres log key changes nothing), then migrates, serves until ctx
// ends (SIGINT/SIGTERM), then lets in-flight requests finish within the shutdown timeout.
func cmdServe(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, err := parseServeConfig(args, stderr)
	if err != nil {
		return err
	}
	// The log's lines are gathered and written by one goroutine (the access log's line costs a
	// request no write); the deferred Close, run last, writes every line before serve returns.
	logOut := newAsyncWriter(stderr, 1<<20, logLinger)
	defer logOut.Close()
	log := newLogger(logOut, cfg.LogLevel)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer ln.Close()
	if cfg.PprofAddr != "" {
		if _, err := startPprof(ctx, cfg.PprofAddr, log); err != nil {
			return err
		}
	}
	didFrom := "SVC_DID_HOST"
	if cfg.settleIdentities(ln.Addr()) {
		didFrom = "the listen address (SVC_DID_HOST is unset)"
	}
	log.Info("identities", "did_host", cfg.DIDHost, "did_host_from", didFrom, "log_origin", cfg.LogOrigin)
	logKey, haveKey, err := configuredLogKey(cfg)
	if err != nil {
		return err
	}
	replicaMetrics := store.NewReplicaMetrics()
	st, err := store.Open(ctx, cfg.DatabaseURL, log, store.Options{AuthCacheTTL: cfg.AuthCacheTTL,
		ReplicaURLs: cfg.ReplicaURLs, ReplicaMaxLag: cfg.ReplicaMaxLag, ConsistencyWait: cfg.ConsistencyWait, ReplicaMetrics: replicaMetrics})
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	if !haveKey {
		if logKey, err = embeddedLogKey(ctx, cfg, st, log); err != nil {
			return err
		}
	}
	if origin := logKey.Signer.Name(); origin != cfg.LogOrigin {
		log.Info("transparency log origin: the log keeps its key's origin (SVC_LOG_ORIGIN is unset)", "origin", origin, "derived_origin", cfg.LogOrigin)
	}
	indexes, err := openStateIndexes(cfg, log)
	if err != nil {
		return err
	}
	defer indexes.close()
	integratorIndex, servingIndex := indexes.stores()
	logMetrics := translog.NewMetrics()
	integrator := translog.NewIntegrator(st, logKey, log, nil).WithMetrics(logMetrics).WithStateIndexIn(integratorIndex)
	var witnesser *translog.Witnesser
	if len(cfg.LogWitnesses) > 0 {
		if witnesser, err = translog.NewWitnesser(st, logKey.VerifierKey, cfg.LogWitnesses, cfg.LogWitnessQuorum, log); err != nil {
			return err
		}
		witnesser.WithMetrics(logMetrics)
		// The witnesses' sizes lie outside the database: an instance started after a
		// rollback finds it there (docs/deployment.md).
		integrator.WithOutside(witnesser.Floor)
	}
	// A log found rolled back, or whose witnesses cannot say yet whether it was, is not signed;
	// the instance serves (reads go on) and the integrator says why at each attempt.
	if _, err := integrator.IntegrateOnce(ctx); err != nil && !errors.Is(err, translog.ErrRolledBack) && !errors.Is(err, translog.ErrRollbackUnknown) {
		return err
	} else if err != nil {
		log.Error("transparency log integration failed", "err", err)
	}
	// The serving state index follows the cosigned checkpoint when the log has witnesses, the
	// signed one otherwise (docs/state-index.md, "The serving index").
	var cosigned func(context.Context) (logstore.Cosigned, error)
	if witnesser != nil {
		cosigned = st.LogCosigned
	}
	stateServer := translog.NewStateServerIn(servingIndex, translog.NewReader(st), st, cosigned, log)
	checker := domainverify.NewChecker(domainverify.Config{DNSServer: cfg.DNSServer, DNSTimeout: 5 * time.Second,
		HTTPPort: cfg.VerifyHTTPPort, Insecure: cfg.VerifyInsecure, HTTPTimeout: 10 * time.Second, Logger: log})
	if cfg.VerifyInsecure {
		log.Warn("SVC_VERIFY_INSECURE is on: domain verification accepts plain HTTP and private addresses (tests only)")
	}
	if cfg.WebhookInsecure {
		log.Warn("SVC_WEBHOOK_INSECURE is on: webhooks may be plain HTTP to loopback addresses (tests only)")
	}
	webhookMetrics := webhook.NewMetrics(st, time.Now)
	sender := webhook.NewSender(st, webhook.Config{Logger: log,
		Poster: webhook.NewPoster(webhook.PostOptions{Insecure: cfg.WebhookInsecure, Resolver: domainverify.NewDNSResolver(cfg.DNSServer, 5*time.Second)}),
	}).WithMetrics(webhookMetrics)
	dediMetrics := ingest.NewMetrics(st)
	srvr, err := server.NewServer(server.Config{
		Store:                 st,
		Logger:                log,
		DIDHost:               cfg.DIDHost,
		LookupCacheTTL:        cfg.LookupCacheTTL,
		Checker:               checker,
		Reverify:              server.ReverifyConfig{Interval: cfg.ReverifyInterval, Grace: cfg.ReverifyGrace, Sweep: cfg.ReverifySweep},
		RateLimit:             server.RateLimit{RPS: cfg.RateLimitRPS, Burst: cfg.RateLimitBurst},
		CORSOrigins:           cfg.CORSOrigins,
		LogVerifierKey:        logKey.VerifierKey,
		LogState:              stateServer,
		ExplorerWitnessKeys:   witnessKeys(cfg.LogWitnesses),
		ExplorerWitnessQuorum: cfg.LogWitnessQuorum,
		Collectors:            append(append(append(logMetrics.Collectors(), webhookMetrics.Collectors()...), replicaMetrics.Collectors()...), dediMetrics.Collectors()...),
		WebhookInsecure:       cfg.WebhookInsecure,
	})
	if err != nil {
		return err
	}
	e := srvr.Echo()
	bgctx, stopBackground := context.WithCancel(context.Background())
	defer stopBackground()
	bgDone, logDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(bgDone); srvr.Verification().Run(bgctx) }()
	wakes := st.Listen(bgctx)
	integrator.WithWake(wakes.Log, logInterval)
	go func() { defer close(logDone); integrator.Run(bgctx, idlePoll) }()
	stateDone := make(chan struct{})
	go func() { defer close(stateDone); stateServer.Run(bgctx, logInterval) }()
	webhookDone, importDone := make(chan struct{}), make(chan struct{})
	sender.WithWake(wakes.Webhook, webhookInterval)
	go func() { defer close(webhookDone); sender.Run(bgctx, idlePoll) }()
	importer := csvjob.NewWorker(st, log, nil).WithWake(wakes.Jobs, importInterval)
	go func() { defer close(importDone); importer.Run(bgctx, idlePoll) }()
	dediDone := make(chan struct{})
	crawlCfg := cfg.crawler(st, fetch.New(fetch.Options{DNSServer: cfg.DNSServer, Port: cfg.VerifyHTTPPort, Insecure: cfg.VerifyInsecure}), log)
	crawlCfg.Metrics = dediMetrics
	crawler := ingest.New(crawlCfg)
	go func() { defer close(dediDone); crawler.Run(bgctx, min(cfg.DediCrawlInterval, time.Minute)) }()
	witnessDone := make(chan struct{})
	if witnesser != nil {
		go func() { defer close(witnessDone); witnesser.Run(bgctx, witnessInterval) }()
	} else {
		close(witnessDone)
	}
	srv := newHTTPServer(e, log)
	log.Info("serving", "addr", ln.Addr().String(), "dialect", st.Dialect())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// /readyz answers 503 from now on. The server keeps serving for the drain delay, so that
	// load balancers see it and stop sending traffic, then stops taking connections and lets
	// in-flight requests finish within the shutdown timeout.
	srvr.Drain()
	if cfg.DrainDelay > 0 {
		log.Info("draining", "delay", cfg.DrainDelay.String())
		t := time.NewTimer(cfg.DrainDelay)
		select {
		case <-t.C:
		case err := <-errc:
			t.Stop()
			return err
		}
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	stopBackground()
	<-bgDone
	<-logDone
	<-stateDone
	<-witnessDone
	<-webhookDone
	<-importDone
	<-dediDone
	log.Info("stopped")
	return nil
}

// newHTTPServer sets the connection limits (README, "Operating it"). What net/http refuses by
// them, before the service sees a request, it answers itself in plain text.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10, // net/http allows 4 KiB more
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// witnessKeys are the verifier keys of the log's witnesses, for the explorer's verify button.
func witnessKeys(ws []translog.WitnessConfig) []string {
	keys := make([]string, len(ws))
	for i, w := range ws {
		keys[i] = w.Key
	}
	return keys
}
