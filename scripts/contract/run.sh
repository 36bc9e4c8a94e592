#!/usr/bin/env bash
# make contract: a real `svc serve` on a temporary SQLite database, Stoplight Prism in proxy
# mode in front of it (validating every response against openapi.yaml), and the request corpus
# (corpus.mjs) sent through the proxy. Fails on any response violation, any 5xx, or an operation
# the corpus did not reach. Then the declared 503s (unavailable.mjs): a second `svc serve`, on a
# Postgres database of its own (on the server of SVC_TEST_DATABASE_URL) reached through a TCP
# relay (relay.mjs) that is cut once it serves, behind a second Prism: every operation must
# answer 503 primary_unavailable with Retry-After, without a violation. Needs Go, Node.js, the
# npm dev tools (`npm ci`), and Postgres with psql (without them the 503 part is skipped, loudly;
# in CI it fails).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
pids=()
pgdb=""
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	if [ -n "$pgdb" ]; then psql "$pg_base" -qc "DROP DATABASE IF EXISTS $pgdb WITH (FORCE)" >/dev/null 2>&1 || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
# set -e stops quietly: say which line did
trap 'echo "scripts/contract/run.sh: line $LINENO failed (exit $?)" >&2' ERR

run_or_show() { # log, command...: runs the command with its output in log; shows the log if it fails
	local log=$1
	shift
	"$@" >"$log" 2>&1 || { local rc=$?; echo "failed ($rc): $*" >&2; cat "$log" >&2; exit 1; }
}

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
run_or_show "$tmp/migrate.log" "$tmp/svc" migrate
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

# The declared 503s: a service on Postgres whose primary is then unreachable.
pg_base=${SVC_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
if ! command -v psql >/dev/null || ! psql "$pg_base" -qAtc 'SELECT 1' >/dev/null 2>&1; then
	echo "SKIPPED: the 503 corpus needs Postgres and psql (SVC_TEST_DATABASE_URL: $pg_base is not reachable)"
	[ "${CI:-}" != true ] || status=1
	exit "$status"
fi
pgdb="contract_$(date +%s)_$$"
psql "$pg_base" -qc "CREATE DATABASE $pgdb" >/dev/null
relay_port=$(free_port)
pg_hostport=$(node -e 'console.log(new URL(process.argv[1]).host || "127.0.0.1:5432")' "$pg_base")
node scripts/contract/relay.mjs "$relay_port" "${pg_hostport%:*}" "${pg_hostport##*:}" >"$tmp/relay.log" 2>&1 &
relay=$!
pids+=("$relay")
# The relay must listen before anything connects through it (a loaded machine starts node slowly).
for _ in $(seq 1 300); do grep -q '^listening' "$tmp/relay.log" && break; sleep 0.1; done
grep -q '^listening' "$tmp/relay.log" || { echo "the Postgres relay did not start; its log:" >&2; cat "$tmp/relay.log" >&2; exit 1; }
relayed=$(node -e 'const u = new URL(process.argv[1]); u.host = "127.0.0.1:" + process.argv[2]; u.pathname = "/" + process.argv[3]; console.log(u.href)' "$pg_base" "$relay_port" "$pgdb")
"$tmp/svc" log key create --origin contract.example/svc/log --out "$tmp/pg-log.key" >/dev/null
run_or_show "$tmp/pg-migrate.log" env SVC_DATABASE_URL="$relayed" "$tmp/svc" migrate
pg_key=$(SVC_DATABASE_URL=$relayed "$tmp/svc" key create --email owner@example.com 2>"$tmp/pg-key.log") ||
	{ echo "svc key create on Postgres failed:" >&2; cat "$tmp/pg-key.log" >&2; exit 1; }
pg_port=$(free_port)
pg_proxy_port=$(free_port)
SVC_DATABASE_URL=$relayed SVC_LOG_KEY_FILE=$tmp/pg-log.key SVC_LOG_ORIGIN=contract.example/svc/log \
	"$tmp/svc" serve --addr "127.0.0.1:$pg_port" --rate-limit-rps 0 --dns-server "127.0.0.1:$dns_port" \
	--log-level warn >"$tmp/svc-pg.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$pg_port/readyz" "svc serve on Postgres" "$tmp/svc-pg.log"
kill "$relay" # the primary is unreachable from now on: its connections break, new ones are refused
for _ in $(seq 1 100); do
	node -e 'fetch(process.argv[1]).then(r=>process.exit(r.status===503?0:1),()=>process.exit(1))' "http://127.0.0.1:$pg_port/readyz" && break
	sleep 0.1
done
node_modules/.bin/prism proxy openapi.yaml "http://127.0.0.1:$pg_port" --port "$pg_proxy_port" \
	--errors=false >"$tmp/prism-pg.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$pg_proxy_port/healthz" "prism proxy (Postgres)" "$tmp/prism-pg.log"
node scripts/contract/unavailable.mjs openapi.yaml "http://127.0.0.1:$pg_proxy_port" "$pg_key" || status=1
logged=$(grep -c 'Violation: response' "$tmp/prism-pg.log" || true)
echo "prism log (unavailable primary): $logged response violations"
if [ "$logged" != 0 ]; then
	grep 'Violation: response' "$tmp/prism-pg.log" | head -40
	status=1
fi
exit "$status"
