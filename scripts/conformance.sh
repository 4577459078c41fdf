#!/usr/bin/env bash
# Runs hbclient's integration suite and the quickstart against a real Apache HBase started from
# Maven Central jars (scripts/hbase), through both discovery paths (ZooKeeper and the
# ZooKeeper-free RPC bootstrap), then stops it. Usage:
#   scripts/conformance.sh                              # HBase 2.6 (the pinned default)
#   HBASE_VERSION=3.0.0-alpha-4 scripts/conformance.sh  # HBase 3.0
#   scripts/conformance.sh --all-versions              # every HBase line, one after another (below)
set -euo pipefail
cd "$(dirname "$0")/.."

# The newest release of each HBase line that resolves (with its dependencies) on Maven Central here;
# see the version table in scripts/hbase/README.md. Override with HBASE_VERSIONS="v1 v2 ...".
ALL_VERSIONS="${HBASE_VERSIONS:-2.4.18 2.5.13-hadoop3 2.6.4-hadoop3 3.0.0-alpha-4}"
if [ "${1:-}" = --all-versions ]; then
  results=() failed=0
  for v in $ALL_VERSIONS; do
    t0=$(date +%s)
    if HBASE_VERSION="$v" "$0"; then r=pass; else r=FAIL; failed=1; fi
    results+=("| $v | $r | $(( $(date +%s) - t0 )) s |")
  done
  echo "| HBase | conformance | took |"
  echo "|---|---|---|"
  printf '%s\n' "${results[@]}"
  exit "$failed"
fi

started=$(date +%s)
bash scripts/hbase/hbase.sh start
trap 'bash scripts/hbase/hbase.sh stop' EXIT
echo "real HBase ready after $(( $(date +%s) - started )) s"

zk="127.0.0.1:${HBASE_ZK_PORT:-2181}"
rs="127.0.0.1:${HBASE_RS_PORT:-16020}"
master="127.0.0.1:${HBASE_MASTER_PORT:-16000}"
case "${HBASE_VERSION:-2.6}" in
  2.6*)
    echo "== differential harness: raw requests against real HBase and mini-hbase, compared field by field"
    HBCLIENT_DIFF_TARGET="master=$master,rs=$rs" cargo run -q -p hbase-diff
    echo "== official clients (Java client, gohbase): their checks against real HBase, then against mini-hbase"
    SMOKE_TARGET=real bash scripts/smoke-official-clients.sh
    # mini-hbase publishes under its own znode parent in this HBase's ZooKeeper.
    SMOKE_ZK="$zk" bash scripts/smoke-official-clients.sh
    ;;
  *) echo "== differential harness skipped: it compares mini-hbase with HBase 2.6, this is ${HBASE_VERSION}" ;;
esac
targets=("zk:$zk" "rpc:$rs")
case "${HBASE_VERSION:-}" in
  2.[0-4].*)
    # No ClientMetaService (the ZooKeeper-free registry) before 2.5: the RPC bootstrap must fail
    # quickly with a clear error instead of hanging.
    targets=("zk:$zk")
    echo "== RPC bootstrap against HBase $HBASE_VERSION (no ClientMetaService): must fail fast and clearly"
    t0=$(date +%s)
    set +e
    out=$(timeout 120 cargo run -q --example table_admin -- "rpc:$rs" create rpc_bootstrap_refused f 2>&1)
    rc=$?
    set -e
    echo "$out" | tail -3
    if [ "$rc" = 0 ] || [ "$rc" = 124 ]; then
      echo "conformance: RPC bootstrap against $HBASE_VERSION did not fail cleanly (exit $rc)" >&2
      exit 1
    fi
    echo "rpc bootstrap refused in $(( $(date +%s) - t0 )) s (exit $rc)"
    ;;
esac
# The suite includes cellblock compression (tests/suite/compression.rs): gzip and snappy round
# trips with wire-byte checks both ways, and lz4's unanswered calls on a stock server (~3 s).
for target in "${targets[@]}"; do
  echo "== integration suite against real HBase via $target"
  HBCLIENT_TEST_CLUSTER="$target" cargo test -p hbclient --test suite
done
echo "== hbclient shell (the binary): every command, stdin scripts, exit statuses, against real HBase"
HBCLIENT_TEST_CLUSTER="zk:$zk" cargo test -p hbclient-cli --test shell
echo "== chaos: large writes during Admin splits, moves and flushes, against real HBase"
HBCLIENT_TEST_CLUSTER="zk:$zk" cargo test -p hbclient --test chaos admin_splits
echo "== quickstart against real HBase"
HBASE_ZOOKEEPER="$zk" cargo run -q --example quickstart
echo "== libhbclient C examples against real HBase"
prefix="$PWD/target/conformance-ffi"
rm -rf "$prefix"
bash scripts/ffi-install.sh "$prefix" debug
cargo run -q --example table_admin -- "zk:$zk" create c_examples f
# v2_features: filters, async scans by callbacks, append, check-and-mutate, cancel, timeouts,
# namespaces and describe, the mutator's failure list, library shutdown.
for example in blocking async_callbacks v2_features; do
  cc -std=c11 -Wall -Wextra -Werror -I"$prefix/include" "examples/c/$example.c" \
    -L"$prefix/lib" -lhbclient -pthread -o "target/c-example-$example"
  LD_LIBRARY_PATH="$prefix/lib" "target/c-example-$example" "zk:$zk" c_examples
done
echo "== libhbclient C++ example (hbclient.hpp) against real HBase"
c++ -std=c++17 -Wall -Wextra -Werror -pedantic -I"$prefix/include" examples/cpp/example.cpp \
  -L"$prefix/lib" -lhbclient -pthread -o target/cpp-example
LD_LIBRARY_PATH="$prefix/lib" target/cpp-example "zk:$zk" c_examples
cargo run -q --example table_admin -- "zk:$zk" drop c_examples
echo "conformance run took $(( $(date +%s) - started )) s"
