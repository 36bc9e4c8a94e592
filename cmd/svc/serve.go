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

	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

// logInterval is how often the transparency log integrates waiting versions (a new checkpoint
// within a second of a write).
const logInterval = 250 * time.Millisecond

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
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}

// cmdServe migrates, serves until ctx ends (SIGINT/SIGTERM), then lets in-flight requests
// finish within the shutdown timeout.
func cmdServe(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, err := parseServeConfig(args, stderr)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	st, err := store.Open(ctx, cfg.DatabaseURL, log, store.Options{AuthCacheTTL: cfg.AuthCacheTTL})
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	logKey, err := resolveLogKey(cfg, st.Dialect(), log)
	if err != nil {
		return err
	}
	logMetrics := translog.NewMetrics()
	integrator := translog.NewIntegrator(st, logKey, log, nil).WithMetrics(logMetrics)
	if _, err := integrator.IntegrateOnce(ctx); err != nil {
		return err
	}
	var witnesser *translog.Witnesser
	if len(cfg.LogWitnesses) > 0 {
		if witnesser, err = translog.NewWitnesser(st, logKey.VerifierKey, cfg.LogWitnesses, cfg.LogWitnessQuorum, log); err != nil {
			return err
		}
		witnesser.WithMetrics(logMetrics)
	}
	checker := domainverify.NewChecker(domainverify.Config{DNSServer: cfg.DNSServer, DNSTimeout: 5 * time.Second,
		HTTPPort: cfg.VerifyHTTPPort, Insecure: cfg.VerifyInsecure, HTTPTimeout: 10 * time.Second, Logger: log})
	if cfg.VerifyInsecure {
		log.Warn("SVC_VERIFY_INSECURE is on: domain verification accepts plain HTTP and private addresses (tests only)")
	}
	srvr, err := server.NewServer(server.Config{
		Store:          st,
		Logger:         log,
		DIDHost:        cfg.DIDHost,
		LookupCacheTTL: cfg.LookupCacheTTL,
		Checker:        checker,
		Reverify:       server.ReverifyConfig{Interval: cfg.ReverifyInterval, Grace: cfg.ReverifyGrace, Sweep: cfg.ReverifySweep},
		RateLimit:      server.RateLimit{RPS: cfg.RateLimitRPS, Burst: cfg.RateLimitBurst},
		CORSOrigins:    cfg.CORSOrigins,
		LogVerifierKey: logKey.VerifierKey,
		Collectors:     logMetrics.Collectors(),
	})
	if err != nil {
		return err
	}
	e := srvr.Echo()
	bgctx, stopBackground := context.WithCancel(context.Background())
	defer stopBackground()
	bgDone, logDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(bgDone); srvr.Verification().Run(bgctx) }()
	go func() { defer close(logDone); integrator.Run(bgctx, logInterval) }()
	witnessDone := make(chan struct{})
	if witnesser != nil {
		go func() { defer close(witnessDone); witnesser.Run(bgctx, witnessInterval) }()
	} else {
		close(witnessDone)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
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
	<-witnessDone
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
