#!/usr/bin/env bash
# A local cluster on real parts, all its state under DIR (docs/deployment.md):
#   - a Postgres primary (initdb'd under DIR, its own port), with WAL for streaming replicas;
#   - REPLICAS streaming replicas (pg_basebackup -R, their own ports), run as the postgres user;
#   - a test witness of the transparency log (translog/witnesstest/witness), which every
#     instance submits its checkpoints to (SVC_LOG_WITNESSES);
#   - INSTANCES `svc serve` processes on the primary, reading from the replicas;
#   - HAProxy in front, health-checking /readyz (the instance can read), round robin.
#
#   scripts/cluster.sh up DIR        # check its ports are free, build bin/svc, start everything, write DIR/env
#   scripts/cluster.sh down DIR      # stop everything (DIR stays: its logs are in DIR/logs)
#   scripts/cluster.sh start DIR NAME    # start one stopped process again: replicaN or svcN
#   scripts/cluster.sh stop DIR NAME     # stop one: replicaN or svcN
#   scripts/cluster.sh failover DIR      # promote replica1 (or the replica furthest ahead); re-point the others to follow it
#
# DIR/env holds PROXY_URL, INSTANCE_URLS, PRIMARY_URL and REPLICA_URLS (comma-separated),
# API_KEY (an API key of admin@example.com), LOG_VERIFIER_KEY, and WITNESS_URL and WITNESS_KEY
# (the witness's cosignature verifier key); DIR/pids/NAME.pid holds each process's pid
# (primary, replica1.., witness, svc1.., haproxy). Settings, from the environment:
#   REPLICAS (2), INSTANCES (3), PORT_BASE (25430: the primary on it, the replicas after it,
#   the witness on PORT_BASE+49, the proxy on PORT_BASE+50, the instances after the proxy), PG_BIN (the newest
#   /usr/lib/postgresql/*/bin), REPLICA_MAX_LAG (2s), LOOKUP_CACHE_TTL (1s), SYNC (0; 1:
#   synchronous replication, synchronous_standby_names = 'ANY 1 (...)' of the other nodes, so
#   that an acknowledged write is on a standby; written to DIR/env).
# The instances name every node in SVC_DATABASE_URL (target_session_attrs=read-write: the pool
# finds the primary after a promotion) and in SVC_DATABASE_REPLICA_URLS (the standbys among
# them serve reads).
# Needs: Postgres server binaries, haproxy, go, curl; run as root (the Postgres processes run as
# the postgres user) or as the postgres user.
set -euo pipefail
cd "$(dirname "$0")/.."

cmd=${1:-}; DIR=${2:-}
[ -n "$cmd" ] && [ -n "$DIR" ] || { sed -n '2,29p' "$0" >&2; exit 2; }
REPLICAS=${REPLICAS:-2}; INSTANCES=${INSTANCES:-3}; PORT_BASE=${PORT_BASE:-25430}
for v in REPLICAS INSTANCES PORT_BASE; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "cluster: $v=${!v} is not a number" >&2; exit 2; }
done
if [ "$cmd" = up ]; then mkdir -p "$DIR"; fi
[ -d "$DIR" ] && DIR=$(cd "$DIR" && pwd)
if [ "$cmd" != up ] && [ -f "$DIR/env" ]; then # the ports and replicas it was brought up with
  PORT_BASE=$(sed -n 's/^PORT_BASE=//p' "$DIR/env"); PORT_BASE=${PORT_BASE:-25430}
  REPLICAS=$(sed -n 's/^REPLICAS=//p' "$DIR/env"); REPLICAS=${REPLICAS:-2}
fi
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}
PRIMARY_PORT=$PORT_BASE
PROXY_PORT=$((PORT_BASE + 50))
WITNESS_PORT=$((PORT_BASE + 49))
replica_port() { echo $((PORT_BASE + $1)); }
# sync_standbys: SYNC=1's setting, naming every node (a standby's cluster_name is its
# application_name), so that it holds for whichever node is the primary, after a failover too.
sync_standbys() {
  local names=primary r
  for r in $(seq 1 "$REPLICAS"); do names+=", replica$r"; done
  echo "synchronous_standby_names = 'ANY 1 ($names)'"
}
node_url() { echo "postgres://postgres@127.0.0.1:$1/svc?sslmode=disable"; }
# every_node: the hosts of every node, for a multi-host URL.
every_node() {
  local hosts="127.0.0.1:$PRIMARY_PORT" r
  for r in $(seq 1 "$REPLICAS"); do hosts+=",127.0.0.1:$(replica_port "$r")"; done
  echo "$hosts"
}
svc_port() { echo $((PROXY_PORT + $1)); }

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_start() { # NAME: start the Postgres of DIR/pg/NAME and record its postmaster's pid
  local name=$1
  as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg/$name" -l "$DIR/logs/$name.log" -w -t 60 start >/dev/null
  head -n1 "$DIR/pg/$name/postmaster.pid" > "$DIR/pids/$name.pid"
}

