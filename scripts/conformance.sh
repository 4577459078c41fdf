#!/usr/bin/env bash
# Runs hbclient's integration suite and the quickstart against a real Apache HBase started from
# Maven Central jars (scripts/hbase), through both discovery paths (ZooKeeper and the
# ZooKeeper-free RPC bootstrap), then stops it. Usage:
#   scripts/conformance.sh                              # HBase 2.6 (the pinned default)
#   HBASE_VERSION=3.0.0-alpha-4 scripts/conformance.sh  # HBase 3.0
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
bash scripts/hbase/hbase.sh start
trap 'bash scripts/hbase/hbase.sh stop' EXIT
echo "real HBase ready after $(( $(date +%s) - started )) s"

zk="127.0.0.1:${HBASE_ZK_PORT:-2181}"
rs="127.0.0.1:${HBASE_RS_PORT:-16020}"
master="127.0.0.1:${HBASE_MASTER_PORT:-16000}"
echo "== differential harness: raw requests against real HBase and mini-hbase, compared field by field"
HBCLIENT_DIFF_TARGET="master=$master,rs=$rs" cargo run -q -p hbase-diff
for target in "zk:$zk" "rpc:$rs"; do
  echo "== integration suite against real HBase via $target"
  HBCLIENT_TEST_CLUSTER="$target" cargo test -p hbclient --test suite
done
echo "== chaos: large writes during Admin splits, moves and flushes, against real HBase"
HBCLIENT_TEST_CLUSTER="zk:$zk" cargo test -p hbclient --test chaos admin_splits
echo "== quickstart against real HBase"
HBASE_ZOOKEEPER="$zk" cargo run -q --example quickstart
echo "== libhbclient C examples against real HBase"
prefix="$PWD/target/conformance-ffi"
rm -rf "$prefix"
bash scripts/ffi-install.sh "$prefix" debug
cargo run -q --example table_admin -- "zk:$zk" create c_examples f
for example in blocking async_callbacks; do
  cc -Wall -Wextra -Werror -I"$prefix/include" "examples/c/$example.c" -L"$prefix/lib" -lhbclient \
    -o "target/c-example-$example"
  LD_LIBRARY_PATH="$prefix/lib" "target/c-example-$example" "zk:$zk" c_examples
done
cargo run -q --example table_admin -- "zk:$zk" drop c_examples
echo "conformance run took $(( $(date +%s) - started )) s"
