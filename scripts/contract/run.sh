#!/usr/bin/env bash
# make contract: a real `svc serve` on a temporary SQLite database, Stoplight Prism in proxy
# mode in front of it (validating every response against openapi.yaml), and the request corpus
# (corpus.mjs) sent through the proxy. Fails on any response violation, any 5xx, or an operation
# the corpus did not reach. Needs Go, Node.js and the npm dev tools (`npm ci`).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

wait_for() { # url, what, log
	for _ in $(seq 1 300); do
		if node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$1"; then return 0; fi
		sleep 0.1
	done
	echo "$2 did not start; its log:" >&2
	tail -50 "$3" >&2
	exit 1
}

go build -o "$tmp/svc" ./cmd/svc
export SVC_DATABASE_URL="sqlite://$tmp/svc.db"
"$tmp/svc" migrate >/dev/null 2>&1
owner=$("$tmp/svc" key create --email owner@example.com 2>/dev/null)
other=$("$tmp/svc" key create --email other@example.com 2>/dev/null)
"$tmp/svc" domain allow example.com >/dev/null 2>&1

svc_port=$(free_port)
dns_port=$(free_port) # nothing answers there: DNS checks fail fast, nothing leaves the machine
proxy_port=$(free_port)

# Rate limiting off: the corpus is deterministic (429 is checked by the Go tests).
"$tmp/svc" serve --addr "127.0.0.1:$svc_port" --rate-limit-rps 0 --dns-server "127.0.0.1:$dns_port" \
	--verify-http-port "$dns_port" --log-level warn >"$tmp/svc.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$svc_port/readyz" "svc serve" "$tmp/svc.log"

# Prism's own entry point, not npx: npx would leave Prism running as its child when killed.
node_modules/.bin/prism proxy openapi.yaml "http://127.0.0.1:$svc_port" --port "$proxy_port" \
	--errors=false >"$tmp/prism.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$proxy_port/healthz" "prism proxy" "$tmp/prism.log"

status=0
node scripts/contract/corpus.mjs openapi.yaml "http://127.0.0.1:$proxy_port" "$owner" "$other" || status=$?

# Prism's own log, as a second witness: it names every response violation it saw.
logged=$(grep -c 'Violation: response' "$tmp/prism.log" || true)
echo "prism log: $logged response violations"
if [ "$logged" != 0 ]; then
	grep 'Violation: response' "$tmp/prism.log" | head -40
	status=1
fi
if grep -q '"level":"ERROR"' "$tmp/svc.log"; then
	echo "svc logged errors:"
	grep '"level":"ERROR"' "$tmp/svc.log" | head -20
fi
exit "$status"