svc_start() { # N: start instance N and wait for its /readyz
  local n=$1 port; port=$(svc_port "$n")
  local replicas=("$(node_url "$PRIMARY_PORT")")
  for r in $(seq 1 "$REPLICAS"); do replicas+=("$(node_url "$(replica_port "$r")")"); done
  (
    export SVC_ADDR=127.0.0.1:$port
    export SVC_DATABASE_URL="postgres://postgres@$(every_node)/svc?sslmode=disable&target_session_attrs=read-write&connect_timeout=2"
    SVC_DATABASE_REPLICA_URLS=$(IFS=,; echo "${replicas[*]}"); export SVC_DATABASE_REPLICA_URLS
    export SVC_REPLICA_MAX_LAG=${REPLICA_MAX_LAG:-2s} SVC_LOOKUP_CACHE_TTL=${LOOKUP_CACHE_TTL:-1s}
    export SVC_LOG_KEY_FILE=$DIR/log.key SVC_LOG_ORIGIN=cluster.example/svc/log SVC_DID_HOST=cluster.example
    SVC_LOG_WITNESSES="$(cat "$DIR/witness.vkey") http://127.0.0.1:$WITNESS_PORT"; export SVC_LOG_WITNESSES
    export SVC_RATE_LIMIT_RPS=0 SVC_WEBHOOK_INSECURE=true SVC_SHUTDOWN_TIMEOUT=5s
    export SVC_STATE_INDEX_DIR=$DIR/index/svc$n # each instance's own, kept across its restarts
    exec "$DIR/bin/svc" serve >> "$DIR/logs/svc$n.log" 2>&1
  ) &
  echo $! > "$DIR/pids/svc$n.pid"
  for _ in $(seq 1 150); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$DIR/pids/svc$n.pid")" 2>/dev/null || break
    sleep 0.1
  done
  echo "cluster: svc$n did not become ready; its log:" >&2
  tail -n 30 "$DIR/logs/svc$n.log" >&2
  return 1
}

