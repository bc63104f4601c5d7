#!/usr/bin/env bash
# Throw-away PostgreSQL and Redis on free loopback ports.
#   scripts/test_services.sh start DIR   # starts both, writes DIR/env (DATABASE_URL, REDIS_URL)
#   scripts/test_services.sh stop DIR    # stops both; DIR can then be removed
# PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?data directory}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
start)
  mkdir -p "$dir"
  chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  pg_port=$(free_port)
  redis_port=$(free_port)
  as_pg "$pg_bin/initdb" -D "$dir/pg" -U arbiter --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1
  # Durability is not what tests prove: skip fsync to keep the suite fast.
  as_pg "$pg_bin/pg_ctl" -D "$dir/pg" -l "$dir/pg.log" -w -o \
    "-c listen_addresses=127.0.0.1 -p $pg_port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir"
  for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  cat >"$dir/env" <<ENV
export DATABASE_URL=postgres://arbiter@127.0.0.1:$pg_port/arbiter
export REDIS_URL=redis://127.0.0.1:$redis_port/0
ENV
  as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U arbiter arbiter
  echo "PostgreSQL on 127.0.0.1:$pg_port, Redis on 127.0.0.1:$redis_port (data in $dir)"
  ;;
stop)
  [ -f "$dir/pg/postmaster.pid" ] && as_pg "$pg_bin/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null || true
  [ -f "$dir/redis.pid" ] && kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
