#!/usr/bin/env bash
# The official clients against mini-hbase: the Apache HBase Java client (scripts/hbase/src/Smoke.java,
# hbase-client from Maven Central, built by scripts/hbase/hbase.sh) through the RPC registry and through
# ZooKeeper, and gohbase (scripts/peers/gohbase-smoke) through ZooKeeper, its only registry. Each check
# prints one line; the run fails if any check fails. "gap" lines are the README's known gaps, answered
# with an error by mini-hbase (never a wrong result).
# Then the Java client again, with hbase:meta replicated 3 ways in mini-hbase and its own
# LoadBalance meta-replica lookups (hbase.locator.meta.replicas.mode), through both registries.
#
#   scripts/smoke-official-clients.sh                 # mini-hbase (built here), ZooKeeper as below
#   SMOKE_TARGET=real scripts/smoke-official-clients.sh   # the same programs against the running
#                                                      # scripts/hbase instance (checks the checks)
#
# ZooKeeper: SMOKE_ZK=HOST:PORT, else HBCLIENT_TEST_ZK, else one started with scripts/zookeeper.sh on
# ZK_PORT (default 2182) and stopped afterwards. mini-hbase publishes under a znode parent of its own,
# so a shared ZooKeeper (even a real HBase's) is fine. Needs java 17 + mvn and go.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

pids=()
started_zk=""
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$started_zk" ]; then ZK_PORT="$started_zk" bash scripts/zookeeper.sh stop || true; fi
}
trap cleanup EXIT

echo "== building the smoke programs"
bash scripts/hbase/hbase.sh fetch >/dev/null
version="${HBASE_VERSION:-$(sed -n 's/^DEFAULT_HBASE_VERSION=//p' scripts/hbase/hbase.sh)}"
classes="scripts/hbase/.work/$version/probe"
classpath="$classes:$(cat "scripts/hbase/.work/$version/cp.txt")"
source scripts/hbase/jdk-flags.sh
gosmoke="$repo/target/gohbase-smoke"
mkdir -p target
(cd scripts/peers/gohbase-smoke && go build -o "$gosmoke" .)

java_smoke() {
  timeout 600 java "${JDK_FLAGS[@]}" -Xmx256m -Dlog4j2.configurationFile=scripts/hbase/conf/log4j2-client.properties \
    ${SMOKE_JAVA_OPTS:-} -cp "$classpath" Smoke "$@" 2>"target/smoke-java-$1${SMOKE_LOG_SUFFIX:-}.log"
}

results=()
failed=0
run() { # name command...
  local name="$1"; shift
  echo "== $name"
  if "$@"; then results+=("pass  $name"); else results+=("FAIL  $name"); failed=1; fi
}

if [ "${SMOKE_TARGET:-mini}" = real ]; then
  zk="127.0.0.1:${HBASE_ZK_PORT:-2181}"
  rs="127.0.0.1:${HBASE_RS_PORT:-16020}"
  run "Java client via RPC registry, real HBase $rs" java_smoke rpc "$rs"
  run "Java client via ZooKeeper, real HBase $zk" java_smoke zk "$zk"
  run "gohbase via ZooKeeper, real HBase $zk" timeout 600 "$gosmoke" -zk "$zk"
else
  nice -n 10 cargo build -q -p mini-hbase --bin mini-hbase
  zk="${SMOKE_ZK:-${HBCLIENT_TEST_ZK:-}}"
  if [ -z "$zk" ]; then
    port="${ZK_PORT:-2182}"
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "== using the ZooKeeper already on 127.0.0.1:$port"
    else
      ZK_PORT="$port" bash scripts/zookeeper.sh start
      started_zk="$port"
    fi
    zk="127.0.0.1:$port"
  fi

  # Starts a mini-hbase; sets $mini to its JSON line (master, region_servers, znode_parent).
  start_mini() {
    local out="target/smoke-mini-$1.json"
    shift
    rm -f "$out"
    target/debug/mini-hbase --region-servers 3 "$@" >"$out" 2>"${out%.json}.log" &
    pids+=("$!")
    for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
    [ -s "$out" ] || { echo "mini-hbase did not start: $(cat "${out%.json}.log")" >&2; exit 1; }
    mini="$(head -1 "$out")"
    echo "mini-hbase: $mini"
  }
  field() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); v=d[sys.argv[2]]; print(",".join(v) if isinstance(v,list) else v)' "$mini" "$1"; }

  start_mini rpc
  master="$(field master)"
  first_rs="$(field region_servers | cut -d, -f1)"
  run "Java client via RPC registry (bootstrap $master,$first_rs)" java_smoke rpc "$master,$first_rs"

  start_mini zk --zookeeper "$zk" --znode-parent "/mini-smoke-$$"
  parent="$(field znode_parent)"
  run "Java client via ZooKeeper $zk$parent" java_smoke zk "$zk" "$parent"
  run "gohbase via ZooKeeper $zk$parent" timeout 600 "$gosmoke" -zk "$zk" -root "$parent"

  # hbase:meta replicated 3 ways: the Java client's own LoadBalance lookups (random copies of
  # meta, found through GetMetaRegionLocations and meta-region-server-N) against mini-hbase's
  # replicas, through both registries.
  start_mini meta --meta-replicas 3 --zookeeper "$zk" --znode-parent "/mini-smoke-meta-$$"
  master="$(field master)"
  parent="$(field znode_parent)"
  export SMOKE_JAVA_OPTS="-Dsmoke.meta.replicas.mode=LoadBalance" SMOKE_LOG_SUFFIX="-meta-replicas"
  run "Java client, LoadBalance meta replicas, via RPC registry ($master)" java_smoke rpc "$master"
  run "Java client, LoadBalance meta replicas, via ZooKeeper $zk$parent" java_smoke zk "$zk" "$parent"
  unset SMOKE_JAVA_OPTS SMOKE_LOG_SUFFIX
fi

echo "== official clients smoke summary (Java client logs: target/smoke-java-*.log)"
printf '%s\n' "${results[@]}"
exit "$failed"
