#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the scale-out tests (docs/scale-out.md).
#
#   eval "$(.ci/postgres.sh start)"   # starts one; prints the export lines below
#   .ci/postgres.sh stop "$ATHAR_TEST_PGDATA"
#
# start: initdb into a new temporary directory (owned by the postgres user when run as root),
# trust authentication, listening on 127.0.0.1 at a free port with its unix socket in the same
# directory; then prints, as shell:
#   export ATHAR_TEST_DATABASE=postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
#   export ATHAR_TEST_PGDATA=DIR/data      (the cluster: the tests restart it with pg_ctl)
#   export ATHAR_TEST_PGBIN=/usr/lib/postgresql/N/bin
# Installs Debian's postgresql package first when no server binaries are found (needs root).
# fsync is off (a test cluster need not survive a power cut, and commits are 10x faster);
# pass --durable after start to keep PostgreSQL's defaults, as the benchmark does.
# Works as root (the server runs as the postgres user) or as any other user (as that user).
set -euo pipefail

pgbin() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

# as_pg runs a command as the user that owns the cluster.
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "postgres.sh: no free port found" >&2
  return 1
}

start() {
  local durable=false
  [ "${1:-}" = "--durable" ] && durable=true
  local bin
  bin="$(pgbin)"
  if [ -z "$bin" ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "postgres.sh: no PostgreSQL server under /usr/lib/postgresql; install it: apt-get install -y postgresql" >&2
      exit 1
    fi
    echo "postgres.sh: installing Debian's postgresql package" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >&2
    bin="$(pgbin)"
  fi
  local dir
  dir="$(mktemp -d "${TMPDIR:-/tmp}/athar-pg.XXXXXX")"
  chmod 700 "$dir"
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$dir"
  fi
  as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  local opts="-c listen_addresses=127.0.0.1 -k $dir -c max_connections=200"
  if ! $durable; then
    opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
  local port started=false
  for _ in 1 2 3 4 5; do
    port="$(free_port)"
    if as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 -o "-p $port $opts" start >/dev/null 2>&1; then
      started=true
      break
    fi
  done
  if ! $started; then
    echo "postgres.sh: the server did not start; its log:" >&2
    cat "$dir/server.log" >&2 || true
    exit 1
  fi
  echo "export ATHAR_TEST_DATABASE='postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable'"
  echo "export ATHAR_TEST_PGDATA='$dir/data'"
  echo "export ATHAR_TEST_PGBIN='$bin'"
}

stop() {
  local data="${1:?usage: postgres.sh stop DATADIR}"
  local bin
  bin="$(pgbin)"
  as_pg "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$(dirname "$data")"
}

case "${1:-start}" in
  start) shift || true; start "$@" ;;
  stop) shift; stop "$@" ;;
  *) echo "usage: postgres.sh start [--durable] | stop DATADIR" >&2; exit 2 ;;
esac