# ports_free: every port the cluster would listen on is free on 127.0.0.1, or it says which is
# taken (by what, when ss can tell) and how to move the cluster.
ports_free() {
  [ "$PORT_BASE" -ge 1024 ] && [ $((PROXY_PORT + INSTANCES)) -le 65535 ] \
    || { echo "cluster: PORT_BASE=$PORT_BASE: want a number from 1024 on, with PORT_BASE+50+INSTANCES at most 65535" >&2; exit 1; }
  local busy=0 port what
  local -a all=("$PRIMARY_PORT:the primary" "$PROXY_PORT:HAProxy" "$WITNESS_PORT:the witness")
  for r in $(seq 1 "$REPLICAS"); do all+=("$(replica_port "$r"):replica$r"); done
  for n in $(seq 1 "$INSTANCES"); do all+=("$(svc_port "$n"):svc$n"); done
  for entry in "${all[@]}"; do
    port=${entry%%:*}; what=${entry#*:}
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "cluster: port $port (for $what) is in use$(command -v ss >/dev/null && ss -Hltnp "sport = :$port" 2>/dev/null | awk '{print ": " $NF; exit}')" >&2
      busy=1
    fi
  done
  [ "$busy" = 0 ] || { echo "cluster: choose other ports with PORT_BASE (now $PORT_BASE; the cluster uses PORT_BASE..PORT_BASE+$REPLICAS and PORT_BASE+49..PORT_BASE+$((50 + INSTANCES))), e.g. PORT_BASE=$((PORT_BASE + 1000)) $0 up DIR" >&2; exit 1; }
}

up() {
  ports_free
  for tool in haproxy curl go; do command -v "$tool" >/dev/null || { echo "cluster: $tool is required" >&2; exit 1; }; done
  [ -x "$PG_BIN/initdb" ] || { echo "cluster: no Postgres server binaries (PG_BIN=$PG_BIN)" >&2; exit 1; }
  [ ! -e "$DIR/pg" ] || { echo "cluster: $DIR/pg exists: run down, or use a new DIR" >&2; exit 1; }
  mkdir -p "$DIR/pg" "$DIR/logs" "$DIR/pids" "$DIR/bin"
  chmod 755 "$DIR"
  [ "$(id -u)" != 0 ] || chown postgres "$DIR/pg" "$DIR/logs"
  go build -o "$DIR/bin/svc" ./cmd/svc
  go build -o "$DIR/bin/witness" ./translog/witnesstest/witness

  # The primary: trust on loopback (replication included), WAL for REPLICAS standbys.
  as_pg "$PG_BIN/initdb" -D "$DIR/pg/primary" -U postgres -A trust --no-sync >/dev/null
  cat >> "$DIR/pg/primary/postgresql.conf" <<EOF
port = $PRIMARY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR/pg'
wal_level = replica
max_wal_senders = 10
wal_keep_size = 512MB
hot_standby = on
hot_standby_feedback = on
max_connections = 200
shared_buffers = 128MB
shared_preload_libraries = 'pg_stat_statements'
wal_log_hints = on
cluster_name = 'primary'
EOF
  pg_start primary
  as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres svc
  # Which server runs which queries (make cluster-bench reads it on each).
  as_pg "$PG_BIN/psql" -q -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -d svc -c 'CREATE EXTENSION pg_stat_statements' >/dev/null

  # The replicas: a base backup each, streaming from the primary.
  for r in $(seq 1 "$REPLICAS"); do
    as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$DIR/pg/replica$r" -R -X stream -c fast
    printf "port = %s\ncluster_name = 'replica%s'\n" "$(replica_port "$r")" "$r" >> "$DIR/pg/replica$r/postgresql.conf"
    [ "${SYNC:-0}" != 1 ] || sync_standbys >> "$DIR/pg/replica$r/postgresql.conf" # for when it is promoted
    pg_start "replica$r"
  done
  if [ "${SYNC:-0}" = 1 ]; then # now that there are standbys to wait for
    sync_standbys >> "$DIR/pg/primary/postgresql.conf"
    as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg/primary" reload >/dev/null
  fi

  # The log's key, and its witness (in memory: it lives as long as the cluster).
  "$DIR/bin/svc" log key create --origin cluster.example/svc/log --out "$DIR/log.key" > "$DIR/log.vkey"
  "$DIR/bin/witness" -addr "127.0.0.1:$WITNESS_PORT" -name witness.cluster.example -log-keys "$(cat "$DIR/log.vkey")" \
    -vkey-out "$DIR/witness.vkey" >> "$DIR/logs/witness.log" 2>&1 &
  echo $! > "$DIR/pids/witness.pid"
  for _ in $(seq 1 100); do [ -s "$DIR/witness.vkey" ] && curl -fsS "http://127.0.0.1:$WITNESS_PORT/size" >/dev/null 2>&1 && break; sleep 0.1; done
  [ -s "$DIR/witness.vkey" ] || { echo "cluster: the witness did not start; its log:" >&2; tail -n 20 "$DIR/logs/witness.log" >&2; exit 1; }

  # The instances: the first migrates alone, then the others start.
  for n in $(seq 1 "$INSTANCES"); do svc_start "$n"; done

  # HAProxy: round robin over the ready instances; a connection refused is tried on another.
  {
    cat <<EOF
global
  maxconn 4096
defaults
  mode http
  timeout connect 1s
  timeout client 60s
  timeout server 60s
  retries 3
  option redispatch 1
  retry-on conn-failure
frontend svc
  bind 127.0.0.1:$PROXY_PORT
  default_backend svc
backend svc
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server check inter 500ms fall 2 rise 2
EOF
    for n in $(seq 1 "$INSTANCES"); do echo "  server svc$n 127.0.0.1:$(svc_port "$n")"; done
  } > "$DIR/haproxy.cfg"
  haproxy -f "$DIR/haproxy.cfg" -D -p "$DIR/pids/haproxy.pid"
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PROXY_PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

  local key; key=$("$DIR/bin/svc" key create --email admin@example.com --database-url "postgres://postgres@127.0.0.1:$PRIMARY_PORT/svc?sslmode=disable")
  local instances=() replicas=()
  for n in $(seq 1 "$INSTANCES"); do instances+=("http://127.0.0.1:$(svc_port "$n")"); done
  for r in $(seq 1 "$REPLICAS"); do replicas+=("postgres://postgres@127.0.0.1:$(replica_port "$r")/svc?sslmode=disable"); done
  cat > "$DIR/env" <<EOF
PROXY_URL=http://127.0.0.1:$PROXY_PORT
INSTANCE_URLS=$(IFS=,; echo "${instances[*]}")
PRIMARY_URL=postgres://postgres@127.0.0.1:$PRIMARY_PORT/svc?sslmode=disable
REPLICA_URLS=$(IFS=,; echo "${replicas[*]}")
API_KEY=$key
LOG_VERIFIER_KEY=$(cat "$DIR/log.vkey")
WITNESS_URL=http://127.0.0.1:$WITNESS_PORT
WITNESS_KEY=$(cat "$DIR/witness.vkey")
SYNC=${SYNC:-0}
PORT_BASE=$PORT_BASE
REPLICAS=$REPLICAS
EOF
  echo "cluster: up in $DIR (proxy http://127.0.0.1:$PROXY_PORT)"
}

stop_pid() { # NAME: SIGTERM the process of DIR/pids/NAME.pid, SIGKILL after 5 s
  local f=$DIR/pids/$1.pid pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

down() {
  [ -d "$DIR" ] || return 0
  stop_pid haproxy
  for f in "$DIR"/pids/svc*.pid; do [ -e "$f" ] && stop_pid "$(basename "$f" .pid)"; done
  stop_pid witness
  for d in "$DIR"/pg/replica* "$DIR/pg/primary"; do
    [ -d "$d" ] || continue
    as_pg "$PG_BIN/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1 || true
    rm -f "$DIR/pids/$(basename "$d").pid"
  done
  echo "cluster: down ($DIR)"
}

start() {
  local name=${3:-}
  case "$name" in
    replica[0-9]*) pg_start "$name" ;;
    svc[0-9]*) svc_start "${name#svc}" ;;
    *) echo "cluster: start replicaN or svcN, not '$name'" >&2; exit 2 ;;
  esac
}

