#!/usr/bin/env bash
# Shortened chaos run against a real HBase cluster (CI): starts `hbase.sh start --region-servers 3`,
# runs tests/cluster_chaos.rs with the short schedule (one region move, one SIGKILL of a region
# server followed by its restart, one SIGSTOP past the ZooKeeper session timeout followed by
# SIGCONT and a restart) under the mixed workload, checks everything the test checks, and always
# stops the cluster. About 3–4 minutes on a 2-core box, cluster start and stop included.
# Before the chaos, on the fresh cluster: tests/cluster_replicas.rs (REGION_REPLICATION 3, TIMELINE
# reads with the primary's region server paused, STRONG reads failing at their deadline; prints
# the TIMELINE get p50/p99 healthy vs paused; about 30 s).
#
#   scripts/chaos-cluster.sh                 # short schedule, 100 s of workload
#   HBCLIENT_CHAOS_SECS=300 HBCLIENT_CHAOS_SCHEDULE=full scripts/chaos-cluster.sh   # the 5-minute run
#   CHAOS_RELEASE=1 ...                      # build the test in release mode (long runs)
#   HBCLIENT_CHAOS_JAVA_PEER=1 ...           # the Java client (scripts/hbase/src/ChaosPeer.java) beside hbclient,
#                                            # recovery per event side by side (BENCHMARKS.md, "Reliability")
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${HBCLIENT_CHAOS_SECS:-100}"
schedule="${HBCLIENT_CHAOS_SCHEDULE:-short}"
profile=()
[ -z "${CHAOS_RELEASE:-}" ] || profile=(--release)

started=$(date +%s)
# Build first, while no JVM competes for the two cores.
cargo test "${profile[@]}" -p hbclient --test cluster_chaos --test cluster_replicas --no-run

bash scripts/hbase/hbase.sh start --region-servers 3
trap 'bash scripts/hbase/hbase.sh stop' EXIT
echo "cluster ready after $(( $(date +%s) - started )) s"

replicas_started=$(date +%s)
HBCLIENT_TEST_REAL_CLUSTER=scripts/hbase \
  cargo test "${profile[@]}" -p hbclient --test cluster_replicas -- --nocapture
echo "cluster_replicas took $(( $(date +%s) - replicas_started )) s"

HBCLIENT_TEST_REAL_CLUSTER=scripts/hbase HBCLIENT_CHAOS_SECS="$secs" HBCLIENT_CHAOS_SCHEDULE="$schedule" \
  cargo test "${profile[@]}" -p hbclient --test cluster_chaos -- --nocapture
echo "chaos-cluster run took $(( $(date +%s) - started )) s"
