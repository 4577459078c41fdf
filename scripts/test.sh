#!/usr/bin/env bash
# The whole test suite, as README.md documents it and .ci/run calls it:
# formatting, lints (warnings are errors), every test in the workspace, then libhbclient's C and
# C++ tests and examples (under AddressSanitizer, against a mini-hbase the script starts).
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests that cannot run here (no ZooKeeper, no real HBase) report themselves in this file; the
# count and the lines are printed at the end, so a skip never passes for a pass.
export HBCLIENT_SKIP_LOG="$PWD/target/skipped-tests.txt"
mkdir -p target
: > "$HBCLIENT_SKIP_LOG"
report_skips() {
  local n
  n=$(wc -l < "$HBCLIENT_SKIP_LOG" | tr -d ' ')
  echo "== skipped tests: $n"
  cat "$HBCLIENT_SKIP_LOG"
}
cleanup() {
  report_skips
  if [ -n "${started_zk:-}" ]; then ZK_PORT="$zk_port" bash scripts/zookeeper.sh stop || true; fi
}
trap cleanup EXIT

# The ZooKeeper tests need a ZooKeeper server: start a throwaway one when ZooKeeper is installed
# and none was given.
if [ -z "${HBCLIENT_TEST_ZK:-}" ] && [ -f /usr/share/java/zookeeper.jar ]; then
  zk_port="${ZK_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
  if ZK_PORT="$zk_port" bash scripts/zookeeper.sh start; then
    started_zk=1
    export HBCLIENT_TEST_ZK="127.0.0.1:$zk_port"
    echo "== ZooKeeper started for the tests at $HBCLIENT_TEST_ZK"
  else
    echo "== could not start ZooKeeper: its tests will report SKIPPED"
  fi
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

echo "== cargo test --workspace"
cargo test --workspace

echo "== hbclient with the opentelemetry and metrics features: clippy, trace context and metrics tests, the Prometheus example"
cargo clippy -p hbclient --all-targets --features opentelemetry,metrics -- -D warnings
cargo test -p hbclient --features opentelemetry,metrics --test suite telemetry
prometheus_text=$(cargo run -q -p hbclient --features metrics --example prometheus_metrics -- --once)
grep -q '^hbase_client_rpc_calls{rpc_method="Mutate"} 200$' <<<"$prometheus_text"

echo "== hbase-diff scenarios defined (run against a real HBase by scripts/conformance.sh)"
cargo run -q -p hbase-diff -- --list | tail -1

echo "== integration suite again, every connection over TLS (mini-hbase TLS-only, test CA)"
HBCLIENT_TEST_MINI_TLS=1 cargo test -p hbclient --test suite

echo "== libhbclient: C and C++ tests and examples"
bash scripts/ffi-test.sh