stop() {
  local name=${3:-}
  case "$name" in
    replica[0-9]*) as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg/$name" -m fast -w stop >/dev/null; rm -f "$DIR/pids/$name.pid" ;;
    svc[0-9]*) stop_pid "$name" ;;
    *) echo "cluster: stop replicaN or svcN, not '$name'" >&2; exit 2 ;;
  esac
}

# failover: promote replica1 (pg_ctl promote; another replica if it received more of the lost
# primary's WAL) and re-point every other replica to stream from it (primary_conninfo,
# reloaded). A replica that had replayed past the point replica1 was
# promoted at cannot follow it: it is rewound (pg_rewind) and started again as its standby.
# The instances find the new primary themselves (their multi-host SVC_DATABASE_URL).
failover() {
  # replica1, unless another replica received more of the lost primary's WAL (with SYNC=1's
  # ANY 1, an acknowledged write may be on that one only).
  local k=1 best=-1 got
  for r in $(seq 1 "$REPLICAS"); do
    got=$(as_pg "$PG_BIN/psql" -qtA -h 127.0.0.1 -p "$(replica_port "$r")" -U postgres -d svc \
      -c "SELECT pg_wal_lsn_diff(GREATEST(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), '0/0')::bigint" 2>/dev/null) || continue
    if [ -n "$got" ] && [ "$got" -gt "$best" ]; then best=$got; k=$r; fi
  done
  local new; new=$(replica_port "$k")
  as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg/replica$k" -w -t 60 promote >/dev/null
  sed -i "s|^PRIMARY_URL=.*|PRIMARY_URL=$(node_url "$new")|" "$DIR/env"
  for r in $(seq 1 "$REPLICAS"); do
    [ "$r" != "$k" ] || continue
    local port; port=$(replica_port "$r")
    as_pg "$PG_BIN/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d svc -c \
      "ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=$new user=postgres application_name=replica$r'" -c 'SELECT pg_reload_conf()' >/dev/null
    local ok=0
    for _ in $(seq 1 50); do
      if as_pg "$PG_BIN/psql" -qtA -h 127.0.0.1 -p "$new" -U postgres -d svc \
        -c "SELECT 1 FROM pg_stat_replication WHERE application_name = 'replica$r' AND state = 'streaming'" 2>/dev/null | grep -q 1; then ok=1; break; fi
      sleep 0.1
    done
    if [ "$ok" = 0 ]; then
      echo "cluster: replica$r does not follow replica$k: rewinding it" >&2
      as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg/replica$r" -m fast -w stop >/dev/null || true
      as_pg "$PG_BIN/pg_rewind" -R -D "$DIR/pg/replica$r" --source-server="host=127.0.0.1 port=$new user=postgres dbname=svc" >/dev/null
      # pg_rewind copied replica1's configuration: this replica keeps its own port and name.
      printf "port = %s\ncluster_name = 'replica%s'\n" "$port" "$r" >> "$DIR/pg/replica$r/postgresql.conf"
      pg_start "replica$r"
    fi
  done
  echo "cluster: replica$k (port $new) is the primary"
}

case "$cmd" in
  up) up ;;
  failover) failover ;;
  stop) stop "$@" ;;
  down) down ;;
  start) start "$@" ;;
  *) sed -n '2,29p' "$0" >&2; exit 2 ;;
esac
