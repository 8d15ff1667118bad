#!/usr/bin/env bash
# A throwaway RabbitMQ broker for the test run (a CTest fixture, like postgres-server.sh).
# Everything lives in <dir>: cookie, mnesia, logs, config. Its own epmd runs on a private port
# first, so neither the node nor anything else starts a daemonized `epmd -daemon` on 0.0.0.0:4369
# that outlives the run; HOME points into <dir>, so no ~/.erlang.cookie is left behind.
#   rabbitmq-server.sh up <dir> <port> [address]   fresh broker: AMQP on <address>:<port>
#                                           (default 127.0.0.1; another one inside a network
#                                           namespace, for the partition test)
#   rabbitmq-server.sh down <dir> <port>    stop the broker and its epmd, delete <dir>
#   rabbitmq-server.sh stop <dir> <port>    graceful stop (clients get CONNECTION_FORCED), data kept
#   rabbitmq-server.sh crash <dir> <port>   SIGKILL of the Erlang VM, data kept
#   rabbitmq-server.sh start <dir> <port>   start again on the data it kept
# The node's distribution port is <port>+1 and its epmd's <port>+2. Processes are stopped by the
# pids recorded in <dir>, never by name. WHIZBANG_RMQ_EXTRA_CONF, if set at `up`, is appended to
# the broker's rabbitmq.conf (e.g. a TLS listener); WHIZBANG_RMQ_WAIT_PORTS (space-separated),
# if set at `up` or `start`, are the extra listeners' ports, waited for like the AMQP port (a
# TLS listener can open a moment after it).
# Listeners are looked for with `ss`, never by connecting: a connect to a port nothing listens on
# can pick that very port as its own local port (when it lies in the kernel's ephemeral range) and
# connect to itself; the TIME_WAIT it leaves would then stop the broker from binding the port.
set -euo pipefail

usage="usage: rabbitmq-server.sh up|down|stop|crash|start <dir> <port> [address]"
command=${1:?$usage}
dir=$(realpath -m "${2:?$usage}") # absolute: the broker starts inside it (below)
port=${3:?$usage}
address=${4:-127.0.0.1}
bin=/usr/lib/rabbitmq/bin # the upstream scripts; /usr/sbin's wrappers re-exec as user rabbitmq

export RABBITMQ_NODENAME="whizbang${port}@localhost" RABBITMQ_NODE_IP_ADDRESS=$address
export RABBITMQ_NODE_PORT=$port RABBITMQ_DIST_PORT=$((port + 1))
export ERL_EPMD_PORT=$((port + 2)) ERL_EPMD_ADDRESS=127.0.0.1
export HOME=$dir
export RABBITMQ_MNESIA_BASE=$dir/mnesia RABBITMQ_LOG_BASE=$dir/log RABBITMQ_LOGS=$dir/log/node.log \
  RABBITMQ_CONFIG_FILE=$dir/rabbitmq.conf RABBITMQ_ADVANCED_CONFIG_FILE=$dir/advanced.config \
  RABBITMQ_CONF_ENV_FILE=$dir/rabbitmq-env.conf RABBITMQ_ENABLED_PLUGINS_FILE=$dir/enabled_plugins \
  RABBITMQ_PID_FILE=$dir/beam.pid

listening() { ss -Hltn "sport = :$1" | grep -q .; }

alive() { [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]; }

# kill_and_wait <pid file> <signal>: the processes are not our children (the step that started
# them has exited), so wait for them to disappear.
kill_and_wait() {
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  rm -f "$1"
  [ -n "$pid" ] || return 0
  kill "-$2" "$pid" 2>/dev/null || return 0
  for _ in $(seq 300); do
    alive "$pid" || return 0
    sleep 0.05
  done
  kill -KILL "$pid" 2>/dev/null || true
}

start_epmd() {
  epmd -port "$ERL_EPMD_PORT" -address 127.0.0.1 </dev/null >>"$dir/log/epmd.log" 2>&1 &
  echo $! >"$dir/epmd.pid"
  for _ in $(seq 200); do
    epmd -port "$ERL_EPMD_PORT" -names >/dev/null 2>&1 && return 0
    sleep 0.02
  done
  echo "rabbitmq-server.sh: epmd did not start" >&2
  exit 1
}

start() {
  # Something already answering on the port (a broker an interrupted run left behind) would pass
  # the readiness probe below: refuse instead of testing against it.
  if listening "$port"; then
    echo "rabbitmq-server.sh: port $port is already in use (a broker left by an interrupted run?)" >&2
    exit 1
  fi
  # Detached from the test's output pipes, so CTest does not wait for the broker to exit. Started
  # inside <dir>, so a crash dump (erl_crash.dump, MnesiaCore.*) lands there, not in the caller's
  # working directory.
  cd "$dir"
  "$bin/rabbitmq-server" </dev/null >>"$dir/log/stdout.log" 2>&1 &
  local server=$!
  echo "$server" >"$dir/server.pid"
  local listener
  for listener in "$port" ${WHIZBANG_RMQ_WAIT_PORTS:-}; do
    await_listener "$server" "$listener"
  done
}

# await_listener <server pid> <port>: the listeners open at the end of the boot.
await_listener() {
  for _ in $(seq 1200); do
    listening "$2" && return 0
    alive "$1" || { tail -30 "$dir/log/stdout.log" >&2; exit 1; }
    sleep 0.05
  done
  echo "rabbitmq-server.sh: the broker in $dir did not open port $2" >&2
  exit 1
}

stop() { kill_and_wait "$dir/server.pid" TERM; } # the script traps TERM and stops the VM

crash() {
  local beam
  beam=$(cat "$dir/beam.pid" 2>/dev/null || true)
  [ -n "$beam" ] && kill -KILL "$beam" 2>/dev/null
  kill_and_wait "$dir/server.pid" TERM
}

down() {
  stop
  kill_and_wait "$dir/epmd.pid" TERM
  rm -rf "$dir"
}

case "$command" in
  up)
    [ -d "$dir" ] && down # a broker left by an interrupted run
    mkdir -p "$dir/log"
    (
      umask 077
      head -c 30 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$dir/.erlang.cookie"
    )
    chmod 400 "$dir/.erlang.cookie"
    echo '[].' >"$dir/enabled_plugins"
    # guest may log in from any address (clients in other network namespaces).
    printf '%s\n' 'loopback_users = none' 'log.console = false' >"$dir/rabbitmq.conf"
    if [ -n "${WHIZBANG_RMQ_EXTRA_CONF:-}" ]; then
      printf '%s\n' "$WHIZBANG_RMQ_EXTRA_CONF" >>"$dir/rabbitmq.conf"
    fi
    start_epmd
    start
    echo "rabbitmq-server.sh: RabbitMQ up on $address:$port (pid $(cat "$dir/server.pid"))"
    ;;
  down) down ;;
  stop) stop ;;
  crash) crash ;;
  start) start ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac
