#!/usr/bin/env bash
# The README's walkthrough, as a script: the lines between "walkthrough:begin" and
# "walkthrough:end" are exactly the commands the README shows (a Go test, TestReadmeWalkthrough,
# compares them). It builds bin/svc, serves on a fresh SQLite database in a temporary directory,
# publishes a namespace, a registry and a record with curl, looks the record up and verifies it
# offline, then stops the server. Needs go, make, curl (7.76+ for --fail-with-body) and jq.
#
#   scripts/walkthrough.sh            # or: make walkthrough; PORT=18080 to use another port
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in curl jq make go; do
  command -v "$tool" >/dev/null || { echo "walkthrough: $tool is required" >&2; exit 1; }
done
if curl -s -o /dev/null "http://localhost:${PORT:-8080}/healthz"; then
  echo "walkthrough: something already answers on port ${PORT:-8080}; set PORT to a free one" >&2
  exit 1
fi
cleanup() {
  if [ -n "${SVC_PID:-}" ]; then kill "$SVC_PID" 2>/dev/null || true; wait "$SVC_PID" 2>/dev/null || true; fi
  if [ -n "${WORK:-}" ] && [ "${KEEP:-}" != 1 ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'echo "walkthrough: failed at line $LINENO; server log:" >&2; cat "${WORK:-/dev/null}/svc.log" >&2 || true' ERR

# walkthrough:begin
make build                                               # bin/svc
PORT=${PORT:-8080}; API=http://localhost:$PORT
WORK=$(mktemp -d)                                        # a fresh database and the log go here
export SVC_DATABASE_URL=sqlite://$WORK/svc.db SVC_ADDR=localhost:$PORT
./bin/svc serve 2> "$WORK/svc.log" & SVC_PID=$!
for _ in $(seq 100); do curl -fsS "$API/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
curl --fail-with-body -sS "$API/readyz"; echo

KEY=$(./bin/svc key create --email alice@example.com)   # an API key, printed once
AUTH="Authorization: Bearer $KEY"; JSON='Content-Type: application/json'

NS=$(curl --fail-with-body -sS -X POST "$API/svc/create-namespace" -H "$AUTH" -H "$JSON" \
       -d '{"name":"Acme","description":"Acme Corp"}' | jq -r .data.namespace_id)
echo "namespace: $NS"
curl --fail-with-body -sS -X POST "$API/svc/$NS/create-registry" -H "$AUTH" -H "$JSON" \
     -d '{"registry_name":"employees","tag":"custom","schema":{"type":"object","properties":{"email":{"type":"string"}}}}' \
     | jq '.data | {registry_id, version, proof}'
curl --fail-with-body -sS -X POST "$API/svc/$NS/employees/add-record" -H "$AUTH" -H "$JSON" \
     -d '{"record_name":"alice","details":{"email":"alice@example.com"}}' | jq '.data | {record_id, version}'

curl --fail-with-body -sS "$API/svc/lookup/$NS/employees/alice" > "$WORK/alice.json"   # the record and its proof
jq '.data | {record_name, details, version, proof}' "$WORK/alice.json"
./bin/svc verify --kind record "$WORK/alice.json"        # recomputes the digest offline
curl --fail-with-body -sS "$API/svc/versions/$NS/employees/alice" | jq '.data'   # every version, newest first
curl --fail-with-body -sS "$API/svc/search/$NS?email=alice" | jq '.data'         # search in details

kill $SVC_PID
# walkthrough:end
wait "$SVC_PID" 2>/dev/null || true
SVC_PID=
echo "walkthrough: all steps passed"
