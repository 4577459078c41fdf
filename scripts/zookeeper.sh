#!/usr/bin/env bash
# Starts or stops a throwaway single-node ZooKeeper on 127.0.0.1 for the ZooKeeper tests
# (mini-hbase's znode publishing, ZooKeeper-based discovery):
#
#   bash scripts/zookeeper.sh start   # then: export HBCLIENT_TEST_ZK=127.0.0.1:${ZK_PORT:-2181}
#   bash scripts/zookeeper.sh stop
#
# It uses Debian's `zookeeper` package (installed with apt-get if missing; only java is assumed)
# and runs ZooKeeperServerMain with java directly: no systemd, no /etc/zookeeper config, no
# /var/lib/zookeeper. Data, config, log and pid file live in ZK_DIR (default target/zookeeper),
# which `start` wipes, so every run starts from an empty tree.
#
# Environment: ZK_PORT (default 2181), ZK_DIR (default <repo>/target/zookeeper).
# Timing on a Debian 12 machine with only java: install about 8 s, start until it answers about 1 s.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
port="${ZK_PORT:-2181}"
dir="${ZK_DIR:-$repo/target/zookeeper}"
pidfile="$dir/zookeeper.pid"
jar=/usr/share/java/zookeeper.jar

log() { echo "zookeeper.sh: $*" >&2; }

# Sends a four-letter command to the server; prints the answer. Fails if nothing answers.
four_letter() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
    printf '%s' "$1" >&3
    timeout 2 cat <&3 || true
  ) 2>/dev/null
}

running_pid() {
  [[ -f "$pidfile" ]] || return 1
  local pid
  pid="$(cat "$pidfile")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

install() {
  [[ -f "$jar" ]] && return 0
  log "installing Debian's zookeeper package"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends zookeeper >/dev/null; then
    apt-get update >/dev/null
    apt-get install -y --no-install-recommends zookeeper >/dev/null
  fi
  [[ -f "$jar" ]] || { log "no $jar after installing zookeeper"; exit 1; }
}

start() {
  if pid="$(running_pid)"; then
    log "already running (pid $pid)"
    return 0
  fi
  if four_letter ruok >/dev/null 2>&1; then
    log "port $port is taken by another process; set ZK_PORT"
    exit 1
  fi
  install
  command -v java >/dev/null || { log "java not found"; exit 1; }
  rm -rf "$dir"
  mkdir -p "$dir/data"
  cat >"$dir/zoo.cfg" <<EOF
tickTime=2000
dataDir=$dir/data
clientPort=$port
clientPortAddress=127.0.0.1
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
autopurge.purgeInterval=0
EOF
  # zookeeper.jar's manifest names its dependencies (/usr/share/java/...); slf4j-simple gives logs.
  local cp="$jar"
  [[ -f /usr/share/java/slf4j-simple.jar ]] && cp="$cp:/usr/share/java/slf4j-simple.jar"
  nohup java -Xmx256m -Dzookeeper.jmx.log4j.disable=true -Dorg.slf4j.simpleLogger.logFile=System.out \
    -cp "$cp" org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" \
    >"$dir/zookeeper.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  local deadline=$((SECONDS + 60))
  until [[ "$(four_letter ruok 2>/dev/null)" == imok ]] && four_letter srvr 2>/dev/null | grep -q '^Mode'; do
    if ! running_pid >/dev/null; then
      log "ZooKeeper exited; log follows"
      tail -n 40 "$dir/zookeeper.log" >&2
      exit 1
    fi
    if ((SECONDS > deadline)); then
      log "ZooKeeper did not answer on 127.0.0.1:$port within 60 s; log follows"
      tail -n 40 "$dir/zookeeper.log" >&2
      stop
      exit 1
    fi
    sleep 0.2
  done
  log "running on 127.0.0.1:$port (pid $(cat "$pidfile"), log $dir/zookeeper.log)"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$pidfile"
    return 0
  fi
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
  log "stopped (pid $pid)"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|stop  (env ZK_PORT, ZK_DIR)" >&2
    exit 2
    ;;
esac
