#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test run (a CTest fixture: `up` before the suites that
# need it, `down` after them). Unix socket only, in <dir>, so runs in different build trees never
# meet; fsync off: the data dir is deleted afterwards anyway.
#   postgres-server.sh up <dir> [port]     initdb, start, create database whizbang_test
#   postgres-server.sh down <dir>          stop the server whose pid file is in <dir>, delete <dir>
#   postgres-server.sh stop <dir>          stop it cleanly (fast shutdown), keep its data
#   postgres-server.sh start <dir> [port]  start it again on the data it kept
# initdb and postgres refuse to run as root: as root they run as the `postgres` user (created by
# Debian's postgresql package) through setpriv, which execs, so the pid is the postmaster's.
set -euo pipefail

command=${1:?usage: postgres-server.sh up|down|stop|start <dir> [port]}
dir=${2:?usage: postgres-server.sh up|down|stop|start <dir> [port]}
port=${3:-55432}
bindir=$(pg_config --bindir 2>/dev/null || true)
[ -x "$bindir/initdb" ] || bindir=/usr/lib/postgresql/15/bin

as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
  else
    "$@"
  fi
}

# stop [signal]: QUIT (immediate shutdown, the default) or INT (fast shutdown: clean, data kept).
stop() {
  # The postmaster's own pid file (its first line): the pid of the server itself, not of the
  # shell that started it.
  [ -f "$dir/data/postmaster.pid" ] || return 0
  local pid
  pid=$(head -1 "$dir/data/postmaster.pid")
  # The server is not our child (the `up` step's shell has exited), so wait for it to
  # disappear; an exited but unreaped process (state Z) is gone too.
  kill "-${1:-QUIT}" "$pid" 2>/dev/null || return 0
  for _ in $(seq 200); do
    [ -r "/proc/$pid/stat" ] || return 0
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = "Z" ] && return 0
    sleep 0.05
  done
  kill -KILL "$pid" 2>/dev/null || true
}

start() {
  # Detached from the test's output pipes, so CTest does not wait for the server to exit.
  as_server_user "$bindir/postgres" -D "$dir/data" -p "$port" -k "$dir" -c listen_addresses='' \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 \
    </dev/null >>"$dir/server.log" 2>&1 &
  local starter=$!
  for _ in $(seq 600); do
    "$bindir/pg_isready" -q -h "$dir" -p "$port" -U whizbang -d postgres && return 0
    kill -0 "$starter" 2>/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    sleep 0.05
  done
  echo "postgres-server.sh: the server in $dir did not become ready" >&2
  exit 1
}

case "$command" in
  up)
    stop  # a server left by an interrupted run
    rm -rf "$dir"
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
    as_server_user "$bindir/initdb" -D "$dir/data" -U whizbang -A trust -E UTF8 --locale=C.UTF-8 \
      -N >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    start
    "$bindir/createdb" -h "$dir" -p "$port" -U whizbang whizbang_test
    echo "postgres-server.sh: PostgreSQL up in $dir (pid $(head -1 "$dir/data/postmaster.pid"))"
    ;;
  down)
    stop
    rm -rf "$dir"
    ;;
  stop)
    stop INT
    ;;
  start)
    start
    ;;
  *)
    echo "usage: postgres-server.sh up|down|stop|start <dir> [port]" >&2
    exit 2
    ;;
esac
