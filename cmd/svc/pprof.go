package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// The opt-in profiling listener (SVC_PPROF_ADDR): Go's pprof handlers on an address of their
// own, never on the API's, so that an operator can profile a running instance (go tool pprof
// http://ADDR/debug/pprof/profile) without exposing them to the API's clients. Off by default,
// and only on a loopback address: a profile shows the process's memory.

// checkPprofAddr refuses an SVC_PPROF_ADDR that is not a loopback host and a port.
func checkPprofAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: SVC_PPROF_ADDR %q: %v", errUsage, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%w: SVC_PPROF_ADDR %q: the profiling listener takes a loopback address only (127.0.0.1, ::1 or localhost)", errUsage, addr)
	}
	return nil
}

// startPprof listens on addr (a loopback host and a port) and serves the pprof handlers until
// ctx ends. It returns the address bound, for a port 0.
func startPprof(ctx context.Context, addr string, log *slog.Logger) (string, error) {
	if err := checkPprofAddr(addr); err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("pprof listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof listener stopped", "error", err)
		}
	}()
	bound := ln.Addr().String()
	log.Info("pprof listening", "addr", bound)
	return bound, nil
}
