// Package httpbench holds make bench-http (httpbench_test.go, build tag benchhttp): the
// service's HTTP throughput set side by side against an echo instance serving the same body
// from memory (bench/echobase) and against pgbench, in one run, repeated. It is not part of
// make test: it needs wrk and pgbench, and takes minutes.
package httpbench
