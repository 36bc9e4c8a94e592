// Command witness runs the test witness of package witnesstest as a process of its own, for the
// local cluster (scripts/cluster.sh): it witnesses the logs of the verifier keys given, with a
// new key of its own whose cosignature verifier key it writes to -vkey-out, and keeps their
// latest checkpoints in memory. Besides POST /add-checkpoint (C2SP tlog-witness) it answers
// GET /size?origin=ORIGIN with the size of the latest checkpoint of that log it cosigned (0:
// none), for the cluster's tests. It is a tool of tests, not a witness to deploy.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/svc-directory/svc/translog/witnesstest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	name := flag.String("name", "witness.example", "the witness's key name")
	logKeys := flag.String("log-keys", "", "the verifier keys of the logs it witnesses, comma-separated (required)")
	vkeyOut := flag.String("vkey-out", "", "file to write its cosignature verifier key to (required)")
	flag.Parse()
	if *logKeys == "" || *vkeyOut == "" {
		fmt.Fprintln(os.Stderr, "witness: -log-keys and -vkey-out are required")
		os.Exit(2)
	}
	if err := run(*addr, *name, strings.Split(*logKeys, ","), *vkeyOut); err != nil {
		fmt.Fprintln(os.Stderr, "witness:", err)
		os.Exit(1)
	}
}

func run(addr, name string, logKeys []string, vkeyOut string) error {
	w, err := witnesstest.Make(name, logKeys...)
	if err != nil {
		return err
	}
	if err := os.WriteFile(vkeyOut, []byte(w.VerifierKey+"\n"), 0o644); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /add-checkpoint", w)
	mux.HandleFunc("GET /size", func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(rw, w.Latest(r.URL.Query().Get("origin")))
	})
	fmt.Printf("witness %s on %s\n", name, ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}
